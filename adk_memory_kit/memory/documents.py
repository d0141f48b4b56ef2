"""Turning ADK events and explicit memories into rows: what is stored, embedded and indexed."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from google.adk.events.event import Event
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.errors import InvalidInputError

_ID_NAMESPACE = uuid.UUID("6f1c2a53-8f0e-4a8e-9a43-2d6c0b1b7e11")


@dataclass
class IndexingOptions:
    """What text goes into the index for each event.

    ``context_turns``: how many preceding turns of the same session are added to the text that is
    embedded, and full-text indexed at a low weight (the stored text stays the turn alone). A
    reply such as "Yes, last Tuesday" is only findable together with the question it answers.
    """

    index_function_calls: bool = False
    include_author: bool = True
    context_turns: int = 1
    context_chars: int = 300
    max_index_chars: int = 20_000


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
        """Changes whenever anything that is stored or indexed changes."""
        payload = json.dumps(
            [
                self.text,
                self.search_text,
                self.context_text,
                self.embed_text,
                self.author,
                self.role,
                self.event_time.isoformat(),
                self.metadata,
            ],
            sort_keys=True,
            default=str,
        )
        return hashlib.sha256(payload.encode()).hexdigest()


def check_scope(app_name: Any, user_id: Any) -> None:
    """Refuse a missing or malformed app name or user id before any query runs."""
    for label, value in (("app_name", app_name), ("user_id", user_id)):
        check_identifier(label, value)


def check_identifier(label: str, value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{label} must be a non-empty string, got {value!r}")
    if "\x00" in value:
        raise InvalidInputError(f"{label} must not contain NUL bytes")


def clean_text(value: str) -> str:
    """PostgreSQL text cannot hold NUL; replace it with U+FFFD so nothing else shifts."""
    return value.replace("\x00", "\ufffd")


def row_id(app_name: str, user_id: str, session_id: str, event_id: str) -> str:
    """A stable id: the same (app, user, session, event) always maps to the same row id."""
    return str(uuid.uuid5(_ID_NAMESPACE, json.dumps([app_name, user_id, session_id, event_id])))


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


def _to_datetime(seconds: float | None) -> datetime:
    if seconds is None:
        return datetime.now(timezone.utc)
    return datetime.fromtimestamp(float(seconds), tz=timezone.utc)


def parse_timestamp(value: str | None) -> datetime:
    """Parse an ISO-8601 timestamp (naive means UTC); ``None`` means now."""
    if value is None or not str(value).strip():
        return datetime.now(timezone.utc)
    try:
        parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidInputError(
            f"timestamp {value!r} is not ISO-8601 (e.g. 2026-09-28T12:00:00+00:00)"
        ) from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=timezone.utc)


def _labelled(author: str | None, text: str, options: IndexingOptions) -> str:
    return f"{author}: {text}" if options.include_author and author else text


def documents_from_events(
    app_name: str,
    user_id: str,
    session_id: str,
    events: Sequence[Event],
    options: IndexingOptions,
    extra_metadata: dict[str, Any] | None = None,
) -> list[MemoryDocument]:
    """One document per event that has text; events without text are skipped."""
    docs: list[MemoryDocument] = []
    previous: list[str] = []
    for event in events:
        if not isinstance(event, Event):
            raise InvalidInputError(f"events must be google.adk Event objects, got {type(event)}")
        text = content_text(event.content, with_function_calls=options.index_function_calls)
        if not text.strip():
            continue
        if not event.id:
            raise InvalidInputError("every event needs an id to be stored in memory")
        own = _labelled(event.author, text, options)[: options.max_index_chars]
        context = (
            "\n".join(p[-options.context_chars :] for p in previous[-options.context_turns :])
            if options.context_turns
            else ""
        )
        docs.append(
            MemoryDocument(
                id=row_id(app_name, user_id, session_id, event.id),
                session_id=session_id,
                event_id=event.id,
                kind="event",
                author=event.author,
                role=event.content.role if event.content else None,
                text=text,
                search_text=own,
                context_text=context,
                embed_text=f"{context}\n{own}" if context else own,
                event_time=_to_datetime(event.timestamp),
                metadata={**(extra_metadata or {}), "invocation_id": event.invocation_id},
            )
        )
        previous.append(own)
    return docs


def documents_from_entries(
    app_name: str,
    user_id: str,
    entries: Sequence[MemoryEntry],
    options: IndexingOptions,
    base_metadata: dict[str, Any],
) -> list[MemoryDocument]:
    """Explicit memories (e.g. distilled facts). Keyed by ``entry.id`` or by their text."""
    docs: list[MemoryDocument] = []
    for entry in entries:
        if not isinstance(entry, MemoryEntry):
            raise InvalidInputError(f"memories must be MemoryEntry objects, got {type(entry)}")
        text = content_text(entry.content, with_function_calls=options.index_function_calls)
        if not text.strip():
            raise InvalidInputError("a MemoryEntry needs non-empty text content to be stored")
        metadata = {**base_metadata, **(entry.custom_metadata or {})}
        session_id = str(metadata.pop("session_id", "") or "")
        key = entry.id or "fact:" + hashlib.sha256(text.encode()).hexdigest()[:32]
        indexed = _labelled(entry.author, text, options)[: options.max_index_chars]
        docs.append(
            MemoryDocument(
                id=row_id(app_name, user_id, session_id, key),
                session_id=session_id,
                event_id=key,
                kind=str(metadata.pop("kind", "fact")),
                author=entry.author,
                role=entry.content.role,
                text=text,
                search_text=indexed,
                embed_text=indexed,
                event_time=parse_timestamp(entry.timestamp),
                metadata=metadata,
            )
        )
    return docs
