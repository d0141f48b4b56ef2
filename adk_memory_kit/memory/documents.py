"""Turning ADK events and explicit memories into rows: what is stored, embedded and indexed."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.core.ids import fact_key, memory_row_id
from adk_memory_kit.core.index_keys import index_text, is_context_only, left_out_text
from adk_memory_kit.core.validation import check_identifier, clean_text, short
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.config import IndexingOptions


@dataclass
class MemoryDocument:
    """One row of the memory table before it is embedded."""

    id: str
    session_id: str
    event_id: str
    kind: str
    author: str | None
    role: str | None
    text: str
    search_text: str
    embed_text: str
    event_time: datetime
    metadata: dict[str, Any] = field(default_factory=dict)
    context_text: str = ""

    @property
    def source_hash(self) -> str:
        """``<embedded-text hash>:<everything-else hash>``; changes whenever anything stored or
        indexed changes, and its first half tells whether the embedding must be recomputed."""
        embedded = hashlib.sha256(self.embed_text.encode()).hexdigest()[:32]
        payload = json.dumps(
            [
                self.text,
                self.search_text,
                self.context_text,
                self.author,
                self.role,
                self.event_time.isoformat(),
                self.metadata,
            ],
            sort_keys=True,
            default=str,
        )
        return f"{embedded}:{hashlib.sha256(payload.encode()).hexdigest()[:32]}"


# The earliest and latest instants PostgreSQL and Python can both hold and read back.
_MIN_TIME = datetime(1, 1, 2, tzinfo=timezone.utc)
_MAX_TIME = datetime(9999, 12, 30, tzinfo=timezone.utc)


#: Metadata limits (docs/limits.md): nesting depth of dicts/lists, and JSON size in characters.
MAX_METADATA_DEPTH = 32
MAX_METADATA_CHARS = 65_536


def clean_metadata(value: Any, redactor: Callable[[str], str] | None, path: str = "") -> Any:
    """A JSON-ready copy of ``value`` whose strings (keys too) are cleaned and redacted.

    Dicts, lists and tuples are walked recursively; other non-JSON values are stored as their
    ``str()`` (and redacted like any string). Refused with :class:`InvalidInputError`
    naming where: non-finite floats (which JSONB cannot hold), nesting deeper than
    :data:`MAX_METADATA_DEPTH`, a container that holds itself, a value whose ``str()``
    raises, and metadata whose JSON exceeds :data:`MAX_METADATA_CHARS` characters.
    """
    cleaned = _clean(value, redactor, path, 0, set())
    if isinstance(cleaned, (dict, list)):
        size = len(json.dumps(cleaned, ensure_ascii=False))
        if size > MAX_METADATA_CHARS:
            raise InvalidInputError(
                f"custom_metadata{path} is {size} characters as JSON; the limit is "
                f"{MAX_METADATA_CHARS} (docs/limits.md)"
            )
    return cleaned


def _clean(
    value: Any, redactor: Callable[[str], str] | None, path: str, depth: int, seen: set[int]
) -> Any:
    if isinstance(value, str):
        text = clean_text(value)
        return redactor(text) if redactor and text else text
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError(
                f"custom_metadata{path} is {value}; JSON cannot hold NaN or infinity"
            )
        return value
    if isinstance(value, (Mapping, list, tuple, set, frozenset)):
        if depth >= MAX_METADATA_DEPTH:
            raise InvalidInputError(
                f"custom_metadata is nested deeper than {MAX_METADATA_DEPTH} levels "
                "(docs/limits.md)"
            )
        if id(value) in seen:
            raise InvalidInputError(f"custom_metadata{path} contains itself (a circular value)")
        seen = seen | {id(value)}
        if isinstance(value, Mapping):
            return {
                _safe_str(k, path): _clean(v, redactor, f"{path}[{i}]", depth + 1, seen)
                for i, (k, v) in enumerate(value.items())
            }
        return [_clean(v, redactor, f"{path}[{i}]", depth + 1, seen) for i, v in enumerate(value)]
    return _clean(_safe_str(value, path), redactor, path, depth, seen)


def _safe_str(value: Any, path: str) -> str:
    if isinstance(value, str):
        return clean_text(value)
    try:
        return clean_text(str(value))
    except Exception as exc:
        raise InvalidInputError(
            f"custom_metadata{path} holds a {type(value).__name__} whose str() raised "
            f"{type(exc).__name__}; store plain JSON values"
        ) from exc


def checked_utc(value: datetime, what: str) -> datetime:
    """``value`` in UTC (naive means UTC), refused if PostgreSQL/Python could not round-trip it."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=timezone.utc)
    try:
        value = value.astimezone(timezone.utc)
    except (OverflowError, ValueError) as exc:
        raise InvalidInputError(f"{what} {short(value)} is out of range") from exc
    if not _MIN_TIME <= value <= _MAX_TIME:
        raise InvalidInputError(f"{what} {value.isoformat()} is outside years 1-9999")
    return value


def content_text(content: types.Content | None, *, with_function_calls: bool = False) -> str:
    """The readable text of a content: text parts, and optionally function calls/responses."""
    if content is None or not content.parts:
        return ""
    pieces: list[str] = []
    for part in content.parts:
        if part.text and not part.thought:
            pieces.append(part.text)
        elif with_function_calls and part.function_call:
            args = json.dumps(part.function_call.args or {}, sort_keys=True, default=str)
            pieces.append(f"[call {part.function_call.name}({args})]")
        elif with_function_calls and part.function_response:
            body = json.dumps(part.function_response.response or {}, sort_keys=True, default=str)
            pieces.append(f"[{part.function_response.name} returned {body}]")
    return clean_text("\n".join(p for p in pieces if p.strip()))


def _filtered(content: types.Content | None, options: IndexingOptions) -> str:
    """The content's text after the ingestion filter (secrets redacted by default)."""
    text = content_text(content, with_function_calls=options.index_function_calls)
    return options.redactor(text) if options.redactor and text else text


def event_time(event: Event) -> datetime:
    """When ``event`` happened (its ``timestamp``, epoch seconds; missing means now), in UTC.

    A NaN, infinite or out-of-range timestamp raises :class:`InvalidInputError` naming the
    event, instead of a raw error from ``datetime`` or the database.
    """
    seconds = event.timestamp
    if seconds is None:
        return datetime.now(timezone.utc)
    try:
        value = float(seconds)
        if not math.isfinite(value):
            raise ValueError("not finite")
        when = datetime.fromtimestamp(value, tz=timezone.utc)
    except (TypeError, ValueError, OverflowError, OSError) as exc:
        raise InvalidInputError(
            f"event {short(event.id)} has timestamp {short(seconds)}; expected seconds since "
            "the epoch"
        ) from exc
    return checked_utc(when, f"event {short(event.id)} timestamp")


def as_event(value: Any) -> Event:
    """``value`` as an ADK :class:`Event`: an ``Event`` as it is; any other object (a
    ``Mock(spec=Event)``, a dataclass) by its ``id``, ``author``, ``invocation_id``,
    ``timestamp``, ``content``, ``partial`` and ``actions`` attributes, the way ADK's own memory
    services read events. An attribute missing or of the wrong type (``actions`` None, a
    ``Mock`` where a string belongs) takes the Event default."""
    if issubclass(type(value), Event):  # not isinstance: a Mock(spec=Event) passes that
        return value
    if not hasattr(value, "content") or isinstance(value, (str, bytes, Mapping)):
        raise InvalidInputError(
            f"events must be google.adk Event objects or have their attributes, got "
            f"{type(value).__name__}"
        )
    fields: dict[str, Any] = {}
    for name, kinds in _EVENT_FIELDS.items():
        attr = getattr(value, name, None)
        if isinstance(attr, kinds) and (name == "partial" or not isinstance(attr, bool)):
            fields[name] = attr
    if not isinstance(fields.get("author"), str):
        fields["author"] = "user"
    try:
        return Event(**fields)
    except ValueError as exc:
        raise InvalidInputError(
            f"events must be google.adk Event objects or have their attributes, got "
            f"{type(value).__name__}"
        ) from exc


_EVENT_FIELDS: dict[str, Any] = {
    "id": str,
    "author": str,
    "invocation_id": str,
    "timestamp": (int, float),
    "content": types.Content,
    "partial": bool,
    "actions": EventActions,
}


def as_events(values: Any) -> list[Event]:
    """Every item of ``values`` (a session's ``events``: any iterable; ``None``: none) as an
    :class:`Event` (:func:`as_event`)."""
    if values is None:
        return []
    try:
        items = list(values)
    except TypeError as exc:
        raise InvalidInputError("events must be a sequence of ADK events") from exc
    return [as_event(v) for v in items]


def newest_event_time(events: Sequence[Event]) -> datetime | None:
    """The newest timestamp among ``events`` (all of them, text or not); ``None`` if empty."""
    times = [event_time(e) for e in events if isinstance(e, Event) and e.timestamp is not None]
    return max(times, default=None)


def parse_timestamp(value: str | None) -> datetime:
    """Parse an ISO-8601 timestamp (naive means UTC); ``None`` means now."""
    if value is None or not str(value).strip():
        return datetime.now(timezone.utc)
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidInputError(
            f"timestamp {short(value)} is not ISO-8601 (e.g. 2026-09-28T12:00:00+00:00)"
        ) from exc
    return checked_utc(parsed, "timestamp")


def _author(value: str | None) -> str | None:
    return clean_text(value) if isinstance(value, str) else value


def _labelled(author: str | None, text: str, options: IndexingOptions) -> str:
    """The embedded form of a turn: ``author: text``."""
    return f"{author}: {text}" if options.include_author and author else text


#: Authors that name no one: ADK writes ``user`` on every user turn, so the word would make
#: every user turn a full-text match (and pass the relevance floor) for "what does the user
#: ...?". Their label stays in the embedded text (the router embeds ``user: <sentence>`` too).
UNNAMED_AUTHORS = frozenset({"user"})


#: Kit components that write what the user said as explicit memories (the routing applier,
#: the model's ``remember`` tool): such a memory is indexed and embedded as the user's words
#: ("user: I work at ..."), not under the component's name, which MiniLM reads as part of the
#: sentence (a question about the user's job scored 0.16 against a fact labelled
#: "memory_router" and a date, 0.41 against it labelled "user").
RELAYING_AUTHORS = frozenset({"memory_router", "memory_tools"})


def _indexed(author: str | None, text: str, options: IndexingOptions) -> str:
    """The full-text form of a turn: ``author: text``, without an unnamed author's label."""
    return text if (author or "").lower() in UNNAMED_AUTHORS else _labelled(author, text, options)


def date_key(when: datetime) -> str:
    """The words a date is indexed under: ``8 May 2023`` (UTC, English month names)."""
    return f"{when.day} {_MONTHS[when.month - 1]} {when.year}"


_MONTHS = (
    "January February March April May June July August September October November December"
).split()


def _index_keys(
    when: datetime, own: str, context: str, options: IndexingOptions
) -> tuple[str, str]:
    """``(context_text, embed_text)`` with the date added where ``options`` asks for it.

    The date is an index key only: it goes into the low-weight full-text context and
    (``embed_date``) before the embedded text, never into the stored text."""
    date = date_key(when)
    if options.index_date:
        context = "\n".join(x for x in (context, date) if x)
    return context, (f"{date}: {own}" if options.embed_date else own)


def documents_from_events(
    app_name: str,
    user_id: str,
    session_id: str,
    events: Sequence[Event],
    options: IndexingOptions,
    extra_metadata: dict[str, Any] | None = None,
) -> list[MemoryDocument]:
    """One document per event that has text; events without text are skipped.

    An event the write policy marked context-only makes no document; with
    ``options.index_left_out`` it is its neighbours' context, and a kept event's left-out
    sentences join its own full-text context (never its stored text)."""
    turns: list[_Turn] = []
    for event in events:
        if not isinstance(event, Event):
            raise InvalidInputError(f"events must be google.adk Event objects, got {type(event)}")
        context_only = is_context_only(event)
        if context_only and not options.index_left_out:
            continue
        text = _filtered(event.content, options)
        if not text.strip():
            continue
        if not event.id and not context_only:
            raise InvalidInputError("every event needs an id to be stored in memory")
        if not context_only:
            check_identifier("event id", event.id)
        author = _author(event.author)
        own = _indexed(author, text, options)[: options.max_index_chars]
        embedded = _labelled(author, text, options)[: options.max_index_chars]
        left_out = ""
        if options.index_left_out and not context_only and left_out_text(event):
            left_out = _redacted(left_out_text(event), options)[: options.max_index_chars]
            if options.left_out_in_turn:
                whole = _redacted(index_text(event), options)
                own = _indexed(author, whole, options)[: options.max_index_chars]
                left_out = ""
            if options.embed_left_out:
                whole = _labelled(author, _redacted(index_text(event), options), options)
                embedded = whole[: options.max_index_chars]
        turns.append(_Turn(event, text, own, embedded, left_out, context_only))
    docs: list[MemoryDocument] = []
    extra = clean_metadata(extra_metadata or {}, options.redactor)
    chars = options.context_chars
    n_before, n_after = max(0, options.context_turns), max(0, options.context_turns_after)
    for i, turn in enumerate(turns):
        if turn.context_only:
            continue
        event, text, own = turn.event, turn.text, turn.own
        before = (
            [x[-chars:] for t in turns[max(0, i - n_before) : i] for x in t.parts] if chars else []
        )
        after = (
            [x[:chars] for t in turns[i + 1 : i + 1 + n_after] for x in t.parts] if chars else []
        )
        context = "\n".join(before + after + ([turn.left_out] if turn.left_out else []))
        if options.embed_context and (before or after):
            embed_text = "\n".join([*before, turn.embedded, *after])
        else:
            embed_text = turn.embedded
        when = event_time(event)
        context, embed_text = _index_keys(when, embed_text, context, options)
        docs.append(
            MemoryDocument(
                id=memory_row_id(app_name, user_id, session_id, event.id),
                session_id=session_id,
                event_id=event.id,
                kind="event",
                author=_author(event.author),
                role=_author(event.content.role if event.content else None),
                text=text,
                search_text=own,
                context_text=context,
                embed_text=embed_text,
                event_time=when,
                metadata={
                    **extra,
                    "invocation_id": clean_metadata(event.invocation_id, options.redactor),
                },
            )
        )
    return docs


@dataclass(frozen=True)
class _Turn:
    """One text event on its way to a document: ``own`` is its full-text indexed stored text,
    ``embedded`` its embedded text, ``left_out`` the sentences the write policy left out
    (index keys only)."""

    event: Event
    text: str
    own: str
    embedded: str
    left_out: str
    context_only: bool

    @property
    def parts(self) -> tuple[str, ...]:
        """What a neighbour's context holds of this turn: its labelled stored text, then its
        left-out sentences (kept apart, so the re-ranker still finds the stored text there)."""
        return (self.own, self.left_out) if self.left_out else (self.own,)


def _redacted(text: str, options: IndexingOptions) -> str:
    text = clean_text(text)
    return options.redactor(text) if options.redactor and text else text


#: ``custom_metadata`` key of an explicit entry: text embedded with the memory (before its own
#: text) but never stored, full-text indexed or returned: a correction is embedded with the
#: memory it replaces, so a question that found the old fact by its meaning finds the new one
#: (memory/curator.py), while the old words ("Sophie") no longer match it.
INDEXED_WITH = "indexed_with"

# Keys search_memory adds to every returned entry's metadata; they describe the stored row, so
# an entry re-added as returned must not store them as its own metadata.
READ_ONLY_KEYS = (
    "score",
    "scores",
    "event_id",
    "ingested_at",
    "superseded_at",
    "recorded_at",
    "last_accessed_at",
    "last_confirmed_at",
    "access_count",
    "pinned",
    "superseded_reason",
    "superseded_by",
    "conflict_with",
)


@dataclass(frozen=True)
class StoredKey:
    """The key of an existing row, for an entry whose ``id`` is that row's id."""

    id: str
    session_id: str
    event_id: str
    kind: str


def documents_from_entries(
    app_name: str,
    user_id: str,
    entries: Sequence[MemoryEntry],
    options: IndexingOptions,
    base_metadata: dict[str, Any],
    stored_keys: Mapping[str, StoredKey] | None = None,
) -> list[MemoryDocument]:
    """Explicit memories (e.g. distilled facts). Keyed by ``entry.id`` or by their text.

    An ``entry.id`` found in ``stored_keys`` (the row id search_memory returned) keeps that
    row's session, event key and kind, so the row is updated in place.
    """
    docs: list[MemoryDocument] = []
    for entry in entries:
        if not isinstance(entry, MemoryEntry):
            raise InvalidInputError(f"memories must be MemoryEntry objects, got {type(entry)}")
        if entry.id:
            check_identifier("MemoryEntry.id", entry.id)
        text = _filtered(entry.content, options)
        if not text.strip():
            raise InvalidInputError("a MemoryEntry needs non-empty text content to be stored")
        metadata = {**base_metadata, **(entry.custom_metadata or {})}
        for key in READ_ONLY_KEYS:
            metadata.pop(key, None)
        indexed_with = metadata.pop(INDEXED_WITH, None)
        if indexed_with is not None and not isinstance(indexed_with, str):
            raise InvalidInputError(f"custom_metadata[{INDEXED_WITH!r}] must be text")
        also = _redacted(indexed_with or "", options)[: options.max_index_chars]
        stored = (stored_keys or {}).get(entry.id or "")
        session_id = str(metadata.pop("session_id", "") or "")
        kind = str(metadata.pop("kind", stored.kind if stored else "fact"))
        if stored is not None:
            doc_id, session_id, key = stored.id, stored.session_id, stored.event_id
        else:
            if session_id:
                check_identifier("session_id", session_id)
            key = entry.id or fact_key(text)
            doc_id = memory_row_id(app_name, user_id, session_id, key)
        author = _author(entry.author)
        # a fact the kit relays from the user ("I work at ...") is labelled as the user's
        speaker = "user" if author in RELAYING_AUTHORS and entry.content.role == "user" else author
        indexed = _indexed(speaker, text, options)[: options.max_index_chars]
        labelled = _labelled(speaker, text, options)[: options.max_index_chars]
        when = parse_timestamp(entry.timestamp)
        # only a date the caller gave is an index key (no timestamp: stored as now)
        dated = (
            options
            if entry.timestamp
            else options.model_copy(update={"index_date": False, "embed_date": False})
        )
        with_also = _labelled(speaker, also, options) if also else ""
        embedded = "\n".join(x for x in (with_also, labelled) if x)[: options.max_index_chars]
        context, embed_text = _index_keys(when, embedded, "", dated)  # never by its words
        docs.append(
            MemoryDocument(
                id=doc_id,
                session_id=session_id,
                event_id=key,
                kind=clean_text(kind),
                author=author,
                role=_author(entry.content.role),
                text=text,
                search_text=indexed,
                context_text=context,
                embed_text=embed_text,
                event_time=when,
                metadata=clean_metadata(metadata, options.redactor),
            )
        )
    return docs
