"""The console's only door to the kit's stores: the kit's public APIs, no SQL of its own.

Everything the web pages show or change goes through :class:`ConsoleData`. It calls
:class:`~adk_memory_kit.memory.PgVectorMemoryService` (``search`` with types, tags and
``as_of``; ``correct_memory``, ``pin_memory``, ``delete_memory``, ``count_memories``,
``list_users``), :class:`~adk_memory_kit.routing.ReviewQueue`, ADK's session service,
:mod:`adk_memory_kit.lifecycle` (``data_map``, ``forget_user``, ``pending_forgets``) and
:class:`~adk_memory_kit.EpisodicLog` (``trace``, ``first_failure``, ``cost_summary``).
Every per-user call names the app and the user taken from the URL, so the kit's own
``app_name``/``user_id`` filters scope it.

The episodic log is the one optional store: a console opened with ``episodic_log=False``,
or whose log could not be opened, says so on the trace and cost pages.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any

from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions.base_session_service import BaseSessionService

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.episodic import CostLine, CostSummary, EpisodicLog, LogEntry
from adk_memory_kit.errors import InvalidInputError, MemoryNotFoundError
from adk_memory_kit.routing.review_queue import STATUSES, ReviewItem, ReviewQueue

logger = logging.getLogger(__name__)

_BIG = 10_000  # cap on listed rows per call (review items, users)
_DETAIL_CHARS = 160  # a trace row's payload summary


class NotFoundError(MemoryNotFoundError):
    """The item is not in the app and user named by the URL (answered with 404)."""


@dataclass(frozen=True)
class Features:
    """What this console can show: ``episodic`` is false without an episodic log."""

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
    pinned: bool
    session_id: str | None
    score: float | None
    scores: dict[str, float | None]
    superseded_reason: str | None
    superseded_by: str | None
    corrects: str | None
    served: bool = True
    """In what the agent's search is served for the query (false: a superseded version,
    shown for the history only)."""

    @property
    def superseded(self) -> bool:
        return self.valid_to is not None

    @classmethod
    def from_entry(cls, entry: MemoryEntry) -> MemoryView:
        """From ``PgVectorMemoryService.search``'s ``MemoryEntry`` (its ``custom_metadata``
        keys: see ``memory/service.py``, ``entry_from_row`` in ``memory/entries.py``)."""
        meta = dict(entry.custom_metadata or {})
        text = "".join(p.text or "" for p in (entry.content.parts or []) if p.text)
        raw = meta.get("scores") or {}
        scores = {str(k): float(v) if _is_number(v) else None for k, v in raw.items()}
        return cls(
            id=str(entry.id),
            text=text,
            author=entry.author,
            kind=_str(meta.get("kind")),
            memory_type=_str(meta.get("memory_type")),
            tags=[str(t) for t in meta.get("tags") or []],
            subject=_str(meta.get("subject")),
            event_time=entry.timestamp,
            recorded_at=_str(meta.get("recorded_at") or meta.get("ingested_at")),
            valid_from=_str(meta.get("valid_from")),
            valid_to=_str(meta.get("superseded_at")),
            expires_at=_str(meta.get("expires_at")),
            importance=float(meta["importance"]) if _is_number(meta.get("importance")) else None,
            last_used_at=_str(meta.get("last_accessed_at")),
            use_count=int(meta.get("access_count") or 0),
            pinned=bool(meta.get("pinned")),
            session_id=_str(meta.get("session_id")) or None,
            score=float(meta["score"]) if _is_number(meta.get("score")) else None,
            scores=scores,
            superseded_reason=_str(meta.get("superseded_reason")),
            superseded_by=_str(meta.get("superseded_by")),
            corrects=_str(meta.get("corrects")),
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
    """One :class:`~adk_memory_kit.episodic.LogEntry` of a session's trace, for the timeline.

    ``offset_ms``: time since the session's first entry; ``detail``: a short summary of the
    (already redacted) payload; ``first_failure``: this is what ``first_failure`` returns.
    """

    seq: int
    invocation_id: str
    kind: str
    agent: str
    name: str
    time: str
    offset_ms: float
    input_tokens: int | None
    output_tokens: int | None
    tokens_estimated: bool
    cost_usd: float | None
    latency_ms: float | None
    error_type: str | None
    error_code: str | None
    failed: bool
    first_failure: bool
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Trace:
    """A session's trace: entries in ``seq`` order and totals."""

    entries: list[TraceEntry]
    first_failure_seq: int | None

    @property
    def cost_usd(self) -> float | None:
        costs = [e.cost_usd for e in self.entries if e.cost_usd is not None]
        return sum(costs) if costs else None

    @property
    def unpriced_calls(self) -> int:
        return sum(1 for e in self.entries if e.kind == "model_call" and e.cost_usd is None)

    @property
    def tokens(self) -> int:
        return sum((e.input_tokens or 0) + (e.output_tokens or 0) for e in self.entries)

    def as_dict(self) -> dict[str, Any]:
        return {
            "entries": self.entries,
            "first_failure_seq": self.first_failure_seq,
            "cost_usd": self.cost_usd,
            "unpriced_calls": self.unpriced_calls,
            "tokens": self.tokens,
        }


@dataclass
class CostReport:
    """Costs of one app (or of all apps) for the charts: per day (split by model or by app),
    and the ``CostSummary`` groups of the whole period."""

    app_name: str | None
    user_id: str | None
    days: list[dict[str, Any]]
    by: dict[str, list[dict[str, Any]]]
    total: dict[str, Any]
    series: list[str]  # the per-day split: model names, or app names for all apps

    @property
    def metric(self) -> str:
        """What the charts plot: ``usd``, or ``tokens`` when no call of the period has a price
        (an unknown price is never drawn as $0)."""
        return "usd" if self.total["cost_usd"] is not None else "tokens"

    @property
    def total_cost_usd(self) -> float | None:
        return self.total["cost_usd"]

    def as_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "total_cost_usd": self.total_cost_usd, "metric": self.metric}


def split_list(value: str) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]`` (the comma-separated query parameters)."""
    return [part.strip() for part in value.split(",") if part.strip()]


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


def _line(line: CostLine) -> dict[str, Any]:
    return {
        "key": line.key,
        "cost_usd": line.cost_usd,
        "model_calls": line.model_calls,
        "tool_calls": line.tool_calls,
        "input_tokens": line.input_tokens,
        "output_tokens": line.output_tokens,
        "estimated_calls": line.estimated_calls,
        "unpriced_calls": line.unpriced_calls,
    }


def _summary_groups(summary: CostSummary) -> dict[str, list[dict[str, Any]]]:
    return {
        "model": [_line(x) for x in summary.by_model],
        "agent": [_line(x) for x in summary.by_agent],
        "user": [_line(x) for x in summary.by_user],
        "session": [_line(x) for x in summary.by_session],
    }


def _add_lines(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    out = dict(a)
    for key, value in b.items():
        if key == "key":
            continue
        if key == "cost_usd":
            out[key] = None if a[key] is None and value is None else (a[key] or 0) + (value or 0)
        else:
            out[key] = a[key] + value
    return out


def _payload_summary(payload: Any) -> str:
    """A one-line summary of a (redacted) payload: text first, else function calls or
    args, else compact JSON; capped at ``_DETAIL_CHARS``."""
    if not isinstance(payload, Mapping) or not payload:
        return ""
    if payload.get("truncated"):
        head = str(payload.get("head") or "")
        return f"[truncated, {payload.get('size')} bytes] {head}"[:_DETAIL_CHARS]
    parts: list[str] = []
    if payload.get("text"):
        parts.append(str(payload["text"]))
    for call in payload.get("function_calls") or []:
        if isinstance(call, Mapping):
            args = json.dumps(call.get("args") or {}, ensure_ascii=False, default=str)
            parts.append(f"→ {call.get('name')}({args})")
    if "args" in payload:
        parts.append(json.dumps(payload["args"], ensure_ascii=False, default=str))
    if "result" in payload:
        parts.append("⇒ " + json.dumps(payload["result"], ensure_ascii=False, default=str))
    if "delta" in payload:
        parts.append("keys: " + ", ".join(sorted(str(k) for k in payload["delta"] or {})))
    if "to" in payload:
        parts.append(f"to {payload['to']}")
    if not parts:
        parts.append(json.dumps(payload, ensure_ascii=False, default=str))
    summary = " ".join(" ".join(parts).split())
    return summary if len(summary) <= _DETAIL_CHARS else summary[: _DETAIL_CHARS - 1] + "…"


def _trace_entry(entry: LogEntry, start: datetime, first_failure: int | None) -> TraceEntry:
    return TraceEntry(
        seq=entry.seq,
        invocation_id=entry.invocation_id,
        kind=entry.kind,
        agent=entry.agent,
        name=entry.name,
        time=entry.time.astimezone(timezone.utc).isoformat(),
        offset_ms=round((entry.time - start).total_seconds() * 1000.0, 1),
        input_tokens=entry.input_tokens,
        output_tokens=entry.output_tokens,
        tokens_estimated=entry.tokens_estimated,
        cost_usd=entry.cost_usd,
        latency_ms=entry.latency_ms,
        error_type=entry.error_type,
        error_code=entry.error_code,
        failed=entry.failed,
        first_failure=entry.seq == first_failure,
        detail=_payload_summary(entry.payload),
    )


#: What a reviewer may decide on a review item in the console.
DECISIONS = ("approve", "approve_app", "reject", "revoke")


class ConsoleData:
    """Adapter over the kit's public APIs; one per console app (lazily connected).

    Args:
        db_url: the kit's database (``None``: ``ADK_MEMORY_KIT_DB_URL`` or the embedded
            server). Sessions are read with ADK's ``DatabaseSessionService`` on it unless
            ``session_service`` is given.
        memory_service / session_service / review_queue / episodic_log: existing services to
            share (e.g. when the console is mounted in the agent's own server).
            ``episodic_log=False``: no traces and costs.
        apps: app names to list besides those found in the data.
        embedder: the embedder of the memory service the adapter opens (default: MiniLM).
    """

    def __init__(
        self,
        db_url: str | None = None,
        *,
        memory_service: PgVectorMemoryService | None = None,
        session_service: BaseSessionService | None = None,
        review_queue: ReviewQueue | None = None,
        episodic_log: EpisodicLog | bool | None = None,
        apps: Sequence[str] = (),
        embedder: Any = None,
    ) -> None:
        self._db_url = db_url
        self._embedder = embedder
        self._memory = memory_service
        self._sessions = session_service
        self._queue = review_queue
        self._want_log = episodic_log is not False
        self._log: EpisodicLog | None = (
            episodic_log if isinstance(episodic_log, EpisodicLog) else None
        )
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
            if self._memory is None:
                self._memory = PgVectorMemoryService(self._db_url, embedder=self._embedder)
                self._owned.append(self._memory)
            memory = self._memory
            engine = await asyncio.to_thread(lambda: memory.engine)  # may start the server
            if self._sessions is None:
                from google.adk.sessions.database_session_service import DatabaseSessionService

                from adk_memory_kit.db.engine import resolve_db_url

                url = await asyncio.to_thread(resolve_db_url, self._db_url)
                self._sessions = DatabaseSessionService(db_url=url)
                self._owned.append(self._sessions)
            if self._queue is None:
                self._queue = ReviewQueue(engine=engine)
                self._owned.append(self._queue)
            if self._log is None and self._want_log:
                self._log = EpisodicLog(engine=engine)
                self._owned.append(self._log)
            self._started = True

    async def close(self) -> None:
        """Close the services this adapter created (shared ones are left open)."""
        for service in reversed(self._owned):
            result = service.close()
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
    def log(self) -> EpisodicLog | None:
        """The episodic log (``None``: this console has none)."""
        return self._log

    @property
    def features(self) -> Features:
        return Features(episodic=self._log is not None)

    # ------------------------------------------------------------------ apps and users
    async def app_names(self) -> list[str]:
        """Every app found in the data (any kit home: memories, review items, the episodic
        log, forgets; and ADK's sessions), plus the configured ``apps``."""
        from adk_memory_kit.db.catalog import app_names
        from adk_memory_kit.db.rls import operator_connect

        await self.memory.ready()  # the memory tables exist before the catalog is read
        async with operator_connect(self.memory.engine) as conn:  # every app's rows
            found = await app_names(conn)
        return sorted(set(self._apps) | set(found))

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
        as_of: str | None = None,
    ) -> list[MemoryView]:
        """The kit's hybrid ``search`` with its filters (``types`` empty: every type but
        ``procedure``): first exactly what the agent's search is served for ``query`` (the
        same search, ranking and limit; ``served``), then the superseded versions that match
        it, flagged and not ``served``, so an operator also sees the history. With ``as_of``,
        one search of what was held true then. An operator's look is not recorded as a use
        (``record_access=False``), so it never keeps an item from decaying."""
        options: dict[str, Any] = {
            "app_name": app_name,
            "user_id": user_id,
            "query": query,
            "types": list(types) or None,
            "tags": list(tags) or None,
            "as_of": as_of or None,
            "limit": limit,
            "record_access": False,
        }
        served = [MemoryView.from_entry(e) for e in (await self.memory.search(**options)).memories]
        if as_of:
            return served
        ids = {v.id for v in served}
        history = await self.memory.search(**options, include_superseded=True)
        older = [MemoryView.from_entry(e) for e in history.memories if str(e.id) not in ids]
        for view in older:
            view.served = False
        return served + [v for v in older if v.superseded]

    async def delete_memory(self, app_name: str, user_id: str, memory_id: str) -> None:
        """Delete one item of this user; :class:`NotFoundError` if the user has no such item
        (the kit's ``delete_memory`` is scoped by app and user and returns the rows gone)."""
        deleted = await self.memory.delete_memory(
            app_name=app_name, user_id=user_id, memory_id=memory_id
        )
        if not deleted:
            raise NotFoundError("no such memory for this user in this app")

    async def correct_memory(
        self,
        app_name: str,
        user_id: str,
        memory_id: str,
        new_text: str | None,
        reason: str,
        by: str,
        **changes: Any,
    ) -> Any:
        """The kit's ``correct_memory``: the old item is superseded (kept, with ``reason`` and
        ``by``), the new one current from now; ``new_text`` ``None`` keeps the text and
        ``changes`` (``memory_type``, ``tags``, ``importance``) edit the rest. Another user's
        id: :class:`NotFoundError`."""
        try:
            return await self.memory.curator.correct_memory(
                app_name=app_name,
                user_id=user_id,
                memory_id=memory_id,
                new_text=new_text,
                reason=reason,
                by=by,
                **changes,
            )
        except MemoryNotFoundError as exc:
            raise NotFoundError("no such memory for this user in this app") from exc

    async def pin_memory(
        self, app_name: str, user_id: str, memory_id: str, reason: str, pinned: bool = True
    ) -> None:
        """The kit's ``pin_memory`` (a pinned item never decays); ``pinned=False`` unpins."""
        try:
            await self.memory.curator.pin_memory(
                app_name=app_name,
                user_id=user_id,
                memory_id=memory_id,
                reason=reason,
                pinned=pinned,
            )
        except MemoryNotFoundError as exc:
            raise NotFoundError("no such memory for this user in this app") from exc

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
        """Decide on an item of this app and user (:class:`NotFoundError` otherwise):
        ``approve`` (for its user), ``approve_app`` (for every user of the app), ``reject``,
        or ``revoke`` an approved one. An approved item reaches the agent through
        ``ApprovedInstructionsPlugin`` until it is revoked."""
        if decision not in DECISIONS:
            raise InvalidInputError(f"decision must be one of {', '.join(DECISIONS)}")
        owned = await self.queue.list(app_name=app_name, user_id=user_id, status=None, limit=_BIG)
        if not any(item.id == item_id for item in owned):
            raise NotFoundError(f"no review item {item_id} for this user in this app")
        if decision in ("approve", "approve_app"):
            whom = "app" if decision == "approve_app" else "user"
            return await self.queue.approve(
                item_id, by=by, note=note or None, app_name=app_name, applies_to=whom
            )
        act = self.queue.reject if decision == "reject" else self.queue.revoke
        return await act(item_id, by=by, note=note or None, app_name=app_name)

    # ------------------------------------------------------------------ forget
    async def data_map(self, app_name: str, user_id: str) -> Any:
        """Every home of the user's data with its count (read-only: the dry run). The kit
        homes (memory, review queue, episodic log, ...) come from the database catalog."""
        from adk_memory_kit.lifecycle import data_map

        return await data_map(
            app_name,
            user_id,
            session_service=self.sessions,
            memory_service=self.memory,
            engine=self.memory.engine,
        )

    async def forget(self, app_name: str, user_id: str) -> Any:
        """``forget_user`` (every kit home from the catalog, the episodic log included);
        returns its report."""
        from adk_memory_kit.lifecycle import forget_user

        return await forget_user(
            app_name,
            user_id,
            session_service=self.sessions,
            memory_service=self.memory,
            engine=self.memory.engine,
        )

    async def pending_forgets(self, app_name: str | None = None) -> list[Any]:
        from adk_memory_kit.lifecycle import pending_forgets

        return await pending_forgets(app_name, memory_service=self.memory)

    # ------------------------------------------------------------------ episodic log
    async def trace(self, app_name: str, user_id: str, session_id: str) -> Trace | None:
        """The session's timeline from the episodic log (``None``: no episodic log)."""
        if self._log is None:
            return None
        entries = await self._log.trace(app_name, user_id, session_id)
        failure = await self._log.first_failure(app_name, user_id, session_id)
        first = failure.seq if failure is not None else None
        start = entries[0].time if entries else datetime.now(timezone.utc)
        return Trace([_trace_entry(e, start, first) for e in entries], first)

    async def costs(
        self, app_name: str | None, *, user_id: str | None = None, days: int = 14
    ) -> CostReport | None:
        """Costs of the last ``days`` UTC days (today included) from ``cost_summary``: per
        day split by model, and by model, agent, user and session over the whole period.
        ``app_name=None``: every listed app, per day split by app (``None``: no episodic log).
        One ``cost_summary`` per app and day, plus one per app for the period.
        """
        if self._log is None:
            return None
        if isinstance(days, bool) or not 1 <= days <= 366:
            raise InvalidInputError("days must be between 1 and 366")
        if app_name is None and user_id is not None:
            raise InvalidInputError("user needs an app: user ids are per app")
        today = datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
        starts = [today - timedelta(days=d) for d in range(days - 1, -1, -1)]
        apps = [app_name] if app_name is not None else await self.app_names()
        zero = _line(CostLine(None, 0, 0, 0, 0, 0, None, 0))
        total = dict(zero)
        by: dict[str, list[dict[str, Any]]] = {"model": [], "agent": [], "user": [], "session": []}
        by_app: list[dict[str, Any]] = []
        daily = [
            {"day": date.isoformat(s.date()), **zero, "split": {}, "token_split": {}}
            for s in starts
        ]
        for app in apps:
            period = await self._log.cost_summary(app, user_id=user_id, since=starts[0])
            total = _add_lines(total, _line(period.total))
            by_app.append({**_line(period.total), "key": app})
            if app_name is not None:
                by = _summary_groups(period)
            if not period.total.model_calls and not period.total.tool_calls:
                continue
            for day, start in zip(daily, starts, strict=True):
                part = await self._log.cost_summary(
                    app, user_id=user_id, since=start, until=start + timedelta(days=1)
                )
                day.update(_add_lines(day, _line(part.total)), key=None)
                split = (
                    [(app, part.total)]
                    if app_name is None
                    else [(line.key, line) for line in part.by_model]
                )
                for key, line in split:
                    if line.cost_usd is not None:
                        day["split"][key] = day["split"].get(key, 0.0) + line.cost_usd
                    tokens = line.input_tokens + line.output_tokens
                    if tokens:  # the charts fall back to tokens where no price is known
                        day["token_split"][key] = day["token_split"].get(key, 0) + tokens
        if app_name is None:
            by = {"app": sorted(by_app, key=lambda r: (-(r["cost_usd"] or 0.0), r["key"]))}
        series = sorted({k for d in daily for k in (*d["split"], *d["token_split"])})
        for day in daily:
            del day["key"]
        return CostReport(app_name, user_id, daily, by, total, series)


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _from_ts(value: float | None) -> datetime | None:
    return datetime.fromtimestamp(value, tz=timezone.utc) if value else None


def _later(a: datetime | None, b: datetime | None) -> datetime | None:
    if a is None:
        return b
    if b is None:
        return a
    return max(a, b)
