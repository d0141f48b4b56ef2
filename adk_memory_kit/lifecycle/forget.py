"""Right to be forgotten: ``forget_user`` and the ``data_map`` audit.

Deletion order (each step is keyed by app and user only and is idempotent, so a retry
after a crash at any point finishes the job):

1. open a tombstone: a new row of ``adk_memory_kit_forget_log`` for this run (its own
   ``forget_id``; earlier runs' rows are never overwritten). From here on the user is
   visibly "being forgotten" (``pending_forgets``, ``data_map``) until the last step, and
   the idle job leaves the user alone;
2. delete the idle job's watermarks (this waits for any in-flight ingestion of the user's
   sessions to commit, so none can land after step 4);
3. delete every session (the sources from which memory could be rebuilt);
4. delete the user's rows from every kit home found in the database catalog (tables marked
   ``COMMENT ON TABLE ... IS 'adk_memory_kit home: <name>'``: memory items and snapshots,
   the review queue, watermarks, and any home a later package adds), one transaction per
   home, the memory items through the memory service (under the user's write lock), then
   any extra data homes the caller passed; steps 3-4 are verified (sessions and every
   home counted) and repeated once if a concurrent writer raced them;
5. delete the ``user:`` state;
6. delete watermarks again and, only if step 4 verified that nothing is left, close the
   tombstone with the audit record (the app, the user id, the times and counts per home:
   no session ids, no ``user:`` key names, nothing else of the user), together with older
   open runs of the same user. If data was
   still left, the row stays open with status ``unverified`` and the report (a row a newer,
   verified run closed meanwhile keeps its ``superseded`` status), and if a step
   raised, with status ``failed`` and the error: either way ``pending_forgets`` lists the
   user, the idle job keeps leaving the user alone, and a re-run finishes the job.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from google.adk.memory.base_memory_service import BaseMemoryService
from google.adk.sessions.base_session_service import BaseSessionService
from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit import _adk_compat as adk_compat
from adk_memory_kit.core.contracts import UserMemoryEraser
from adk_memory_kit.core.data_home import DataHome
from adk_memory_kit.core.db_errors import db_errors, describe, translates_db_errors
from adk_memory_kit.core.scope import Scope
from adk_memory_kit.db import catalog, fence
from adk_memory_kit.db.catalog import KitHome
from adk_memory_kit.db.rls import operator_connect, protect_homes
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.lifecycle._engine import resolve_engine
from adk_memory_kit.lifecycle.watermarks import WatermarkStore
from adk_memory_kit.memory import forget_log
from adk_memory_kit.memory.forget_log import FORGET_LOG

logger = logging.getLogger(__name__)

# Steps 3-4 run at most this many times before the run is reported unverified.
DELETE_PASSES = 2

UserStateDeleter = Callable[[str, str], Awaitable[list[str]]]


MEMORY_HOME = "memory_items"
WATERMARK_HOME = "idle_watermarks"


def _homes(extra: Sequence[DataHome]) -> list[DataHome]:
    """The homes of ``extra`` by name (a later one replaces an earlier one of the same name).

    They are covered besides the kit homes the database catalog lists (a home passed that is
    also a kit home, e.g. ``ReviewQueue.data_home()``, simply finds nothing left).
    """
    return list({h.name: h for h in extra}.values())


async def _discover(engine: AsyncEngine) -> tuple[list[KitHome], list[str]]:
    """The kit homes of the database that can be forgotten by key, and notes on those that
    cannot (marked, but without ``app_name``/``user_id`` columns)."""
    await protect_homes(engine)  # row-level security on homes marked since the migrations
    async with engine.connect() as conn:
        found = await catalog.discover(conn)
    usable = [h for h in found if h.keyed]
    broken = [
        f"table {h.label} is marked as kit home {h.name!r} but lacks app_name/user_id columns"
        for h in found
        if not h.keyed
    ]
    return usable, broken


@dataclass
class ForgetReport:
    """What ``forget_user`` deleted, where."""

    app_name: str
    user_id: str
    forget_id: int | None = None  # this run's row in the forget log
    status: str = "running"  # then "completed"; "unverified" / "failed" leave it open
    requested_at: datetime | None = None
    completed_at: datetime | None = None  # None unless verified
    sessions_deleted: list[str] = field(default_factory=list)
    memory_items_deleted: int = 0
    user_state_keys_deleted: list[str] = field(default_factory=list)
    user_state: str = "deleted"  # or "unsupported" (left in place, see notes)
    watermarks_deleted: int = 0
    homes_deleted: dict[str, int] = field(default_factory=dict)  # kit homes, by home name
    extra_deleted: dict[str, int] = field(default_factory=dict)  # homes the caller passed
    verified: bool = False
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form of everything (for the caller; not what the log stores)."""
        data = asdict(self)
        for key in ("requested_at", "completed_at"):
            if data[key] is not None:
                data[key] = data[key].isoformat()
        return data

    def audit_record(self) -> dict[str, Any]:
        """What the forget log keeps: the app, the user id, the times and counts per home.

        No session ids, no ``user:`` key names, nothing the user wrote; the app and the user
        id are the row's own columns.
        """
        data = self.as_dict()
        del data["app_name"], data["user_id"]  # the row's own columns hold them
        data["sessions_deleted"] = len(self.sessions_deleted)
        data["user_state_keys_deleted"] = len(self.user_state_keys_deleted)
        return data

    def summary(self) -> str:
        """One paragraph for the command line."""
        head = (
            f"forgot {self.app_name}/{self.user_id}:"
            if self.status == "completed"
            else f"forget of {self.app_name}/{self.user_id} NOT finished ({self.status}):"
        )
        lines = [
            head,
            f"  sessions deleted:      {len(self.sessions_deleted)}",
            f"  memory items deleted:  {self.memory_items_deleted}",
            f"  user: state deleted:   {len(self.user_state_keys_deleted)} key(s)"
            + ("" if self.user_state == "deleted" else f" ({self.user_state})"),
            f"  idle watermarks:       {self.watermarks_deleted}",
        ]
        lines += [
            f"  {name + ':':<22} {n}"
            for name, n in sorted(self.homes_deleted.items())
            if name not in (MEMORY_HOME, WATERMARK_HOME)
        ]
        lines += [f"  {name}: {n}" for name, n in sorted(self.extra_deleted.items())]
        lines.append(f"  verified empty:        {self.verified}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def builtin_user_state_deleter(session_service: BaseSessionService) -> UserStateDeleter | None:
    """A deleter for ``user:`` state of ADK's own session services, else ``None``.

    ADK has no public API to delete user state. For ``DatabaseSessionService`` the row of
    its ``user_states`` table is deleted with SQL on the service's own engine, for
    ``SqliteSessionService`` on its own connection; for ``InMemorySessionService`` the
    entry of its ``user_state`` map is removed. Other
    services (e.g. Vertex AI) need a ``user_state_deleter`` of your own.
    """
    from google.adk.sessions.database_session_service import DatabaseSessionService
    from google.adk.sessions.in_memory_session_service import InMemorySessionService
    from google.adk.sessions.sqlite_session_service import SqliteSessionService

    if isinstance(session_service, DatabaseSessionService):
        svc = session_service

        async def _delete_db(app_name: str, user_id: str) -> list[str]:
            await svc.prepare_tables()
            keys = sorted(await svc.get_user_state(app_name=app_name, user_id=user_id))
            await adk_compat.delete_database_user_state(svc, app_name, user_id)
            return keys

        return _delete_db
    if isinstance(session_service, SqliteSessionService):
        lite = session_service
        if not adk_compat.can_open_sqlite(lite):
            return None

        async def _delete_sqlite(app_name: str, user_id: str) -> list[str]:
            keys = sorted(await lite.get_user_state(app_name=app_name, user_id=user_id))
            await adk_compat.delete_sqlite_user_state(lite, app_name, user_id)
            return keys

        return _delete_sqlite
    if isinstance(session_service, InMemorySessionService):
        mem = session_service

        async def _delete_mem(app_name: str, user_id: str) -> list[str]:
            return sorted(mem.user_state.get(app_name, {}).pop(user_id, {}))

        return _delete_mem
    return None


async def _user_state_keys(session_service: BaseSessionService, scope: Scope) -> list[str]:
    try:
        return sorted(
            await session_service.get_user_state(app_name=scope.app_name, user_id=scope.user_id)
        )
    except NotImplementedError:
        return []


async def _session_ids(session_service: BaseSessionService, scope: Scope) -> list[str]:
    listed = await session_service.list_sessions(app_name=scope.app_name, user_id=scope.user_id)
    return [s.id for s in listed.sessions if s.user_id == scope.user_id]


@translates_db_errors("forget_user")
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
    Scope(app_name, user_id)  # validates both before anything is deleted
    if not isinstance(memory_service, UserMemoryEraser):
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
    async with db_errors(f"forget_user for app {app_name!r}, user {user_id!r}"):
        eng, owned = await resolve_engine(
            engine=engine,
            db_url=db_url,
            memory_service=memory_service,
            session_service=session_service,
        )
        try:
            return await _forget(
                eng, app_name, user_id, session_service, memory_service, deleter, extra_homes
            )
        finally:
            if owned:
                await eng.dispose()


async def _forget(
    eng: AsyncEngine,
    app_name: str,
    user_id: str,
    session_service: BaseSessionService,
    memory_service: UserMemoryEraser,
    deleter: UserStateDeleter | None,
    extra_homes: Sequence[DataHome],
) -> ForgetReport:
    store = WatermarkStore(eng)
    await store.ready()
    report = ForgetReport(app_name, user_id)
    # the fence first: every kit write of the user in flight commits before it (and is
    # deleted below), every later one is refused until this forget completes
    _, waited = await fence.raise_fence(eng, app_name, user_id)
    if not waited:
        report.notes.append(
            "a write of the user was still in flight after "
            f"{fence.WAIT_FOR_WRITERS_S:g} s; the verification below covers it"
        )
    forget_id, report.requested_at = await _open_tombstone(eng, app_name, user_id)
    report.forget_id = forget_id
    try:
        found, broken = await _discover(eng)
        report.notes += broken
        await _delete_everything(
            report,
            eng,
            store,
            session_service,
            memory_service,
            deleter,
            found,
            _homes(extra_homes),
        )
        if report.verified:
            report.status = "completed"
            report.completed_at = await _close_tombstone(eng, report, forget_id)
        else:
            report.status = "unverified"
            await _keep_tombstone_open(eng, report, forget_id)
    except Exception as exc:
        await _mark_failed(eng, report, forget_id, exc)
        raise
    return report


async def _delete_everything(
    report: ForgetReport,
    engine: AsyncEngine,
    store: WatermarkStore,
    session_service: BaseSessionService,
    memory_service: UserMemoryEraser,
    deleter: UserStateDeleter | None,
    found: Sequence[KitHome],
    homes: Sequence[DataHome],
) -> None:
    """Steps 2-6 (before closing the tombstone); fills ``report``."""
    app_name, user_id = report.app_name, report.user_id
    scope = Scope(app_name, user_id)
    n = await store.delete_user(app_name, user_id)
    report.watermarks_deleted += n
    _add(report.homes_deleted, WATERMARK_HOME, n)
    for attempt in range(1, DELETE_PASSES + 1):
        for sid in await _session_ids(session_service, scope):
            await session_service.delete_session(app_name=app_name, user_id=user_id, session_id=sid)
            report.sessions_deleted.append(sid)
        # every kit home of the database, one transaction each; the memory items last,
        # through the memory service (under the user's write lock), then swept like the rest
        for home in sorted(found, key=lambda h: h.name == MEMORY_HOME):
            if home.name == MEMORY_HOME:
                n = await memory_service.delete_user_memories(app_name=app_name, user_id=user_id)
                report.memory_items_deleted += n
                _add(report.homes_deleted, MEMORY_HOME, n)
            async with engine.begin() as conn:
                n = await home.delete(conn, app_name, user_id)
            _add(report.homes_deleted, home.name, n)
            if home.name == MEMORY_HOME:
                report.memory_items_deleted += n
            elif home.name == WATERMARK_HOME:
                report.watermarks_deleted += n
        if MEMORY_HOME not in {h.name for h in found}:  # the memory service's own store
            n = await memory_service.delete_user_memories(app_name=app_name, user_id=user_id)
            report.memory_items_deleted += n
            _add(report.homes_deleted, MEMORY_HOME, n)
        for extra in homes:
            _add(report.extra_deleted, extra.name, await extra.delete(app_name, user_id))
        left = await _left_over(engine, session_service, found, homes, scope)
        report.verified = not left
        if not left:
            break
        if attempt < DELETE_PASSES:
            report.notes.append(
                f"{left} still present after deleting (a concurrent writer?); deleting again"
            )
        else:
            report.notes.append(
                f"NOT verified: {left} still present after {DELETE_PASSES} passes; the forget "
                "stays open (pending_forgets, forget --pending) until a re-run verifies it"
            )
    if deleter is None:
        report.user_state = "unsupported"
        report.user_state_keys_deleted = []
        keys = await _user_state_keys(session_service, scope)
        report.notes.append(
            f"user: state ({len(keys)} key(s)) left in {type(session_service).__name__}: "
            "delete it with that service's own tools"
        )
    else:
        report.user_state_keys_deleted = await deleter(app_name, user_id)
    n = await store.delete_user(app_name, user_id)
    report.watermarks_deleted += n
    _add(report.homes_deleted, WATERMARK_HOME, n)


def _add(counts: dict[str, int], name: str, n: int) -> None:
    counts[name] = counts.get(name, 0) + n


async def _left_over(
    engine: AsyncEngine,
    session_service: BaseSessionService,
    found: Sequence[KitHome],
    homes: Sequence[DataHome],
    scope: Scope,
) -> str:
    """What is still there: sessions, every kit home of the database, every extra home."""
    app, user = scope.app_name, scope.user_id
    left = []
    if sessions := await _session_ids(session_service, scope):
        left.append(f"{len(sessions)} session(s)")
    async with engine.connect() as conn:
        for home in found:
            if n := await home.count(conn, app, user):
                left.append(f"{n} {home.name} row(s)")
    for extra in homes:
        if n := await extra.count(app, user):
            left.append(f"{n} {extra.name} row(s)")
    return ", ".join(left)


async def _open_tombstone(engine: AsyncEngine, app: str, user: str) -> tuple[int, datetime]:
    async with engine.begin() as conn:
        return await forget_log.open_run(conn, app_name=app, user_id=user)


async def _close_tombstone(engine: AsyncEngine, report: ForgetReport, forget_id: int) -> datetime:
    """Close this run's row and every older open run of the user (now finished too)."""
    async with engine.begin() as conn:
        await fence.complete_fence(conn, report.app_name, report.user_id)
        report.completed_at = await forget_log.close_run(
            conn,
            app_name=report.app_name,
            user_id=report.user_id,
            forget_id=forget_id,
            report=report.audit_record(),
        )
        return report.completed_at


async def _keep_tombstone_open(engine: AsyncEngine, report: ForgetReport, forget_id: int) -> None:
    """Record the unverified outcome on this run's row; a closed row keeps its status.

    A newer run of the same user that verified while this one was still deleting has closed
    this row as 'superseded'. The row stays closed with that status (only an open row is
    marked 'unverified'); it still gets this run's report (what this run deleted), with a
    note saying which run closed it.
    """
    scope = {"app_name": report.app_name, "user_id": report.user_id}
    async with engine.begin() as conn:
        row = await forget_log.lock_run(conn, **scope, forget_id=forget_id)
        if row is not None and row.completed_at is not None:
            by = f" by run {row.finished_by}" if row.finished_by is not None else ""
            report.notes.append(
                f"this run's record was closed meanwhile{by} (status {row.status}): "
                "a newer run verified the deletion"
            )
        await forget_log.record_outcome(
            conn,
            **scope,
            forget_id=forget_id,
            status=report.status,
            report=report.audit_record(),
        )


async def _mark_failed(
    engine: AsyncEngine, report: ForgetReport, forget_id: int, exc: Exception
) -> None:
    """Best effort: record why the run stopped (the row stays open either way)."""
    report.status = "failed"
    report.completed_at = None
    try:
        async with engine.begin() as conn:
            await forget_log.mark_failed(
                conn,
                app_name=report.app_name,
                user_id=report.user_id,
                forget_id=forget_id,
                report={**report.audit_record(), "error": describe(exc)},
            )
    except Exception as failed:
        logger.warning(
            "could not record the failure of forget run %s: %s", forget_id, describe(failed)
        )


@dataclass(frozen=True)
class PendingForget:
    """A user whose forget is still open (re-run ``forget_user`` to finish it).

    ``requested_at`` is when the earliest still-open run started (the deletion request);
    ``forget_id``, ``status`` and ``detail`` describe the latest open run: ``"running"``
    (in progress, or interrupted without a trace, e.g. a crash), ``"failed"`` (a step
    raised; ``detail`` is the error) or ``"unverified"`` (data was still left; ``detail``
    says what). ``open_runs`` counts the open runs of the user.
    """

    app_name: str
    user_id: str
    requested_at: datetime
    forget_id: int | None = None
    status: str = "running"
    detail: str | None = None
    open_runs: int = 1


def _pending_detail(status: str, report: dict[str, Any] | None) -> str | None:
    if not report:
        return None
    if status == "failed" and report.get("error"):
        return str(report["error"])
    notes = report.get("notes") or []
    return str(notes[-1]) if notes else None


@translates_db_errors("pending_forgets")
async def pending_forgets(
    app_name: str | None = None,
    *,
    db_url: str | None = None,
    engine: AsyncEngine | None = None,
    memory_service: BaseMemoryService | None = None,
    session_service: BaseSessionService | None = None,
) -> list[PendingForget]:
    """Users whose forget is still open: interrupted, failed or unverified (one per user)."""
    async with db_errors("pending_forgets"):
        return await _pending_forgets(app_name, db_url, engine, memory_service, session_service)


async def _pending_forgets(
    app_name: str | None,
    db_url: str | None,
    engine: AsyncEngine | None,
    memory_service: BaseMemoryService | None,
    session_service: BaseSessionService | None,
) -> list[PendingForget]:
    eng, owned = await resolve_engine(
        engine=engine, db_url=db_url, memory_service=memory_service, session_service=session_service
    )
    try:
        await WatermarkStore(eng).ready()
        async with operator_connect(eng) as conn:  # across the app's users
            open_users = await forget_log.pending(conn, app_name)
        found = [
            PendingForget(
                u.app_name,
                u.user_id,
                u.first_requested_at,
                u.forget_id,
                u.status,
                _pending_detail(u.status, u.report),
                u.open_runs,
            )
            for u in open_users
        ]
        return sorted(found, key=lambda p: (p.requested_at, p.app_name, p.user_id))
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
        """A table for the command line (the name column is as wide as the longest name)."""
        lines = [f"data of {self.app_name}/{self.user_id}:"]
        width = max((len(loc.kind) for loc in self.locations), default=0)
        for loc in self.locations:
            count = "?" if loc.count is None else loc.count
            detail = f"  {loc.detail}" if loc.detail else ""
            lines.append(f"  {loc.kind:<{width}} {count!s:>6}  {loc.store}{detail}")
        lines += [f"  not covered: {n}" for n in self.not_covered]
        return "\n".join(lines)


@translates_db_errors("data_map")
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
    """List every place ``user_id``'s data lives in ``app_name`` (read-only).

    Lists the sessions and ``user:`` state (through the session service), every kit home
    found in the database catalog with its count (memory items and snapshots, the review
    queue, watermarks, and any home a later package adds), the extra homes passed, and the
    forget log; :attr:`DataMap.not_covered` says what the kit cannot see or delete.
    """
    scope = Scope(app_name, user_id)  # validates both
    async with db_errors(f"data_map for app {app_name!r}, user {user_id!r}"):
        eng, owned = await resolve_engine(
            engine=engine,
            db_url=db_url,
            memory_service=memory_service,
            session_service=session_service,
        )
        try:
            return await _data_map(eng, scope, session_service, memory_service, extra_homes)
        finally:
            if owned:
                await eng.dispose()


async def _data_map(
    eng: AsyncEngine,
    scope: Scope,
    session_service: BaseSessionService,
    memory_service: BaseMemoryService,
    extra_homes: Sequence[DataHome],
) -> DataMap:
    app_name, user_id = scope.app_name, scope.user_id
    store = WatermarkStore(eng)
    await store.ready()
    result = DataMap(app_name, user_id)
    svc_name = type(session_service).__name__
    sessions: dict[str, int] = {}
    for sid in await _session_ids(session_service, scope):
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
    mem_name = type(memory_service).__name__
    kinds = None
    if isinstance(memory_service, UserMemoryEraser):
        kinds = await memory_service.count_memories(app_name=app_name, user_id=user_id)
    else:
        result.not_covered.append(f"{mem_name} cannot count a user's memories")
    found, broken = await _discover(eng)
    result.not_covered += broken
    async with eng.connect() as conn:
        for home in found:
            count = await home.count(conn, app_name, user_id)
            detail = kinds if home.name == MEMORY_HOME else None
            result.locations.append(
                DataLocation(f"postgres table {home.label}", home.name, count, detail)
            )
    if kinds is not None and MEMORY_HOME not in {h.name for h in found}:
        # the memory service keeps its items elsewhere (another database)
        result.locations.append(
            DataLocation(f"memory ({mem_name})", MEMORY_HOME, sum(kinds.values()), kinds)
        )
    listed = {h.name for h in found}
    for extra in _homes(extra_homes):
        kind = f"{extra.name} (passed)" if extra.name in listed else extra.name
        result.locations.append(
            DataLocation(extra.name, kind, await extra.count(app_name, user_id))
        )
    async with eng.connect() as conn:
        row = await forget_log.user_summary(conn, app_name=app_name, user_id=user_id)
    log_detail: str | None = None
    if row.open_runs:
        log_detail = "pending"
    elif row.runs:
        log_detail = f"completed {row.last_completed}"
    result.locations.append(
        DataLocation(
            f"postgres table {FORGET_LOG} (deletion audit record, one row per run: the user "
            "id, times and counts only)",
            "forget_log",
            int(row.runs),
            log_detail,
        )
    )
    result.not_covered += [
        "artifacts (BaseArtifactService): delete them with the artifact service",
        "app: state is shared by all users and must not hold personal data",
        "application logs, external logs and database backups",
    ]
    return result


@translates_db_errors("lift_forget_fence")
async def lift_forget_fence(
    app_name: str,
    user_id: str,
    *,
    db_url: str | None = None,
    engine: AsyncEngine | None = None,
    memory_service: BaseMemoryService | None = None,
) -> bool:
    """Lift the forget fence of (app, user) so the kit accepts the user's writes again
    without finishing the forget (a failed or unverified forget keeps the fence raised;
    re-running ``forget_user`` until it completes lifts it too). Entries queued before the
    fence are discarded either way. Returns whether a fence was lifted.
    """
    Scope(app_name, user_id)
    eng, owned = await resolve_engine(
        engine=engine, db_url=db_url, memory_service=memory_service, session_service=None
    )
    try:
        lifted = await fence.lift_fence(eng, app_name, user_id)
    finally:
        if owned:
            await eng.dispose()
    if lifted:
        logger.info("forget fence lifted for one user of app %s", app_name)
    return lifted
