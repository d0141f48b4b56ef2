"""Index upkeep off the request path (issue 49): no search starts or waits for a build; two
processes never build one user's index at once; builds and purges take the server-wide
heavy-work slot.

Real service, real embedded Postgres; a small ``heavy_user_rows`` so a test user crosses it.
A build is held in progress by an open transaction that holds a writer's lock on the memory
table: ``CREATE INDEX CONCURRENTLY`` waits for it ("waiting for writers before build"), so
the tests see a build running for as long as they need, without timing anything.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import uuid

import pytest
from sqlalchemy import text

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.core.scope import operator_scope
from adk_memory_kit.db.engine import make_engine
from adk_memory_kit.memory import SearchOptions
from adk_memory_kit.memory.admission import slots_in_use, try_take_slot
from adk_memory_kit.memory.ann import build_outcome, build_user_index
from adk_memory_kit.memory.ann_names import index_name
from adk_memory_kit.memory.tables import TABLE
from tests.support.memory import pet_facts, unique

pytestmark = pytest.mark.slow

THRESHOLD = 40


async def _heavy_without_index(db_url, embedder, app: str, *users: str) -> None:
    """Write ``users`` past the threshold with automatic builds off: heavy, no index."""
    options = SearchOptions(heavy_user_rows=THRESHOLD, ann_auto_build=False)
    async with PgVectorMemoryService.from_url(db_url, embedder=embedder, search=options) as mem:
        for user in users:
            await mem.add_memory(app_name=app, user_id=user, memories=pet_facts(THRESHOLD + 5))


async def _index_valid(engine, app: str, user: str) -> bool | None:
    """``None``: no index; else whether it is valid."""
    async with engine.connect() as conn:
        return await conn.scalar(
            text("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(:n)"),
            {"n": index_name(app, user)},
        )


_BUILDS = text(
    "SELECT count(*) FROM pg_stat_progress_create_index p"
    " JOIN pg_stat_activity a ON a.pid = p.pid"
    " WHERE a.application_name = :tag AND p.command = 'CREATE INDEX CONCURRENTLY'"
)
_ALL_BUILDS = text(
    "SELECT count(*) FROM pg_stat_activity"
    " WHERE query ILIKE 'CREATE INDEX CONCURRENTLY%' AND pid <> pg_backend_pid()"
)


async def _hold_writers_lock(engine):
    """A connection in a transaction holding a writer's lock on the memory table (builds wait
    for it before they start); the caller rolls it back to let them go on."""
    conn = await engine.connect()
    await conn.execute(text(f"LOCK TABLE {TABLE} IN ROW EXCLUSIVE MODE"))
    return conn


async def _wait_for(engine, sql, params, want: int, timeout: float = 60.0) -> None:
    # an operator's view: with row-level security on, a user-scoped role sees no other
    # backend's activity or build progress
    with operator_scope():
        async with engine.connect() as conn:
            for _ in range(int(timeout / 0.1)):
                if await conn.scalar(sql, params) == want:
                    return
                await conn.rollback()
                await asyncio.sleep(0.1)
    raise AssertionError(f"never saw {want}")


async def test_a_search_never_starts_a_build(db_url, embedder):
    """A heavy user without an index is searched many times by a service that builds
    automatically: the searches are answered (exactly) and no build starts, in this process
    or on the server."""
    app, user = unique("ann"), unique("heavy")
    await _heavy_without_index(db_url, embedder, app, user)
    options = SearchOptions(heavy_user_rows=THRESHOLD)  # ann_auto_build on (the default)
    async with PgVectorMemoryService.from_url(db_url, embedder=embedder, search=options) as mem:
        for query in ["gecko seeds", "ferret", "what did the canary eat", "parrot"]:
            found = await mem.search_memory(app_name=app, user_id=user, query=query)
            assert found.memories
            async with mem.engine.connect() as conn:
                assert await conn.scalar(_ALL_BUILDS) == 0
        assert mem.store.index_builder.started == 0
        await mem.store.wait_for_index_builds()
        assert await _index_valid(mem.engine, app, user) is None


async def test_no_search_waits_for_a_build(db_url, embedder):
    """While a heavy user's build is in progress (held before it starts building), that user
    and another are searched and answered, and another user's write goes through."""
    app, heavy, other = unique("ann"), unique("heavy"), unique("other")
    await _heavy_without_index(db_url, embedder, app, heavy, other)
    options = SearchOptions(heavy_user_rows=THRESHOLD)
    async with PgVectorMemoryService.from_url(db_url, embedder=embedder, search=options) as mem:
        holder = await _hold_writers_lock(mem.engine)
        build = asyncio.ensure_future(build_user_index(mem.engine, app, heavy))
        try:
            await _wait_for(mem.engine, _ALL_BUILDS, {}, 1)
            for user in (heavy, other):
                found = await mem.search_memory(app_name=app, user_id=user, query="gecko seeds")
                assert found.memories
            await mem.add_memory(app_name=app, user_id=unique("writer"), memories=pet_facts(3))
            assert not build.done()  # the build was in progress throughout
        finally:
            await holder.rollback()
            await holder.close()
        await build
        assert await _index_valid(mem.engine, app, heavy) is True
        found = await mem.search_memory(app_name=app, user_id=heavy, query="gecko seeds")
        assert found.memories


_BUILDER = textwrap.dedent(
    """
    import asyncio, sys
    from adk_memory_kit.db.engine import make_engine
    from adk_memory_kit.memory.ann import build_outcome

    async def main(url, app, user):
        engine = make_engine(url, pool_size=1)
        try:
            print(await build_outcome(engine, app, user), flush=True)
        finally:
            await engine.dispose()

    asyncio.run(main(*sys.argv[1:]))
    """
)


def _builder(db_url: str, tag: str, app: str, user: str) -> subprocess.Popen[str]:
    """Another process building ``user``'s index; its connections carry ``tag``."""
    sep = "&" if "?" in db_url else "?"
    return subprocess.Popen(
        [sys.executable, "-c", _BUILDER, f"{db_url}{sep}application_name={tag}", app, user],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )


async def _outcome(proc: subprocess.Popen[str]) -> str:
    out, _ = await asyncio.to_thread(proc.communicate, timeout=120)
    assert proc.returncode == 0
    return out.strip().splitlines()[-1]


async def test_two_processes_never_build_one_users_index_at_once(db_url, embedder):
    """Process A's build of a user's index is in progress; process B, asked to build the same
    index, skips it ('locked'), and asked for another user's, finds the server's one
    heavy-work slot taken ('busy'). At every look, at most one build of the two processes
    runs. Once A is let go, its build completes; the other user's then builds."""
    app, user, second = unique("ann"), unique("heavy"), unique("second")
    await _heavy_without_index(db_url, embedder, app, user, second)
    tag = f"issue49-{uuid.uuid4().hex[:8]}"
    engine = make_engine(db_url, pool_size=2)
    try:
        holder = await _hold_writers_lock(engine)
        a = _builder(db_url, tag, app, user)
        try:
            await _wait_for(engine, _BUILDS, {"tag": tag}, 1)
            b = _builder(db_url, tag, app, user)
            c = _builder(db_url, tag, app, second)
            while b.poll() is None or c.poll() is None:
                async with engine.connect() as conn:
                    assert await conn.scalar(_BUILDS, {"tag": tag}) <= 1
                await asyncio.sleep(0.05)
            assert await _outcome(b) == "locked"
            assert await _outcome(c) == "busy"
            assert a.poll() is None  # still building, alone
        finally:
            await holder.rollback()
            await holder.close()
        assert await _outcome(a) == "built"
        assert await _index_valid(engine, app, user) is True
        assert await _index_valid(engine, app, second) is None
        assert await build_outcome(engine, app, second) == "built"
        assert await build_outcome(engine, app, user) == "current"
    finally:
        await engine.dispose()


async def test_builds_and_purges_wait_for_the_heavy_work_slot(db_url, embedder):
    """While another session holds the server's heavy-work slot, a build attempt builds
    nothing ('busy'); a maintenance build and a purge wait and run once it is free."""
    app, user = unique("ann"), unique("heavy")
    await _heavy_without_index(db_url, embedder, app, user)
    options = SearchOptions(heavy_user_rows=THRESHOLD, ann_auto_build=False)
    async with PgVectorMemoryService.from_url(db_url, embedder=embedder, search=options) as mem:
        async with mem.engine.connect() as holder:
            assert await try_take_slot(holder) == 0
            await holder.commit()
            assert await build_outcome(mem.engine, app, user) == "busy"
            assert await _index_valid(mem.engine, app, user) is None
            build = asyncio.ensure_future(build_user_index(mem.engine, app, user))
            purge = asyncio.ensure_future(mem.purge_expired())
            await asyncio.sleep(1.0)
            assert not build.done() and not purge.done()
            assert await slots_in_use(holder) == 1
            await holder.execute(text("SELECT pg_advisory_unlock_all()"))
            await holder.commit()
        await asyncio.wait_for(asyncio.gather(build, purge), timeout=120)
        assert await _index_valid(mem.engine, app, user) is True
        async with mem.engine.connect() as conn:
            assert await slots_in_use(conn) == 0


async def test_a_build_runs_without_parallel_workers_and_leaves_the_pool_as_it_was(
    db_url, embedder
):
    """The build's session settings (memory, parallel workers) never reach a search: the
    pooled connection comes back with the server's own settings (or is replaced)."""
    app, user = unique("ann"), unique("heavy")
    await _heavy_without_index(db_url, embedder, app, user)
    engine = make_engine(db_url, pool_size=1)
    try:
        async with engine.connect() as conn:
            before = (
                await conn.scalar(text("SHOW max_parallel_maintenance_workers")),
                await conn.scalar(text("SHOW maintenance_work_mem")),
            )
        assert await build_outcome(engine, app, user) == "built"
        async with engine.connect() as conn:
            after = (
                await conn.scalar(text("SHOW max_parallel_maintenance_workers")),
                await conn.scalar(text("SHOW maintenance_work_mem")),
            )
        assert after == before
    finally:
        await engine.dispose()
