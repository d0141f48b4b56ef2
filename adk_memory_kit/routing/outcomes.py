"""What applying a candidate yields, and the names the applier and the edit handlers share.

:class:`RoutingOutcome` is what the applier (:mod:`.apply`) and the conversation-edit handlers
(:mod:`.edits`) report for one candidate; :func:`long_term_entry` is the one way a candidate
becomes a dated long-term ``MemoryEntry``. A module of its own, so the applier can build its
default edit handlers and the handlers can use these names without an import circle.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.core.ids import fact_key
from adk_memory_kit.core.markers import ANNOUNCES_CHANGE
from adk_memory_kit.profile.vocabulary import USER_PREF_PREFIX
from adk_memory_kit.routing.fact_text import readable_fact
from adk_memory_kit.routing.rule import Candidate, MemoryHome, route

#: A keyed session fact lives in session state under this prefix and its key.
SESSION_FACT_PREFIX = "fact_"
#: The session state list of key-less notes (``temp:`` + it: the turn's scratch notes).
NOTES_KEY = "memory_notes"
#: The ``kind`` of a fact the router stores in long-term memory.
FACT_KIND = "fact"

#: A forget handler's outcome detail: the sentence routed as a request asks for no deletion.
NOT_A_REQUEST = "not a request to forget"


@dataclass(frozen=True)
class RoutingOutcome:
    """What happened to one candidate. ``detail`` never contains the candidate's text.

    ``status``: ``stored``, ``queued`` (review), ``dropped`` (sensitive), ``already_saved``
    (the same preference was saved earlier in the turn; that value stands, nothing failed),
    ``rejected`` (bad key or value), ``skipped`` (no review queue configured) or ``failed``
    (a store raised; ``detail`` names the error).
    """

    home: MemoryHome
    status: str
    key: str | None = None
    detail: str = ""
    #: (event id, sentence index, home) of sentences said in earlier turns of the session,
    #: not stored yet, that this outcome gave a home: an update's replaced fact, stored in
    #: long-term memory (superseded); what a forget request names (``FORGET``: never stored).
    #: The routing record marks them, so ingestion does not store them as current memories.
    earlier: tuple[tuple[str, int, MemoryHome], ...] = ()


#: True while the routing plugin applies a turn's candidates (``route_turn``), whose routing
#: record then carries each outcome's ``earlier`` homes: a handler gives sentences of earlier
#: turns a home only then (another caller, a tool's ``apply_one``, would lose the mark).
RECORDING_EARLIER: ContextVar[bool] = ContextVar("adk_memory_kit_recording_earlier", default=False)


def long_term_entry(
    candidate: Candidate,
    *,
    when: datetime | None = None,
    author: str = "memory_router",
    source: str = "routing",
    session_id: str | None = None,
) -> tuple[MemoryEntry, dict[str, Any]]:
    """A dated ``MemoryEntry`` for ``candidate`` and the call-wide ``custom_metadata``.

    The text is the candidate's, worded as a fact (:func:`readable_fact`: no conversational
    openers or closers, a capital and a full stop); its values are kept exactly.

    The metadata carries ``subject`` (the key: a newer fact with the same subject supersedes
    older ones), ``ttl_seconds`` and ``importance`` when the candidate has them.
    """
    when = (when or candidate.observed_at or datetime.now(timezone.utc)).astimezone(timezone.utc)
    entry_meta: dict[str, Any] = {"kind": FACT_KIND, "source": source}
    if session_id:
        entry_meta["source_session_id"] = session_id
    if candidate.key:
        entry_meta["key"] = candidate.key
    if candidate.value is not None:
        entry_meta["value"] = candidate.value
    if candidate.memory_type:
        entry_meta["memory_type"] = candidate.memory_type
    if candidate.replaces_earlier:
        # said as a change ("I moved to Monzo"): stored beside an older fact it could not be
        # tied to, it leads that fact for a question in the present tense (memory/rerank.py)
        entry_meta[ANNOUNCES_CHANGE] = True
    if route(candidate) is MemoryHome.USER_STATE and candidate.key:
        # this fact feeds user: state: it never decays (purge_stale)
        entry_meta["state_key"] = USER_PREF_PREFIX + candidate.key
    text = readable_fact(candidate.text)
    entry = MemoryEntry(
        id=fact_key(text),
        author=author,
        timestamp=when.isoformat(),
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        custom_metadata=entry_meta,
    )
    call_meta: dict[str, Any] = {}
    if candidate.key:
        call_meta["subject"] = candidate.key
    if candidate.ttl_seconds is not None:
        call_meta["ttl_seconds"] = candidate.ttl_seconds
    if candidate.importance is not None:
        call_meta["importance"] = candidate.importance
    if candidate.valid_from is not None:
        call_meta["valid_from"] = candidate.valid_from
    return entry, call_meta
