"""Durable records the write policy reads at ingestion: routing decisions and recall provenance.

Both ride on the session's own events, in the event's ``custom_metadata`` (never in the
session state, so the dev UI's State tab and the events' state chips stay free of them):

* ``ROUTING_RECORD_KEY`` (``"adk_memory_kit.routing"``): written by the routing plugin at the
  end of a turn (on its after-agent event). It says, per event id and sentence index, which
  homes the router sent that sentence's candidates to. It never holds the text, only
  positions and homes.
* ``RECALL_RECORD_KEY`` (``"adk_memory_kit.recall"``): written for each model call that got a
  preloaded recall block (on the model's response event): one-way hashes of the recalled
  content stems, so an agent reply restating them is recognised later.

How it gets there: a callback cannot reach the event it contributes to, only its state delta.
So the writer puts the record under a ``temp:`` key (``PENDING_PREFIX`` + name), and the
plugin's ``on_event_callback``, which sees the event before the session service appends it,
moves it into ``custom_metadata``. ADK never persists ``temp:`` keys and strips them from the
event before it is stored or yielded, so nothing reaches the State tab.

The agent-callback form (:func:`~.plugin.memory_routing_callback`) has no event hook; it
writes the routing record under the one documented session key ``ROUTING_STATE_KEY``
(``"adk_memory_kit:routing"``), only on turns where something was routed.

Why events and not a side table: the session service persists every event's metadata with the
event (``DatabaseSessionService`` does, in the same transaction as the event), so the record
survives a restart, reaches the idle job in another process through the ordinary
``get_session``, is deleted with the session, and needs no new table, migration or forget
hook. Readers also accept the keys older kit versions left in ``actions.state_delta``
(``LEGACY_ROUTING_KEY``, ``LEGACY_RECALL_KEY``), so sessions stored before still ingest the same.
``load_memory`` needs no record: its result is already in the function-response event, and so
is any other tool's result (:func:`session_result_set_stems`: the lists of options or hits an
agent sentence may restate).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from adk_memory_kit.core.ids import normalize_fact_text
from adk_memory_kit.core.markers import RECALL_TAG
from adk_memory_kit.routing.dialogue_acts import states_something
from adk_memory_kit.routing.extractors import event_text
from adk_memory_kit.routing.rule import Candidate, MemoryHome
from adk_memory_kit.text.sentences import legacy_sentence_index, split_sentences
from adk_memory_kit.text.signals import content_stems, fingerprint, overlap

if TYPE_CHECKING:
    from google.adk.agents.context import Context
    from google.adk.events.event import Event
    from google.adk.models.llm_request import LlmRequest

ROUTING_RECORD_KEY = "adk_memory_kit.routing"
"""Key of the routing record in an event's ``custom_metadata``."""
RECALL_RECORD_KEY = "adk_memory_kit.recall"
"""Key of the recall record in an event's ``custom_metadata``."""
PENDING_PREFIX = "temp:"
"""A record waits under ``PENDING_PREFIX + key`` in the state delta until the plugin moves it."""
ROUTING_STATE_KEY = "adk_memory_kit:routing"
"""The one session key the agent-callback form writes (it has no event hook)."""
LEGACY_ROUTING_KEY = "_adk_memory_kit_routing"
LEGACY_RECALL_KEY = "_adk_memory_kit_recall"
_RECORD_KEYS = (ROUTING_RECORD_KEY, RECALL_RECORD_KEY)
RECORD_VERSION = 2
"""2: sentence indexes of :func:`~.extractors.split_sentences` that keeps "Dr. X" and initials
in one sentence (version 1 split after every full stop; its indexes are translated)."""

#: Function names whose results are recalled memory (the kit's and ADK's).
RECALL_TOOL_NAMES = frozenset({"load_memory", "search_memory", "preload_memory"})
_PAST = ("<PAST_CONVERSATIONS>", "</PAST_CONVERSATIONS>")


# ------------------------------------------------------------------ routing decisions
def locate(candidate: Candidate, events: Sequence[Event]) -> tuple[str, int] | None:
    """``(event id, sentence index)`` the candidate came from, or ``None`` if not found.

    A rule-based candidate's text is a sentence or a clause of one (exact match). A model's
    candidate is a paraphrase: the sentence sharing most of its content words (at least half)
    is taken.
    """
    wanted = normalize_fact_text(candidate.text)
    best: tuple[float, tuple[str, int]] | None = None
    stems = set(fingerprint(content_stems(candidate.text)))
    for event in events:
        if not event.id:
            continue
        for index, sentence in enumerate(split_sentences(event_text(event))):
            norm = normalize_fact_text(sentence)
            if wanted and wanted in norm:
                return event.id, index
            score = overlap(stems, set(fingerprint(content_stems(sentence))))
            if score >= 0.5 and (best is None or score > best[0]):
                best = (score, (event.id, index))
    return best[1] if best else None


def routing_record(
    invocation_id: str,
    events: Sequence[Event],
    decided: Iterable[tuple[Candidate, MemoryHome]],
    earlier: Iterable[tuple[str, int, MemoryHome]] = (),
) -> dict[str, Any]:
    """The record of one routing pass: ``{"sentences": {event_id: {index: [homes]}}}``.

    ``earlier``: (event id, sentence index, home) of sentences of earlier turns that this pass
    gave a home (``RoutingOutcome.earlier``), recorded as such."""
    sentences: dict[str, dict[str, list[str]]] = {}
    unplaced: dict[str, int] = {}

    def mark(event_id: str, index: int, home: MemoryHome) -> None:
        homes = sentences.setdefault(event_id, {}).setdefault(str(index), [])
        if home.value not in homes:
            homes.append(home.value)

    for candidate, home in decided:
        where = locate(candidate, events)
        if where is None:
            unplaced[home.value] = unplaced.get(home.value, 0) + 1
            continue
        mark(where[0], where[1], home)
    for event_id, index, home in earlier:
        mark(str(event_id), int(index), home)
    return {
        "v": RECORD_VERSION,
        "invocation_id": invocation_id,
        "routed_events": sorted({e.id for e in events if e.id}),
        "sentences": sentences,
        "unplaced": unplaced,
    }


def write_routing_record(
    context: Context,
    events: Sequence[Event],
    decided: Sequence[tuple[Candidate, MemoryHome]],
    *,
    pending: bool = True,
    earlier: Iterable[tuple[str, int, MemoryHome]] = (),
) -> None:
    """Record the decisions on the turn's after-agent event.

    ``pending`` (the plugin): under the ``temp:`` key that :func:`attach_pending_records`
    moves into the event's metadata. Otherwise under the session key ``ROUTING_STATE_KEY``.
    Nothing is written when nothing was decided.
    """
    earlier = list(earlier)
    if not decided and not earlier:
        return
    key = PENDING_PREFIX + ROUTING_RECORD_KEY if pending else ROUTING_STATE_KEY
    context.state[key] = routing_record(context.invocation_id, events, decided, earlier)


def attach_pending_records(event: Event) -> bool:
    """Move the kit's pending records from ``event``'s state delta into its ``custom_metadata``.

    Called before the event is appended or yielded (a plugin's ``on_event_callback``); updates
    ``event`` in place and returns whether anything was moved. Other state keys are left alone.
    The event gets its own copy of ``actions``: ADK shares one ``EventActions`` between the
    streamed chunks of a model response, and later chunks still need the pending record.
    """
    delta = _state_delta(event)
    pending = {PENDING_PREFIX + k: k for k in _RECORD_KEYS}
    found = {name: delta[key] for key, name in pending.items() if key in delta}
    if not found:
        return False
    event.custom_metadata = {**(event.custom_metadata or {}), **found}
    kept = {k: v for k, v in delta.items() if k not in pending}
    event.actions = event.actions.model_copy(update={"state_delta": kept})
    return True


def event_record(event: Any, key: str) -> Mapping[str, Any] | None:
    """The kit record ``key`` carried by ``event``: its metadata, else (older sessions, the
    agent-callback form) its state delta; ``None`` when it has none."""
    metadata = getattr(event, "custom_metadata", None)
    if isinstance(metadata, Mapping) and isinstance(metadata.get(key), Mapping):
        return metadata[key]
    delta = _state_delta(event)
    fallbacks = (
        (ROUTING_STATE_KEY, LEGACY_ROUTING_KEY)
        if key == ROUTING_RECORD_KEY
        else (LEGACY_RECALL_KEY,)
    )
    for name in fallbacks:
        if isinstance(delta.get(name), Mapping):
            return delta[name]
    return None


class RoutingDecisions:
    """What the routers decided for a session, read back from its events."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.sentences: dict[str, dict[int, set[MemoryHome]]] = {}
        self.routed: set[str] = set()
        # events named only by the sentences of a record that lists no routed events (the
        # oldest records): recorded too
        self._listed: set[str] = set()
        texts = {str(e.id): e for e in events if e.id}
        for event in events:
            record = event_record(event, ROUTING_RECORD_KEY)
            if record is None:
                continue
            self.routed.update(str(e) for e in record.get("routed_events") or [])
            if "routed_events" not in record:
                self._listed.update(str(e) for e in (record.get("sentences") or {}))
            old = not isinstance(record.get("v"), int) or record["v"] < 2
            for event_id, by_index in (record.get("sentences") or {}).items():
                slot = self.sentences.setdefault(str(event_id), {})
                source = texts.get(str(event_id))
                moved = (
                    legacy_sentence_index(event_text(source)) if old and source is not None else {}
                )
                for index, homes in (by_index or {}).items():
                    known = {MemoryHome(h) for h in homes if h in _HOMES}
                    where = moved.get(int(index), int(index))
                    slot.setdefault(where, set()).update(known)

    def has_record(self, event_id: str) -> bool:
        """Whether a router saw the event (a later turn's mark on one of its sentences, an
        update's or a forget request's, does not make it one: its other sentences are still
        classified at ingestion as an unrouted event's)."""
        return event_id in self.routed or event_id in self._listed

    def homes(self, event_id: str, index: int) -> set[MemoryHome]:
        return self.sentences.get(event_id, {}).get(index, set())


_HOMES = {h.value for h in MemoryHome}


def _state_delta(event: Any) -> Mapping[str, Any]:
    """The event's ``actions.state_delta``; empty for a duck-typed event without one
    (``actions`` None or missing, as ADK's tests build events with ``Mock(spec=Event)``)."""
    delta = getattr(getattr(event, "actions", None), "state_delta", None)
    return delta if isinstance(delta, Mapping) else {}


# ------------------------------------------------------------------ recall provenance
def recalled_block_text(text: str) -> str:
    """The recalled content inside a framed block: its quoted lines (or ADK's block body)."""
    if f"<{RECALL_TAG}>" in text:
        return "\n".join(line[2:] for line in text.splitlines() if line.startswith("> "))
    if _PAST[0] in text:
        return text.split(_PAST[0], 1)[1].split(_PAST[1], 1)[0]
    return ""


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)
    elif value is not None and hasattr(value, "model_dump"):
        yield from _strings(value.model_dump(mode="json"))


def request_recall_stems(llm_request: LlmRequest) -> set[str]:
    """Hashed content stems of every recall block injected into ``llm_request``."""
    found: set[str] = set()
    for content in llm_request.contents or []:
        for part in content.parts or []:
            if part.text:
                block = recalled_block_text(part.text)
                if block:
                    found.update(fingerprint(content_stems(block)))
    return found


def write_recall_record(context: Context, llm_request: LlmRequest) -> None:
    """Record what the preload put into this request, pending on the model's response event
    (see :func:`attach_pending_records`)."""
    stems = request_recall_stems(llm_request)
    if stems:
        _put_recall_record(context, stems)


def _put_recall_record(context: Context, stems: set[str]) -> None:
    """This model call's pending recall record, holding ``stems``."""
    context.state[PENDING_PREFIX + RECALL_RECORD_KEY] = {
        "v": RECORD_VERSION,
        "invocation_id": context.invocation_id,
        "stems": sorted(stems),
    }


def record_shown_memories(context: Context, texts: Sequence[str]) -> None:
    """Add memory texts shown to the model outside a recall block (the memories a forget
    request asks the user to confirm) to this call's pending recall record, so a reply that
    restates them is known as recalled text and never stored again."""
    stems: set[str] = set()
    for text in texts:
        stems.update(fingerprint(content_stems(text)))
    if not stems:
        return
    held = context.state.get(PENDING_PREFIX + RECALL_RECORD_KEY)
    if isinstance(held, Mapping) and held.get("invocation_id") == context.invocation_id:
        stems.update(str(s) for s in held.get("stems") or [])
    _put_recall_record(context, stems)


def session_recall_stems(events: Sequence[Event]) -> set[str]:
    """Hashed stems of everything recall returned in a session: recall records, memory-tool
    results (``load_memory``...) and any function result holding a framed recall block."""
    found: set[str] = set()
    for event in events:
        record = event_record(event, RECALL_RECORD_KEY)
        if record is not None:
            found.update(str(s) for s in record.get("stems") or [])
        for part in (event.content.parts or []) if event.content else []:
            response = part.function_response
            if response is None:
                continue
            texts = list(_strings(response.response))
            framed = [recalled_block_text(t) for t in texts]
            if any(framed):
                texts = [t for t in framed if t]
            elif response.name not in RECALL_TOOL_NAMES:
                continue
            for text in texts:
                found.update(fingerprint(content_stems(text)))
    return found


# ------------------------------------------------------------------ tool-result provenance
#: A list in a tool's result with at least this many items is a result set (search hits,
#: flight options, saved findings), not one outcome.
RESULT_SET_MIN_ITEMS = 2


#: Words of a tool's name that say it looks things up (a lookup's answer, one hit or many,
#: is the tool's, not the user's) ...
READING_TOOL_WORDS = frozenset(
    (
        "search", "find", "get", "list", "lookup", "look", "query", "fetch", "check", "browse",
        "recommend", "suggest", "compare", "quote", "price", "show", "read", "retrieve", "scan",
        "explore", "discover", "rank", "filter", "match", "estimate", "web", "weather",
    )
)  # fmt: skip
#: ... and words that say it acts: a tool that acts (``book_flight``, ``search_and_book``)
#: reports an outcome.
ACTING_TOOL_WORDS = frozenset(
    (
        "book", "send", "create", "save", "delete", "update", "cancel", "pay", "order", "buy",
        "post", "write", "set", "add", "remove", "submit", "schedule", "reserve", "transfer",
        "hold", "confirm", "rebook", "store", "put", "edit", "move", "approve", "forget",
    )
)  # fmt: skip


def reads_only(tool_name: str | None) -> bool:
    """Whether a tool's name says it only looks things up: a word of
    :data:`READING_TOOL_WORDS` and none of :data:`ACTING_TOOL_WORDS` (``search_flights``,
    ``getWeather``, ``web_search``; not ``book_flight``)."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", tool_name or "")
    words = set(re.split(r"[\s_\-.]+", spaced.strip().lower()))
    return bool(words & READING_TOOL_WORDS) and not words & ACTING_TOOL_WORDS


#: A sentence stating nothing, this much of it looked up by the agent, asked for the lookup.
LOOKUP_OVERLAP = 0.6


def lookup_query_stems(events: Sequence[Event]) -> dict[str, set[str]]:
    """Per invocation, the content stems of what the agent looked up (the string arguments
    of its calls to tools that only read, :func:`reads_only`): a user sentence made of them
    ("Heat pump adoption in Germany.", then ``web_search(query="heat pump adoption
    Germany")``) asked for that work; it states no fact."""
    found: dict[str, set[str]] = {}
    for event in events:
        for part in (event.content.parts or []) if event.content else []:
            call = part.function_call
            if call is None or not reads_only(call.name):
                continue
            stems = found.setdefault(event.invocation_id or "", set())
            for value in _strings(call.args or {}):
                stems.update(content_stems(value))
    return found


def asks_for_a_lookup(sentence: str, looked_up: set[str]) -> bool:
    """Whether ``sentence`` states nothing and at least :data:`LOOKUP_OVERLAP` of its content
    stems are in ``looked_up`` (:func:`lookup_query_stems` of its invocation)."""
    stems = content_stems(sentence)
    return bool(looked_up and stems) and (
        not states_something(sentence) and overlap(stems, looked_up) >= LOOKUP_OVERLAP
    )


def _has_result_set(value: Any) -> bool:
    """Whether a tool payload holds a list of at least :data:`RESULT_SET_MIN_ITEMS` items."""
    if isinstance(value, Mapping):
        return any(_has_result_set(item) for item in value.values())
    if isinstance(value, (list, tuple)):
        return len(value) >= RESULT_SET_MIN_ITEMS or any(_has_result_set(i) for i in value)
    if value is not None and hasattr(value, "model_dump"):
        return _has_result_set(value.model_dump(mode="json"))
    return False


def _payload_words(value: Any) -> Iterable[str]:
    """Every key and scalar leaf of a tool payload, as text."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from _payload_words(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _payload_words(item)
    elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
        yield str(value)
    elif value is not None and hasattr(value, "model_dump"):
        yield from _payload_words(value.model_dump(mode="json"))


def session_result_set_stems(events: Sequence[Event]) -> set[str]:
    """Hashed content stems (keys and values) of every tool result in the session that holds
    a result set: a list of options or hits, or the answer of a tool that only looks things up
    (:func:`reads_only`: one flight a search found is still the search's). Recall tools are
    :func:`session_recall_stems`'. A single outcome of a tool that acts (one booking, one
    status) is no result set: an agent sentence reporting it keeps its own substance."""
    found: set[str] = set()
    for event in events:
        for part in (event.content.parts or []) if event.content else []:
            response = part.function_response
            if response is None or response.name in RECALL_TOOL_NAMES:
                continue
            if _has_result_set(response.response) or reads_only(response.name):
                for word in _payload_words(response.response):
                    found.update(fingerprint(content_stems(word.replace("_", " "))))
    return found
