"""The console's only door to the kit's stores: public kit APIs, feature-detected.

Everything the web pages show or change goes through :class:`ConsoleData`. It calls the
public APIs of :class:`~adk_memory_kit.memory.PgVectorMemoryService`,
:class:`~adk_memory_kit.routing.ReviewQueue`, ADK's session service and
:mod:`adk_memory_kit.lifecycle` (``data_map``, ``forget_user``, ``pending_forgets``), and
never runs SQL of its own. Every per-user call names the app and the user taken from the
URL, so the kit's own ``app_name``/``user_id`` filters scope it.

APIs that later kit versions add are detected by name (see :class:`Features`); a page whose
API is missing says "not available in this version" instead of showing anything made up:

* ``custom_metadata["scores"]`` on search results (dense, bm25, exact, fused score parts);
* ``PgVectorMemoryService.search(..., types=, tags=)`` (type and tag filters);
* ``PgVectorMemoryService.correct_memory(app_name=, user_id=, memory_id=, new_text=, reason=)``;
* ``PgVectorMemoryService.pin_memory(app_name=, user_id=, memory_id=, reason=[, pinned=])``;
* ``PgVectorMemoryService.list_apps()``;
* ``adk_memory_kit.lifecycle.forget_history(app_name=, user_id=, ...)`` (the forget log);
* ``adk_memory_kit.EpisodicLog`` with ``trace(...)`` and ``cost_summary(...)``.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any

from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions.base_session_service import BaseSessionService

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.service import PgVectorMemoryService
from adk_memory_kit.routing.review_queue import STATUSES, ReviewItem, ReviewQueue

logger = logging.getLogger(__name__)

NOT_AVAILABLE = "not available in this version of adk-memory-kit"
_BIG = 10_000  # cap on listed rows per call (review items, users)


class NotFoundError(InvalidInputError):
    """The item is not in the app and user named by the URL."""


@dataclass(frozen=True)
class Features:
    """Which optional kit APIs this installation has (the pages adapt to them)."""

    search_filters: bool
    correct: bool
    pin: bool
    list_apps: bool
    forget_history: bool
    episodic: bool

    def as_dict(self) -> dict[str, bool]:
        return dict(self.__dict__)


@dataclass
class MemoryView:
    """One memory item as the console shows it (every field from the kit's search result)."""

    id: str
    text: str
    author: str | None
    kind: str | None
    memory_type: str | None
    tags: list[str]
    subject: str | None
    event_time: str | None
    recorded_at: str | None
    valid_from: str | None
    valid_to: str | None
    expires_at: str | None
    importance: float | None
    last_used_at: str | None
    use_count: int | None
    pinned: bool | None
    session_id: str | None
    score: float | None
    scores: dict[str, float] | None

    @property
    def superseded(self) -> bool:
        return self.valid_to is not None

    @classmethod
    def from_entry(cls, entry: MemoryEntry) -> MemoryView:
        meta = dict(entry.custom_metadata or {})
        text = "".join(p.text or "" for p in (entry.content.parts or []) if p.text)
        raw_scores = meta.get("scores")
        scores = None
        if isinstance(raw_scores, Mapping):
            scores = {str(k): float(v) for k, v in raw_scores.items() if _is_number(v)}
        tags = meta.get("tags")
        return cls(
            id=str(entry.id),
            text=text,
            author=entry.author,
            kind=_str(meta.get("kind")),
            memory_type=_str(meta.get("memory_type")),
            tags=[str(t) for t in tags] if isinstance(tags, list | tuple) else [],
            subject=_str(meta.get("subject")),
            event_time=entry.timestamp,
            recorded_at=_str(meta.get("recorded_at") or meta.get("ingested_at")),
            valid_from=_str(meta.get("valid_from")),
            valid_to=_str(meta.get("superseded_at") or meta.get("valid_to")),
            expires_at=_str(meta.get("expires_at")),
            importance=float(meta["importance"]) if _is_number(meta.get("importance")) else None,
            last_used_at=_str(meta.get("last_accessed_at")),
            use_count=int(meta["access_count"]) if _is_number(meta.get("access_count")) else None,
            pinned=bool(meta["pinned"]) if "pinned" in meta else None,
            session_id=_str(meta.get("session_id")) or None,
            score=float(meta["score"]) if _is_number(meta.get("score")) else None,
            scores=scores,
        )

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "superseded": self.superseded}


@dataclass
class UserRow:
    """One user of an app with the counts the overview shows."""

    user_id: str
    memories: dict[str, int] = field(default_factory=dict)
    review_items: int = 0
    pending_reviews: int = 0
    sessions: int = 0
    last_activity: datetime | None = None
    being_forgotten: bool = False

    @property
    def memory_total(self) -> int:
        return sum(self.memories.values())

    def as_dict(self) -> dict[str, Any]:
        return {
            **self.__dict__,
            "memory_total": self.memory_total,
            "last_activity": _iso(self.last_activity),
        }


@dataclass
class AppRow:
    """One app with totals over its users."""

    app_name: str
    users: int
    memories: int
    pending_reviews: int
    sessions: int
    last_activity: datetime | None

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "last_activity": _iso(self.last_activity)}


@dataclass
class SessionRow:
    session_id: str
    last_update: datetime | None


@dataclass
class EventRow:
    """One event of a session as ADK's session service returns it."""

    time: datetime | None
    author: str | None
    text: str
    calls: list[str]
    responses: list[str]
    state_keys: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "time": _iso(self.time)}


@dataclass
class TraceEntry:
    """One row of the episodic log's ``trace`` (fields named by the episodic-log issue)."""

    kind: str
    agent: str | None
    name: str | None
    input_tokens: int | None
    output_tokens: int | None
    cost_usd: float | None
    time: str | None
    detail: str | None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class CostReport:
    """Cost per day, app (the one asked for), model, agent and user, for the charts."""

    app_name: str
    days: list[dict[str, Any]]
    by: dict[str, list[dict[str, Any]]]
    total_cost_usd: float | None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _str(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return _iso(value)
    return str(value)


def _iso(value: datetime | None) -> str | None:
    return value.astimezone(timezone.utc).isoformat() if value is not None else None


def _field(record: Any, *names: str) -> Any:
    """The first present field of a dict-like or attribute-bearing record."""
    for name in names:
        if isinstance(record, Mapping):
            if name in record:
                return record[name]
        elif hasattr(record, name):
            return getattr(record, name)
    return None


def _accepts(func: Any, name: str) -> bool:
    try:
        return name in inspect.signature(func).parameters
    except (TypeError, ValueError):
        return False


class ConsoleData:
    """Adapter over the kit's public APIs; one per console app (lazily connected).

    Args:
        db_url: the kit's database (``None``: ``ADK_MEMORY_KIT_DB_URL`` or the embedded
            server). Sessions are read with ADK's ``DatabaseSessionService`` on it unless
            ``session_service`` is given.
        memory_service / session_service / review_queue / episodic_log: existing services to
            share (e.g. when the console is mounted in the agent's own server).
        apps: app names to list even when no kit API can enumerate apps.
        embedder: the embedder of the memory service the adapter opens (default: MiniLM).
    """

    def __init__(
        self,
        db_url: str | None = None,
        *,
        memory_service: PgVectorMemoryService | None = None,
        session_service: BaseSessionService | None = None,
        review_queue: ReviewQueue | None = None,
        episodic_log: Any = None,
        apps: Sequence[str] = (),
        embedder: Any = None,
    ) -> None:
        self._db_url = db_url
        self._embedder = embedder
        self._memory = memory_service
        self._sessions = session_service
        self._queue = review_queue
        self._log = episodic_log
        self._owned: list[Any] = []
        self._apps = [a for a in apps if a]
        self._lock = asyncio.Lock()
        self._started = False

    # ------------------------------------------------------------------ plumbing
    async def start(self) -> None:
        """Create the services not given (starts the embedded server if needed)."""
        if self._started:
            return
        async with self._lock:
            if self._started:
                return
            url = self._db_url
            if self._memory is None or self._sessions is None:
                from adk_memory_kit.db.engine import resolve_db_url

                url = await asyncio.to_thread(resolve_db_url, self._db_url)
            if self._memory is None:
                self._memory = PgVectorMemoryService(url, embedder=self._embedder)
                self._owned.append(self._memory)
            if self._sessions is None:
                from google.adk.sessions.database_session_service import DatabaseSessionService

                self._sessions = DatabaseSessionService(db_url=url)
                self._owned.append(self._sessions)
            if self._queue is None:
                self._queue = ReviewQueue(engine=self._memory.engine)
                self._owned.append(self._queue)
            if self._log is None:
                import adk_memory_kit

                log_cls = getattr(adk_memory_kit, "EpisodicLog", None)
                if log_cls is not None:
                    try:
                        self._log = log_cls(db_url=url)
                    except Exception:  # an optional view must not stop the console
                        logger.warning(
                            "episodic log unavailable: traces and costs are off", exc_info=True
                        )
                    else:
                        self._owned.append(self._log)
            self._started = True

    async def close(self) -> None:
        """Close the services this adapter created (shared ones are left open)."""
        for service in reversed(self._owned):
            close = getattr(service, "close", None)
            if close is not None:
                result = close()
                if inspect.isawaitable(result):
                    await result
        self._owned.clear()
        self._started = False

    @property
    def memory(self) -> PgVectorMemoryService:
        assert self._memory is not None, "call start() first"
        return self._memory

    @property
    def sessions(self) -> BaseSessionService:
        assert self._sessions is not None, "call start() first"
        return self._sessions

    @property
    def queue(self) -> ReviewQueue:
        assert self._queue is not None, "call start() first"
        return self._queue

    @property
    def features(self) -> Features:
        from adk_memory_kit import lifecycle

        memory = self._memory
        log = self._log
        return Features(
            search_filters=callable(getattr(memory, "search", None)),
            correct=callable(getattr(memory, "correct_memory", None)),
            pin=callable(getattr(memory, "pin_memory", None)),
            list_apps=callable(getattr(memory, "list_apps", None)),
            forget_history=callable(getattr(lifecycle, "forget_history", None)),
            episodic=log is not None
            and callable(getattr(log, "trace", None))
            and callable(getattr(log, "cost_summary", None)),
        )

    # ------------------------------------------------------------------ apps and users
    async def app_names(self) -> list[str]:
        """Apps from ``list_apps`` (when the kit has it), the configured ones, and the apps
        that have review items or forgets pending."""
        names = set(self._apps)
        if self.features.list_apps:
            names.update(await self.memory.list_apps())  # type: ignore[attr-defined]
        for item in await self.queue.list(status="pending", limit=_BIG):
            names.add(item.app_name)
        names.update(p.app_name for p in await self.pending_forgets())
        return sorted(names)

    async def users(self, app_name: str) -> list[UserRow]:
        """Every user with memories, sessions, review items or a pending forget in the app."""
        if not app_name or not app_name.strip():
            raise InvalidInputError("app_name must be a non-empty string")
        memory_users = await self.memory.list_users(app_name)
        listed = await self.sessions.list_sessions(app_name=app_name, user_id=None)
        items = await self.queue.list(app_name=app_name, status=None, limit=_BIG)
        pending = {p.user_id for p in await self.pending_forgets(app_name)}
        rows: dict[str, UserRow] = {u: UserRow(u) for u in memory_users}
        for session in listed.sessions:
            row = rows.setdefault(session.user_id, UserRow(session.user_id))
            row.sessions += 1
            row.last_activity = _later(row.last_activity, _from_ts(session.last_update_time))
        for item in items:
            row = rows.setdefault(item.user_id, UserRow(item.user_id))
            row.review_items += 1
            row.pending_reviews += item.status == "pending"
            row.last_activity = _later(row.last_activity, item.created_at)
        for user in pending:
            rows.setdefault(user, UserRow(user)).being_forgotten = True
        for row in rows.values():
            row.memories = await self.memory.count_memories(app_name=app_name, user_id=row.user_id)
        return sorted(rows.values(), key=lambda r: r.user_id)

    async def apps(self) -> list[AppRow]:
        """Totals per app (users, memories, pending reviews, sessions, last activity)."""
        out = []
        for name in await self.app_names():
            users = await self.users(name)
            out.append(
                AppRow(
                    app_name=name,
                    users=len(users),
                    memories=sum(u.memory_total for u in users),
                    pending_reviews=sum(u.pending_reviews for u in users),
                    sessions=sum(u.sessions for u in users),
                    last_activity=max(
                        (u.last_activity for u in users if u.last_activity), default=None
                    ),
                )
            )
        return out

    async def user_sessions(self, app_name: str, user_id: str) -> list[SessionRow]:
        """The user's sessions, most recent first."""
        listed = await self.sessions.list_sessions(app_name=app_name, user_id=user_id)
        rows = [
            SessionRow(s.id, _from_ts(s.last_update_time))
            for s in listed.sessions
            if s.user_id == user_id
        ]
        return sorted(rows, key=lambda r: r.last_update or _EPOCH, reverse=True)

    async def session_events(
        self, app_name: str, user_id: str, session_id: str, *, limit: int = 500
    ) -> list[EventRow] | None:
        """The session's latest ``limit`` events (``None``: no such session of this user)."""
        from google.adk.sessions.base_session_service import GetSessionConfig

        session = await self.sessions.get_session(
            app_name=app_name,
            user_id=user_id,
            session_id=session_id,
            config=GetSessionConfig(num_recent_events=limit),
        )
        if session is None or session.user_id != user_id or session.app_name != app_name:
            return None
        rows = []
        for event in session.events:
            parts = (event.content.parts or []) if event.content else []
            delta = event.actions.state_delta if event.actions else None
            rows.append(
                EventRow(
                    time=_from_ts(event.timestamp),
                    author=event.author,
                    text="".join(p.text or "" for p in parts if p.text and not p.thought),
                    calls=[p.function_call.name or "?" for p in parts if p.function_call],
                    responses=[
                        p.function_response.name or "?" for p in parts if p.function_response
                    ],
                    state_keys=sorted(delta or {}),
                )
            )
        return rows

    # ------------------------------------------------------------------ memory
    async def count_memories(self, app_name: str, user_id: str) -> dict[str, int]:
        return await self.memory.count_memories(app_name=app_name, user_id=user_id)

    async def search(
        self,
        app_name: str,
        user_id: str,
        query: str,
        *,
        limit: int = 20,
        types: Sequence[str] = (),
        tags: Sequence[str] = (),
    ) -> list[MemoryView]:
        """Hybrid search in the user's memory; type/tag filters need the kit's ``search``."""
        if (types or tags) and not self.features.search_filters:
            raise InvalidInputError(f"type and tag filters are {NOT_AVAILABLE}")
        if types or tags:
            result = await self.memory.search(  # type: ignore[attr-defined]
                app_name=app_name,
                user_id=user_id,
                query=query,
                types=list(types) or None,
                tags=list(tags) or None,
                limit=limit,
            )
        else:
            result = await self.memory.search_memory(
                app_name=app_name, user_id=user_id, query=query, limit=limit
            )
        return [MemoryView.from_entry(e) for e in result.memories]

    async def delete_memory(self, app_name: str, user_id: str, memory_id: str) -> None:
        """Delete one item of this user; :class:`NotFoundError` if the user has no such item.

        The kit's ``delete_memory`` is scoped by app and user in its SQL and returns nothing;
        the user's count before and after tells whether the item was theirs.
        """
        before = sum((await self.count_memories(app_name, user_id)).values())
        await self.memory.delete_memory(app_name=app_name, user_id=user_id, memory_id=memory_id)
        after = sum((await self.count_memories(app_name, user_id)).values())
        if after >= before:
            raise NotFoundError(f"no memory {memory_id} for this user in this app")

    async def correct_memory(
        self, app_name: str, user_id: str, memory_id: str, new_text: str, reason: str, by: str
    ) -> Any:
        """The kit's ``correct_memory`` (the old item is superseded, the new one current)."""
        func = getattr(self.memory, "correct_memory", None)
        if func is None:
            raise InvalidInputError(f"correcting a memory is {NOT_AVAILABLE}")
        kwargs: dict[str, Any] = {
            "app_name": app_name,
            "user_id": user_id,
            "memory_id": memory_id,
            "new_text": new_text,
            "reason": reason,
        }
        if _accepts(func, "by"):
            kwargs["by"] = by
        return await func(**kwargs)

    async def pin_memory(
        self, app_name: str, user_id: str, memory_id: str, reason: str, pinned: bool = True
    ) -> Any:
        """The kit's ``pin_memory`` (a pinned item is never decayed)."""
        func = getattr(self.memory, "pin_memory", None)
        if func is None:
            raise InvalidInputError(f"pinning a memory is {NOT_AVAILABLE}")
        kwargs: dict[str, Any] = {
            "app_name": app_name,
            "user_id": user_id,
            "memory_id": memory_id,
            "reason": reason,
        }
        if _accepts(func, "pinned"):
            kwargs["pinned"] = pinned
        elif not pinned:
            raise InvalidInputError(f"unpinning a memory is {NOT_AVAILABLE}")
        return await func(**kwargs)

    # ------------------------------------------------------------------ review queue
    async def review_items(
        self,
        *,
        app_name: str | None = None,
        user_id: str | None = None,
        status: str | None = "pending",
        limit: int = 200,
    ) -> list[ReviewItem]:
        if status is not None and status not in STATUSES:
            raise InvalidInputError(f"status must be one of {', '.join(STATUSES)} or all")
        return await self.queue.list(app_name=app_name, user_id=user_id, status=status, limit=limit)

    async def decide(
        self,
        app_name: str,
        user_id: str,
        item_id: int,
        decision: str,
        *,
        by: str,
        note: str | None,
    ) -> ReviewItem:
        """Approve or reject an item of this app and user (:class:`NotFoundError` otherwise)."""
        if decision not in ("approve", "reject"):
            raise InvalidInputError("decision must be approve or reject")
        owned = await self.queue.list(app_name=app_name, user_id=user_id, status=None, limit=_BIG)
        if not any(item.id == item_id for item in owned):
            raise NotFoundError(f"no review item {item_id} for this user in this app")
        act = self.queue.approve if decision == "approve" else self.queue.reject
        return await act(item_id, by=by, note=note or None, app_name=app_name)

    # ------------------------------------------------------------------ forget
    def _homes(self) -> list[Any]:
        return [self.queue.data_home()]

    async def data_map(self, app_name: str, user_id: str) -> Any:
        """Every home of the user's data with its count (read-only: the dry run)."""
        from adk_memory_kit.lifecycle import data_map

        return await data_map(
            app_name,
            user_id,
            session_service=self.sessions,
            memory_service=self.memory,
            extra_homes=self._homes(),
        )

    async def forget(self, app_name: str, user_id: str) -> Any:
        """``forget_user`` with the review queue as an extra home; returns its report."""
        from adk_memory_kit.lifecycle import forget_user

        return await forget_user(
            app_name,
            user_id,
            session_service=self.sessions,
            memory_service=self.memory,
            extra_homes=self._homes(),
        )

    async def pending_forgets(self, app_name: str | None = None) -> list[Any]:
        from adk_memory_kit.lifecycle import pending_forgets

        return await pending_forgets(app_name, memory_service=self.memory)

    async def forget_history(self, app_name: str, user_id: str | None = None) -> list[Any] | None:
        """The forget log's runs, if the kit exposes ``lifecycle.forget_history``; else None."""
        from adk_memory_kit import lifecycle

        func = getattr(lifecycle, "forget_history", None)
        if func is None:
            return None
        return list(await func(app_name=app_name, user_id=user_id, memory_service=self.memory))

    # ------------------------------------------------------------------ episodic log
    async def trace(self, app_name: str, user_id: str, session_id: str) -> list[TraceEntry] | None:
        """The session's timeline from the episodic log; ``None`` without one."""
        if not self.features.episodic:
            return None
        entries = await self._log.trace(app_name, user_id, session_id)
        return [_trace_entry(e) for e in entries]

    async def costs(
        self, app_name: str, *, user_id: str | None = None, days: int = 14
    ) -> CostReport | None:
        """Costs of the last ``days`` days by day, model, agent and user; ``None`` without
        an episodic log.

        Per-day figures come from ``cost_summary(since=...)`` totals at each day boundary
        (the difference of two consecutive cumulative totals), so they need no API beyond the
        one the episodic-log issue names.
        """
        if not self.features.episodic:
            return None
        if not 1 <= days <= 366:
            raise InvalidInputError("days must be between 1 and 366")
        today = datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
        starts = [today - timedelta(days=d) for d in range(days - 1, -1, -1)]
        summary = await self._log.cost_summary(
            app_name, user_id=user_id, session_id=None, since=starts[0]
        )
        by = {dim: _group(summary, dim) for dim in ("model", "agent", "user_id", "session_id")}
        cumulative = []
        for start in starts:
            part = await self._log.cost_summary(
                app_name, user_id=user_id, session_id=None, since=start
            )
            cumulative.append(_total(part))
        daily = []
        for i, start in enumerate(starts):
            later = cumulative[i + 1] if i + 1 < len(cumulative) else {"cost_usd": 0.0, "calls": 0}
            daily.append(
                {
                    "day": date.isoformat(start.date()),
                    "cost_usd": round(cumulative[i]["cost_usd"] - later["cost_usd"], 6),
                    "calls": cumulative[i]["calls"] - later["calls"],
                }
            )
        return CostReport(app_name, daily, by, _total(summary)["cost_usd"])


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _from_ts(value: float | None) -> datetime | None:
    return datetime.fromtimestamp(value, tz=timezone.utc) if value else None


def _later(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)


def _trace_entry(entry: Any) -> TraceEntry:
    def num(*names: str) -> Any:
        value = _field(entry, *names)
        return value if _is_number(value) else None

    detail = _field(entry, "error", "detail", "summary")
    return TraceEntry(
        kind=str(_field(entry, "kind") or "?"),
        agent=_str(_field(entry, "agent")),
        name=_str(_field(entry, "name")),
        input_tokens=num("input_tokens"),
        output_tokens=num("output_tokens"),
        cost_usd=num("cost_usd"),
        time=_str(_field(entry, "time")),
        detail=_str(detail),
    )


def _records(summary: Any) -> list[Any]:
    """The per-group records of a ``cost_summary`` result (a list, or ``.rows``)."""
    rows = _field(summary, "rows")
    if rows is None and isinstance(summary, Iterable) and not isinstance(summary, Mapping | str):
        rows = summary
    return list(rows or [])


def _group(summary: Any, dim: str) -> list[dict[str, Any]]:
    """Cost and calls per value of ``dim``: from ``by_<dim>`` if the summary has it, else
    summed over its records that carry ``dim``."""
    grouped = _field(summary, f"by_{dim.removesuffix('_id')}", f"by_{dim}")
    totals: dict[str, dict[str, Any]] = {}
    if isinstance(grouped, Mapping):
        items = [(str(k), v) for k, v in grouped.items()]
    else:
        items = [(str(_field(r, dim)), r) for r in (grouped or _records(summary)) if _field(r, dim)]
    for key, record in items:
        row = totals.setdefault(key, {dim: key, "cost_usd": 0.0, "calls": 0, "tokens": 0})
        row["cost_usd"] += float(_field(record, "cost_usd") or 0.0)
        row["calls"] += int(_field(record, "calls") or 0)
        row["tokens"] += int(_field(record, "input_tokens") or 0) + int(
            _field(record, "output_tokens") or 0
        )
    return sorted(totals.values(), key=lambda r: r["cost_usd"], reverse=True)


def _total(summary: Any) -> dict[str, Any]:
    cost = _field(summary, "total_cost_usd", "cost_usd")
    calls = _field(summary, "total_calls", "calls")
    if not _is_number(cost):
        records = _records(summary)
        cost = sum(float(_field(r, "cost_usd") or 0.0) for r in records)
        calls = sum(int(_field(r, "calls") or 0) for r in records)
    return {"cost_usd": float(cost), "calls": int(calls or 0)}
