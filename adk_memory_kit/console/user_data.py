"""What the console shows and changes about one user besides search: the memory list, a memory
added or edited by hand, the ``user:`` profile, a session's working memory, and the export.

Like :mod:`adk_memory_kit.console.data`, only the kit's public APIs: the memory list and export
from :mod:`adk_memory_kit.memory.browse`; a hand-written memory is classified by the routing
rule (:class:`~adk_memory_kit.routing.apply.MemoryApplier`: sensitive -> refused, a change to
the agent's behaviour or a ``procedure`` -> the review queue, anything else -> long-term
memory through ``add_memory``), so it is checked and stored like any other; an edit is
``correct_memory`` (the old version is kept, superseded).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from adk_memory_kit.console.data import ConsoleData, MemoryView
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.browse import MemoryPage, export_memories, list_memories
from adk_memory_kit.memory.hygiene import check_memory_type, check_tags
from adk_memory_kit.routing.apply import MemoryApplier, long_term_entry
from adk_memory_kit.routing.extractors import dated, looks_like_behaviour_change
from adk_memory_kit.routing.rule import Candidate, MemoryHome

USER_PREFIX = "user:"
EXPORT_FORMAT = "adk-memory-kit.user-export/1"


@dataclass
class ListedPage:
    """A page of the memory list, as :class:`MemoryView` items."""

    items: list[MemoryView]
    total: int
    offset: int
    limit: int

    @property
    def has_next(self) -> bool:
        return self.offset + len(self.items) < self.total

    @classmethod
    def from_page(cls, page: MemoryPage) -> ListedPage:
        return cls(
            [MemoryView.from_entry(e) for e in page.items], page.total, page.offset, page.limit
        )


@dataclass(frozen=True)
class AddOutcome:
    """Where a memory added by hand went: ``home`` (``long_term``, ``review`` or
    ``dropped``) and the stored id or review item id (never the text)."""

    home: str
    ref: str | None
    detail: str = ""


async def list_user_memories(
    data: ConsoleData,
    app_name: str,
    user_id: str,
    *,
    sort: str = "time",
    descending: bool = True,
    types: list[str] | None = None,
    tags: list[str] | None = None,
    contains: str = "",
    state: str = "current",
    offset: int = 0,
    limit: int = 25,
) -> ListedPage:
    """The user's memories without a query (unranked; a look is not a use)."""
    page = await list_memories(
        data.memory.store,
        app_name=app_name,
        user_id=user_id,
        sort=sort,
        descending=descending,
        types=types or None,
        tags=tags or None,
        contains=contains,
        state=state,
        offset=offset,
        limit=limit,
    )
    return ListedPage.from_page(page)


async def add_user_memory(
    data: ConsoleData,
    app_name: str,
    user_id: str,
    text: str,
    *,
    memory_type: str = "fact",
    tags: list[str] | None = None,
    importance: float = 0.5,
    by: str,
) -> AddOutcome:
    """Route ``text`` like the agent's own ``remember`` tool would, then store it there."""
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError("text must be non-empty")
    if len(text) > 4000:
        raise InvalidInputError("text must be at most 4000 characters")
    memory_type = check_memory_type(memory_type, "type")
    checked_tags = check_tags(tags) if tags else []
    if isinstance(importance, bool) or not 0.0 <= float(importance) <= 1.0:
        raise InvalidInputError("importance must be between 0 and 1")
    now = datetime.now(timezone.utc)
    candidate = dated(
        Candidate(
            text=text.strip(),
            about_user=True,
            needed_in_future_sessions=True,
            changes_agent_behaviour=memory_type == "procedure" or looks_like_behaviour_change(text),
            observed_at=now,
            importance=float(importance),
            memory_type=memory_type,
        )
    )
    candidate, home, kinds = MemoryApplier(review_queue=data.queue).classify(candidate)
    if home is MemoryHome.DROP:
        return AddOutcome("dropped", None, "sensitive: " + (", ".join(kinds) or "flagged"))
    if home is MemoryHome.PROCEDURAL_REVIEW:
        item = await data.queue.submit(
            app_name=app_name, user_id=user_id, text=candidate.text, source=f"console:{by}"
        )
        return AddOutcome("review", str(item.id))
    entry, meta = long_term_entry(candidate, when=now, author=by, source="console")
    if checked_tags:
        meta["tags"] = checked_tags
    report = await data.memory.add_memory(
        app_name=app_name, user_id=user_id, memories=[entry], custom_metadata=meta
    )
    outcome = report.outcomes[0] if report.outcomes else None
    if outcome is None or outcome.memory_id is None:
        reason = outcome.reason if outcome is not None else "not stored"
        return AddOutcome("rejected", None, reason or "not stored")
    return AddOutcome("long_term", outcome.memory_id, outcome.outcome)


async def edit_user_memory(
    data: ConsoleData,
    app_name: str,
    user_id: str,
    memory_id: str,
    *,
    memory_type: str,
    tags: list[str],
    importance: float,
    reason: str,
    by: str,
) -> Any:
    """A correction that changes the type, tags and importance and keeps the text; the old
    version stays, superseded with ``reason`` and ``by``."""
    return await data.correct_memory(
        app_name,
        user_id,
        memory_id,
        None,
        reason,
        by,
        memory_type=memory_type,
        tags=tags,
        importance=importance,
    )


async def user_profile(data: ConsoleData, app_name: str, user_id: str) -> dict[str, Any] | None:
    """The user's ``user:`` state (read from their latest session; ``None``: no session)."""
    sessions = await data.user_sessions(app_name, user_id)
    if not sessions:
        return None
    state = await session_state(data, app_name, user_id, sessions[0].session_id)
    return {k: v for k, v in sorted((state or {}).items()) if k.startswith(USER_PREFIX)}


async def session_state(
    data: ConsoleData, app_name: str, user_id: str, session_id: str
) -> dict[str, Any] | None:
    """A session's whole state as ADK's session service returns it (``None``: no session)."""
    from google.adk.sessions.base_session_service import GetSessionConfig

    session = await data.sessions.get_session(
        app_name=app_name,
        user_id=user_id,
        session_id=session_id,
        config=GetSessionConfig(num_recent_events=0),
    )
    if session is None or session.user_id != user_id or session.app_name != app_name:
        return None
    return dict(session.state)


def working_memory(state: dict[str, Any], key: str = "wm") -> dict[str, Any]:
    """The working-memory parts of a session's state: ``wm``, ``wm_view``, ``wm_last_task``."""
    return {k: state[k] for k in (key, f"{key}_view", f"{key}_last_task") if k in state}


async def export_user(data: ConsoleData, app_name: str, user_id: str) -> dict[str, Any]:
    """Everything the kit holds about the user in ``app_name``, as one JSON-ready document:
    memories (current, superseded and held), review items, sessions with their events and
    state, and the episodic log's entries. The data map's counts say where each came from."""
    from google.adk.sessions.base_session_service import GetSessionConfig

    memories = await export_memories(data.memory.store, app_name=app_name, user_id=user_id)
    reviews = await data.review_items(app_name=app_name, user_id=user_id, status=None, limit=10_000)
    sessions: list[dict[str, Any]] = []
    for row in await data.user_sessions(app_name, user_id):
        session = await data.sessions.get_session(
            app_name=app_name,
            user_id=user_id,
            session_id=row.session_id,
            config=GetSessionConfig(),
        )
        if session is not None:
            sessions.append(session.model_dump(mode="json", exclude_none=True))
    episodic = []
    log = data.log
    if log is not None:
        for exported in sessions:
            entries = await log.trace(app_name, user_id, exported["id"])
            episodic += [_entry_dict(e) for e in entries]
    data_map = await data.data_map(app_name, user_id)
    return {
        "format": EXPORT_FORMAT,
        "exported_at": datetime.now(timezone.utc).isoformat(),
        "app_name": app_name,
        "user_id": user_id,
        "locations": _counts(data_map),
        "profile": {
            k: v
            for k, v in sorted((sessions[0]["state"] if sessions else {}).items())
            if k.startswith(USER_PREFIX)
        },
        "memories": memories,
        "review_items": [_review_dict(i) for i in reviews],
        "sessions": sessions,
        "episodic_log": episodic if log is not None else None,
    }


def _counts(data_map: Any) -> list[dict[str, Any]]:
    return [
        {"store": loc.store, "kind": loc.kind, "count": loc.count}
        for loc in getattr(data_map, "locations", [])
    ]


def _review_dict(item: Any) -> dict[str, Any]:
    return {k: _plain(v) for k, v in vars(item).items()}


def _entry_dict(entry: Any) -> dict[str, Any]:
    return entry.model_dump(mode="json")


def _plain(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat()
    return value
