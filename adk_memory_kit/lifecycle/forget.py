"""Right to be forgotten: ``forget_user`` and the ``data_map`` audit.

Deletion order (each step is keyed by app and user only and is idempotent, so a retry
after a crash at any point finishes the job):

1. open a tombstone in ``adk_memory_kit_forget_log``. From here on the user is visibly
   "being forgotten" (``pending_forgets``, ``data_map``) until the last step, and the idle
   job leaves the user alone;
2. delete the idle job's watermarks (this waits for any in-flight ingestion of the user's
   sessions to commit, so none can land after step 4);
3. delete every session (the sources from which memory could be rebuilt);
4. delete every memory item (derived copies), then any extra registered data homes;
   steps 3-4 are verified and repeated once if a concurrent writer raced them;
5. delete the ``user:`` state;
6. delete watermarks again and close the tombstone with the report (the log keeps the app,
   the user id, the times and the counts: the deletion audit record).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from google.adk.memory.base_memory_service import BaseMemoryService
from google.adk.sessions.base_session_service import BaseSessionService
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.lifecycle._engine import resolve_engine
from adk_memory_kit.lifecycle.schema import FORGET_LOG
from adk_memory_kit.lifecycle.watermarks import WatermarkStore

UserStateDeleter = Callable[[str, str], Awaitable[list[str]]]


@dataclass(frozen=True)
class DataHome:
    """An extra place holding per-user data (e.g. a review queue table).

    ``count`` and ``delete`` take ``(app_name, user_id)`` and return a row count.
    Register one with :func:`register_data_home` so ``forget_user`` and ``data_map`` cover it.
    """

    name: str
    count: Callable[[str, str], Awaitable[int]]
    delete: Callable[[str, str], Awaitable[int]]


_DATA_HOMES: dict[str, DataHome] = {}


def register_data_home(home: DataHome) -> None:
    """Make ``forget_user`` and ``data_map`` cover ``home`` (replaces one of the same name)."""
    _DATA_HOMES[home.name] = home


def _homes(extra: Sequence[DataHome]) -> list[DataHome]:
    merged = dict(_DATA_HOMES)
    merged.update({h.name: h for h in extra})
    return list(merged.values())


@dataclass
class ForgetReport:
    """What ``forget_user`` deleted, where."""

    app_name: str
    user_id: str
    requested_at: datetime | None = None
    completed_at: datetime | None = None
    sessions_deleted: list[str] = field(default_factory=list)
    memory_items_deleted: int = 0
    user_state_keys_deleted: list[str] = field(default_factory=list)
    user_state: str = "deleted"  # or "unsupported" (left in place, see notes)
    watermarks_deleted: int = 0
    extra_deleted: dict[str, int] = field(default_factory=dict)
    verified: bool = False
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (also stored in the forget log)."""
        data = asdict(self)
        for key in ("requested_at", "completed_at"):
            if data[key] is not None:
                data[key] = data[key].isoformat()
        return data

    def summary(self) -> str:
        """One paragraph for the command line."""
        lines = [
            f"forgot {self.app_name}/{self.user_id}:",
            f"  sessions deleted:      {len(self.sessions_deleted)}",
            f"  memory items deleted:  {self.memory_items_deleted}",
            f"  user: state deleted:   {len(self.user_state_keys_deleted)} key(s)"
            + ("" if self.user_state == "deleted" else f" ({self.user_state})"),
            f"  idle watermarks:       {self.watermarks_deleted}",
        ]
        lines += [f"  {name}: {n}" for name, n in sorted(self.extra_deleted.items())]
        lines.append(f"  verified empty:        {self.verified}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def builtin_user_state_deleter(session_service: BaseSessionService) -> UserStateDeleter | None:
    """A deleter for ``user:`` state of ADK's own session services, else ``None``.

    ADK has no public API to delete user state. For ``DatabaseSessionService`` the row of
    its ``user_states`` table is deleted with SQL on the service's own engine; for
    ``InMemorySessionService`` the entry of its ``user_state`` map is removed. Other
    services (e.g. Vertex AI) need a ``user_state_deleter`` of your own.
    """
    from google.adk.sessions.database_session_service import DatabaseSessionService
    from google.adk.sessions.in_memory_session_service import InMemorySessionService

    if isinstance(session_service, DatabaseSessionService):
        svc = session_service

        async def _delete_db(app_name: str, user_id: str) -> list[str]:
            await svc.prepare_tables()
            keys = sorted(await svc.get_user_state(app_name=app_name, user_id=user_id))
            async with svc.db_engine.begin() as conn:
                await conn.execute(
                    text("DELETE FROM user_states WHERE app_name = :app AND user_id = :user"),
                    {"app": app_name, "user": user_id},
                )
            return keys

        return _delete_db
    if isinstance(session_service, InMemorySessionService):
        mem = session_service

        async def _delete_mem(app_name: str, user_id: str) -> list[str]:
            return sorted(mem.user_state.get(app_name, {}).pop(user_id, None) or {})

        return _delete_mem
    return None


async def _user_state_keys(session_service: BaseSessionService, app: str, user: str) -> list[str]:
    try:
        return sorted(await session_service.get_user_state(app_name=app, user_id=user))
    except NotImplementedError:
        return []


async def _session_ids(session_service: BaseSessionService, app: str, user: str) -> list[str]:
    listed = await session_service.list_sessions(app_name=app, user_id=user)
    return [s.id for s in listed.sessions if s.user_id == user]


def _check(app_name: str, user_id: str) -> None:
    for name, value in (("app_name", app_name), ("user_id", user_id)):
        if not isinstance(value, str) or not value.strip():
            raise InvalidInputError(f"{name} must be a non-empty string, got {value!r}")


async def forget_user(
    app_name: str,
    user_id: str,
    *,
    session_service: BaseSessionService,
    memory_service: BaseMemoryService,
    db_url: str | None = None,
    engine: AsyncEngine | None = None,
    user_state_deleter: UserStateDeleter | None = None,
    extra_homes: Sequence[DataHome] = (),
    allow_partial: bool = False,
) -> ForgetReport:
    """Delete everything ``user_id`` left in ``app_name``; see the module doc for the order.

    Stop serving the user first: a session the user is still chatting in can be recreated
    after its deletion. Raises :class:`InvalidInputError` before deleting anything if the
    memory service cannot delete a user's memories, or if the ``user:`` state cannot be
    deleted and ``allow_partial`` is false.
    """
    _check(app_name, user_id)
    delete_memories = getattr(memory_service, "delete_user_memories", None)
    if delete_memories is None:
        raise InvalidInputError(
            f"{type(memory_service).__name__} cannot delete a user's memories; forget_user "
            "needs a memory service with delete_user_memories (e.g. PgVectorMemoryService)"
        )
    deleter = user_state_deleter or builtin_user_state_deleter(session_service)
    if deleter is None and not allow_partial:
        raise InvalidInputError(
            f"cannot delete user: state held by {type(session_service).__name__}; pass "
            "user_state_deleter=async (app_name, user_id) -> deleted keys, or "
            "allow_partial=True to delete the rest and report the state as left in place"
        )
    eng, owned = await resolve_engine(
        engine=engine, db_url=db_url, memory_service=memory_service, session_service=session_service
    )
    try:
        store = WatermarkStore(eng)
        await store.ready()
        report = ForgetReport(app_name, user_id)
        report.requested_at = await _open_tombstone(eng, app_name, user_id)
        report.watermarks_deleted += await store.delete_user(app_name, user_id)
        homes = _homes(extra_homes)
        for _ in range(2):
            for sid in await _session_ids(session_service, app_name, user_id):
                await session_service.delete_session(
                    app_name=app_name, user_id=user_id, session_id=sid
                )
                report.sessions_deleted.append(sid)
            report.memory_items_deleted += await delete_memories(app_name=app_name, user_id=user_id)
            for home in homes:
                n = await home.delete(app_name, user_id)
                report.extra_deleted[home.name] = report.extra_deleted.get(home.name, 0) + n
            left = await _left_over(session_service, memory_service, homes, app_name, user_id)
            report.verified = not left
            if not left:
                break
            report.notes.append(f"a concurrent writer re-created {left}; deleted again")
        if deleter is None:
            report.user_state = "unsupported"
            report.user_state_keys_deleted = []
            keys = await _user_state_keys(session_service, app_name, user_id)
            report.notes.append(
                f"user: state ({len(keys)} key(s)) left in {type(session_service).__name__}: "
                "delete it with that service's own tools"
            )
        else:
            report.user_state_keys_deleted = await deleter(app_name, user_id)
        report.watermarks_deleted += await store.delete_user(app_name, user_id)
        report.completed_at = await _close_tombstone(eng, report)
        return report
    finally:
        if owned:
            await eng.dispose()


async def _left_over(
    session_service: BaseSessionService,
    memory_service: BaseMemoryService,
    homes: Sequence[DataHome],
    app: str,
    user: str,
) -> str:
    left = []
    if sessions := await _session_ids(session_service, app, user):
        left.append(f"{len(sessions)} session(s)")
    count = getattr(memory_service, "count_memories", None)
    if count is not None and (n := sum((await count(app_name=app, user_id=user)).values())):
        left.append(f"{n} memory item(s)")
    for home in homes:
        if n := await home.count(app, user):
            left.append(f"{n} {home.name} row(s)")
    return ", ".join(left)


async def _open_tombstone(engine: AsyncEngine, app: str, user: str) -> datetime:
    async with engine.begin() as conn:
        return await conn.scalar(
            text(
                f"INSERT INTO {FORGET_LOG} AS f (app_name, user_id) VALUES (:app, :user)"
                " ON CONFLICT (app_name, user_id) DO UPDATE SET"
                " requested_at = CASE WHEN f.completed_at IS NULL THEN f.requested_at"
                " ELSE now() END, completed_at = NULL, report = NULL"
                " RETURNING requested_at"
            ),
            {"app": app, "user": user},
        )


async def _close_tombstone(engine: AsyncEngine, report: ForgetReport) -> datetime:
    async with engine.begin() as conn:
        completed = await conn.scalar(text("SELECT now()"))
        report.completed_at = completed
        await conn.execute(
            text(
                f"UPDATE {FORGET_LOG} SET completed_at = :done, report = CAST(:r AS jsonb)"
                " WHERE app_name = :app AND user_id = :user"
            ),
            {
                "done": completed,
                "r": json.dumps(report.as_dict(), default=str),
                "app": report.app_name,
                "user": report.user_id,
            },
        )
        return completed


@dataclass(frozen=True)
class PendingForget:
    """A forget that was started and not finished (re-run ``forget_user`` to finish it)."""

    app_name: str
    user_id: str
    requested_at: datetime


async def pending_forgets(
    app_name: str | None = None,
    *,
    db_url: str | None = None,
    engine: AsyncEngine | None = None,
    memory_service: BaseMemoryService | None = None,
    session_service: BaseSessionService | None = None,
) -> list[PendingForget]:
    """Forgets still open in the forget log (a crash or error interrupted them)."""
    eng, owned = await resolve_engine(
        engine=engine, db_url=db_url, memory_service=memory_service, session_service=session_service
    )
    try:
        await WatermarkStore(eng).ready()
        async with eng.connect() as conn:
            rows = await conn.execute(
                text(
                    f"SELECT app_name, user_id, requested_at FROM {FORGET_LOG}"
                    " WHERE completed_at IS NULL AND (CAST(:app AS text) IS NULL"
                    " OR app_name = :app) ORDER BY requested_at"
                ),
                {"app": app_name},
            )
            return [PendingForget(r.app_name, r.user_id, r.requested_at) for r in rows]
    finally:
        if owned:
            await eng.dispose()


@dataclass
class DataLocation:
    """One place holding a user's data."""

    store: str
    kind: str
    count: int | None
    detail: Any = None


@dataclass
class DataMap:
    """Every place a user's data lives, for a deletion audit."""

    app_name: str
    user_id: str
    locations: list[DataLocation] = field(default_factory=list)
    not_covered: list[str] = field(default_factory=list)

    @property
    def holds_user_data(self) -> bool:
        """True if a location other than the deletion log holds something.

        A location whose count is unknown (``None``: the service cannot count) is not
        counted; check :attr:`not_covered` and those locations by hand.
        """
        return any(loc.count for loc in self.locations if loc.kind != "forget_log")

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form."""
        return json.loads(json.dumps(asdict(self), default=str))

    def summary(self) -> str:
        """A table for the command line."""
        lines = [f"data of {self.app_name}/{self.user_id}:"]
        for loc in self.locations:
            count = "?" if loc.count is None else loc.count
            detail = f"  {loc.detail}" if loc.detail else ""
            lines.append(f"  {loc.kind:<16} {count!s:>6}  {loc.store}{detail}")
        lines += [f"  not covered: {n}" for n in self.not_covered]
        return "\n".join(lines)


async def data_map(
    app_name: str,
    user_id: str,
    *,
    session_service: BaseSessionService,
    memory_service: BaseMemoryService,
    db_url: str | None = None,
    engine: AsyncEngine | None = None,
    extra_homes: Sequence[DataHome] = (),
) -> DataMap:
    """List every place ``user_id``'s data lives in ``app_name`` (read-only)."""
    _check(app_name, user_id)
    eng, owned = await resolve_engine(
        engine=engine, db_url=db_url, memory_service=memory_service, session_service=session_service
    )
    try:
        store = WatermarkStore(eng)
        await store.ready()
        result = DataMap(app_name, user_id)
        svc_name = type(session_service).__name__
        sessions: dict[str, int] = {}
        for sid in await _session_ids(session_service, app_name, user_id):
            session = await session_service.get_session(
                app_name=app_name, user_id=user_id, session_id=sid
            )
            if session is not None:
                sessions[sid] = len(session.events)
        result.locations.append(
            DataLocation(f"session service ({svc_name})", "sessions", len(sessions), sessions)
        )
        try:
            keys: list[str] | None = sorted(
                await session_service.get_user_state(app_name=app_name, user_id=user_id)
            )
        except NotImplementedError:
            keys = None
        result.locations.append(
            DataLocation(
                f"session service ({svc_name})",
                "user_state",
                None if keys is None else len(keys),
                keys,
            )
        )
        count = getattr(memory_service, "count_memories", None)
        mem_name = type(memory_service).__name__
        if count is not None:
            kinds = await count(app_name=app_name, user_id=user_id)
            result.locations.append(
                DataLocation(f"memory ({mem_name})", "memory_items", sum(kinds.values()), kinds)
            )
        else:
            result.locations.append(DataLocation(f"memory ({mem_name})", "memory_items", None))
            result.not_covered.append(f"{mem_name} cannot count a user's memories")
        result.locations.append(
            DataLocation(
                "postgres table adk_memory_kit_ingest_watermarks",
                "idle_watermarks",
                await store.count_user(app_name, user_id),
            )
        )
        for home in _homes(extra_homes):
            result.locations.append(
                DataLocation(home.name, home.name, await home.count(app_name, user_id))
            )
        async with eng.connect() as conn:
            row = (
                await conn.execute(
                    text(
                        f"SELECT requested_at, completed_at FROM {FORGET_LOG}"
                        " WHERE app_name = :app AND user_id = :user"
                    ),
                    {"app": app_name, "user": user_id},
                )
            ).first()
        result.locations.append(
            DataLocation(
                f"postgres table {FORGET_LOG} (deletion audit record)",
                "forget_log",
                0 if row is None else 1,
                None
                if row is None
                else ("pending" if row.completed_at is None else f"completed {row.completed_at}"),
            )
        )
        result.not_covered += [
            "artifacts (BaseArtifactService): delete them with the artifact service",
            "app: state is shared by all users and must not hold personal data",
            "application logs and database backups",
        ]
        return result
    finally:
        if owned:
            await eng.dispose()
