"""The forget fence: once a forget of (app, user) starts, no kit write for that user lands.

``forget_user`` raises the fence (one row of ``adk_memory_kit_forget_fence``) before it
deletes anything, in a transaction holding the user's fence lock exclusively: every kit
writer takes the same lock *shared* in its own write transaction and checks the fence there,
so a write either commits before the fence (and the forget deletes it) or sees the fence and
is refused. Nothing can land between the fence and the forget's verification.

* While the forget runs (``completed_at`` is null), every write for the user is refused with
  :class:`~adk_memory_kit.errors.UserBeingForgottenError`; writers that cannot refuse a
  caller (the episodic log's background writer, the batched access records) discard the
  user's entries and count them.
* When the forget completes (verified), the fence row is removed in the transaction that
  closes the forget log's run: new writes are accepted again, but entries created *before
  the forget completed* (queued in a writer's memory before or while it ran; the time is
  the forget log's ``completed_at`` of the user's latest completed run) are still
  discarded, never written after it, as a memory write made while it ran was refused. No
  row but the forget log keeps the user id.
* A forget that failed or was not verified keeps the fence raised. An application lifts it
  by re-running ``forget_user`` until it completes, or, to serve the user again without
  finishing the forget, with :func:`lift_fence` (``adk_memory_kit.lifecycle.lift_forget_fence``,
  ``adk-memory-kit forget --lift-fence``), which removes the row.
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.core.scope import operator_scope
from adk_memory_kit.db.rls import protect_tables
from adk_memory_kit.errors import UserBeingForgottenError

FENCE_TABLE = "adk_memory_kit_forget_fence"
#: The forget log (``adk_memory_kit.memory.forget_log.FORGET_LOG``, a higher layer; a test
#: checks the two names agree): its completed runs keep discarding entries created before.
FORGET_LOG_TABLE = "adk_memory_kit_forget_log"

_CREATE = text(
    f"""
    CREATE TABLE IF NOT EXISTS {FENCE_TABLE} (
        app_name text NOT NULL,
        user_id text NOT NULL,
        raised_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        completed_at timestamptz,
        PRIMARY KEY (app_name, user_id)
    )
    """
)
_CREATE_LOCK = text("SELECT pg_advisory_xact_lock(hashtextextended('adk_memory_kit_fence', 0))")
_LOCK = text("SELECT pg_advisory_xact_lock(hashtextextended(:k, 0))")
_LOCK_SHARED = text("SELECT pg_advisory_xact_lock_shared(hashtextextended(:k, 0))")
_READ = text(
    f"SELECT raised_at, completed_at FROM {FENCE_TABLE} WHERE app_name = :a AND user_id = :u"
)
_READ_MANY = text(
    f"SELECT app_name, user_id, raised_at, completed_at FROM {FENCE_TABLE} "
    "WHERE (app_name, user_id) IN (SELECT * FROM unnest(CAST(:apps AS text[]), "
    "CAST(:users AS text[])))"
)
_RAISE = text(
    f"INSERT INTO {FENCE_TABLE} (app_name, user_id) VALUES (:a, :u) "
    "ON CONFLICT (app_name, user_id) DO UPDATE SET raised_at = clock_timestamp(), "
    "completed_at = NULL RETURNING raised_at"
)
_COMPLETED_RUNS = text(
    f"SELECT app_name, user_id, max(requested_at) AS started, max(completed_at) AS completed"
    f" FROM {FORGET_LOG_TABLE} "
    "WHERE status = 'completed' AND (app_name, user_id) IN (SELECT * FROM "
    "unnest(CAST(:apps AS text[]), CAST(:users AS text[]))) GROUP BY app_name, user_id"
)
_LIFT = text(f"DELETE FROM {FENCE_TABLE} WHERE app_name = :a AND user_id = :u")

_ready: weakref.WeakSet[AsyncEngine] = weakref.WeakSet()


@dataclass(frozen=True)
class Fence:
    """A user's fence: raised at ``raised_at``; ``completed_at`` set once the forget verified
    (then it is the user's latest completed forget, read from the forget log)."""

    raised_at: datetime
    completed_at: datetime | None

    @property
    def active(self) -> bool:
        """The forget still runs (or failed / was not verified): every write is refused."""
        return self.completed_at is None

    def discards(self, created_at: datetime | None) -> bool:
        """Whether an entry created at ``created_at`` (``None``: unknown) must not be written:
        any entry while the forget runs, and after it completed every entry created before
        it completed (queued in a writer's memory while it ran, when a memory write of the
        user was refused)."""
        if self.completed_at is None or created_at is None:
            return True
        return created_at < self.completed_at


def _key(app: str, user: str) -> str:
    return json.dumps(["adk_memory_kit_fence", app, user])


async def ensure_table(conn: AsyncConnection) -> None:
    """Create the fence table if it is missing (checked once per engine). It is created on a
    connection of its own and committed at once, so a caller's transaction that rolls back
    cannot take it away."""
    engine = conn.engine
    if engine in _ready:
        return
    exists = await conn.scalar(text(f"SELECT to_regclass('{FENCE_TABLE}') IS NOT NULL"))
    if not exists:
        with operator_scope():
            async with engine.begin() as own:
                await own.execute(_CREATE_LOCK)  # concurrent first starts create it once
                await own.execute(_CREATE)
                await protect_tables(own)
    _ready.add(engine)


async def ensure_fence_table(engine: AsyncEngine) -> None:
    """Create the fence table on ``engine`` if it is missing."""
    async with engine.begin() as conn:
        await ensure_table(conn)


async def read_fence(conn: AsyncConnection, app: str, user: str) -> Fence | None:
    """The user's fence, or ``None``."""
    await ensure_table(conn)
    row = (await conn.execute(_READ, {"a": app, "u": user})).first()
    return None if row is None else Fence(row.raised_at, row.completed_at)


async def guard_write(conn: AsyncConnection, app: str, user: str) -> None:
    """Call inside a write transaction before writing for (app, user): takes the user's fence
    lock shared (a forget raising the fence waits for this transaction) and refuses the write
    while a forget of the user runs."""
    await ensure_table(conn)
    await conn.execute(_LOCK_SHARED, {"k": _key(app, user)})
    fence = await read_fence(conn, app, user)
    if fence is not None and fence.active:
        raise UserBeingForgottenError(
            "this user is being forgotten (forget_user started and has not completed): "
            "writes for the user are refused until it completes; see docs/lifecycle.md "
            "('The forget fence') to lift it"
        )


async def fences_of(
    conn: AsyncConnection, pairs: set[tuple[str, str]]
) -> dict[tuple[str, str], Fence]:
    """The fences of these (app, user) pairs, taking each pair's fence lock shared."""
    if not pairs:
        return {}
    await ensure_table(conn)
    ordered = sorted(pairs)
    for app, user in ordered:
        await conn.execute(_LOCK_SHARED, {"k": _key(app, user)})
    params = {"apps": [a for a, _ in ordered], "users": [u for _, u in ordered]}
    found: dict[tuple[str, str], Fence] = {}
    if await conn.scalar(text(f"SELECT to_regclass('{FORGET_LOG_TABLE}') IS NOT NULL")):
        for r in await conn.execute(_COMPLETED_RUNS, params):
            found[(r.app_name, r.user_id)] = Fence(r.started, r.completed)
    for r in await conn.execute(_READ_MANY, params):
        found[(r.app_name, r.user_id)] = Fence(r.raised_at, r.completed_at)  # active wins
    return found


#: How long ``raise_fence`` waits for kit writes of the user already in flight.
WAIT_FOR_WRITERS_S = 10.0


async def raise_fence(
    engine: AsyncEngine, app: str, user: str, *, wait_s: float = WAIT_FOR_WRITERS_S
) -> tuple[datetime, bool]:
    """Raise the user's fence: the row is committed first (every write that starts later is
    refused), then the user's fence lock is taken exclusively, which waits for the writes
    already in flight to commit (at most ``wait_s``). Returns ``(raised_at, waited)``;
    ``waited`` is false when a write was still in flight after ``wait_s`` (the forget's
    verification and its writers' re-check before commit still apply)."""
    from sqlalchemy.exc import DBAPIError

    async with engine.begin() as conn:
        await ensure_table(conn)
        raised = await conn.scalar(_RAISE, {"a": app, "u": user})
    async with engine.begin() as conn:
        await conn.execute(text(f"SET LOCAL lock_timeout = '{max(1, int(wait_s * 1000))}ms'"))
        try:
            async with conn.begin_nested():
                await conn.execute(_LOCK, {"k": _key(app, user)})
        except DBAPIError as exc:
            if getattr(exc.orig, "sqlstate", None) != "55P03":  # lock_not_available
                raise
            return raised, False
    return raised, True


async def complete_fence(conn: AsyncConnection, app: str, user: str) -> None:
    """Remove the fence of a completed forget (in the transaction closing its forget log
    run): new writes are accepted again; entries created before stay discarded."""
    await ensure_table(conn)
    await conn.execute(_LIFT, {"a": app, "u": user})


async def lift_fence(engine: AsyncEngine, app: str, user: str) -> bool:
    """Remove the user's fence (serve the user again without finishing a forget); returns
    whether there was one."""
    async with engine.begin() as conn:
        await ensure_table(conn)
        result = await conn.execute(_LIFT, {"a": app, "u": user})
        return bool(result.rowcount)


__all__ = [
    "FENCE_TABLE",
    "Fence",
    "complete_fence",
    "ensure_fence_table",
    "fences_of",
    "guard_write",
    "lift_fence",
    "raise_fence",
    "read_fence",
]
