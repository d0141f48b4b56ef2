"""Admission control for the heaviest maintenance work: a server-wide slot per piece of work.

Index builds, purges and other whole-table work each take one of ``slots`` server-wide slots
(Postgres session advisory locks on one connection, keyed in the kit's own lock space) before
they start, so on a server shared by many tenants at most ``slots`` such jobs run at once
(default one) and one tenant's maintenance never takes every core. A slot is held by the
connection that runs the work and released when the work ends; a connection that dies frees
its slot with it (the server drops its session locks), so a crashed worker never keeps one.

Searches never take a slot and never wait for one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

#: The advisory-lock class of the slots (the first key of the two-int form); the second key
#: is the slot's number. The two-int form never collides with the one-bigint keys of
#: per-index build locks (memory/ann.py) or per-user write locks.
SLOT_LOCK_CLASS = 0x4B49_5453  # 'KITS'
#: How many heavy jobs may run at once on one server, unless the caller says otherwise.
DEFAULT_SLOTS = 1
_POLL_S = 0.5

_TRY = text("SELECT pg_try_advisory_lock(:c, :s)")
_RELEASE = text("SELECT pg_advisory_unlock(:c, :s)")


async def try_take_slot(conn: AsyncConnection, *, slots: int = DEFAULT_SLOTS) -> int | None:
    """Take a free slot on ``conn`` (its session holds it); its number, or ``None`` if all
    ``slots`` are held by other sessions. Never waits."""
    for slot in range(max(slots, 1)):
        if await conn.scalar(_TRY, {"c": SLOT_LOCK_CLASS, "s": slot}):
            return slot
    return None


async def release_slot(conn: AsyncConnection, slot: int) -> None:
    """Give back a slot taken on ``conn``."""
    await conn.scalar(_RELEASE, {"c": SLOT_LOCK_CLASS, "s": slot})


@asynccontextmanager
async def heavy_work_slot(
    conn: AsyncConnection, *, slots: int = DEFAULT_SLOTS, wait_s: float = 0.0
) -> AsyncIterator[int | None]:
    """Hold a server-wide slot on ``conn`` for the block; yields its number, or ``None`` when
    none was free within ``wait_s`` seconds (the block then runs without one: the caller
    decides whether to skip its work). The slot is released when the block ends; if the block
    fails, the caller should discard ``conn`` (its session then frees the slot)."""
    deadline = time.monotonic() + max(wait_s, 0.0)
    slot = await try_take_slot(conn, slots=slots)
    while slot is None and time.monotonic() < deadline:
        await asyncio.sleep(min(_POLL_S, max(deadline - time.monotonic(), 0.0)))
        slot = await try_take_slot(conn, slots=slots)
    try:
        yield slot
    finally:
        if slot is not None:
            await release_slot(conn, slot)


@asynccontextmanager
async def held_slot(
    engine: AsyncEngine, *, slots: int = DEFAULT_SLOTS, poll_s: float = 2.0
) -> AsyncIterator[int]:
    """Hold a server-wide slot for the block, on a connection of its own; waits (holding no
    connection between tries, one every ``poll_s`` seconds) while every slot is taken. The
    block's work runs on its own connections. Yields the slot's number."""
    while True:
        conn = await engine.connect()
        try:
            slot = await try_take_slot(conn, slots=slots)
            await conn.commit()
        except BaseException:
            await conn.invalidate()
            await conn.close()
            raise
        if slot is not None:
            break
        await conn.close()
        await asyncio.sleep(poll_s)
    try:
        yield slot
    except BaseException:
        await conn.invalidate()  # its session, and the slot with it, ends now
        raise
    else:
        await release_slot(conn, slot)
        await conn.commit()
    finally:
        await conn.close()


async def slots_in_use(conn: AsyncConnection) -> int:
    """How many slots are held on the server now (an operator's view)."""
    found = await conn.scalar(
        text(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND classid = CAST(:c AS bigint)::oid AND objsubid = 2"
        ),
        {"c": SLOT_LOCK_CLASS},
    )
    return int(found or 0)
