"""A heavy user's partial HNSW index is built automatically, in the background, exactly once,
started by the write that makes the user heavy (never by a search).

Real service, real embedded Postgres; a small ``heavy_user_rows`` so a test user crosses it.
"""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import text

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.db.engine import make_engine
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.memory import SearchOptions
from adk_memory_kit.memory.ann import _lock_key, try_build_user_index
from adk_memory_kit.memory.ann_names import index_name
from adk_memory_kit.memory.search import plan_search
from tests.support.memory import pet_facts, unique

pytestmark = pytest.mark.slow

THRESHOLD = 40


async def _index_state(engine, app: str, user: str) -> bool | None:
    """``None``: no index; else whether it is valid."""
    async with engine.connect() as conn:
        return await conn.scalar(
            text("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(:n)"),
            {"n": index_name(app, user)},
        )


async def test_a_write_builds_a_heavy_users_missing_index_in_the_background(db_url, embedder):
    """The write that makes a user heavy starts the build (issue 49: the write side's work,
    never a search's); searches answer exactly meanwhile, then through the index."""
    options = SearchOptions(heavy_user_rows=THRESHOLD)
    async with PgVectorMemoryService.from_url(db_url, embedder=embedder, search=options) as memory:
        app, light, heavy = unique("ann"), unique("light"), unique("heavy")
        await memory.add_memory(app_name=app, user_id=light, memories=pet_facts(THRESHOLD - 5))
        assert memory.store.index_builder.started == 0
        await memory.add_memory(app_name=app, user_id=heavy, memories=pet_facts(THRESHOLD + 5))
        assert memory.store.index_builder.started == 1
        for user in (light, heavy):
            found = await memory.search_memory(app_name=app, user_id=user, query="gecko seeds")
            assert found.memories  # answered at once, exactly, while the build runs
        await memory.store.wait_for_index_builds()
        assert await _index_state(memory.engine, app, heavy) is True
        assert await _index_state(memory.engine, app, light) is None
        async with operator_connect(memory.engine) as conn:
            assert (await plan_search(conn, app, heavy, options)).ann
        found = await memory.search_memory(app_name=app, user_id=heavy, query="gecko seeds")
        assert "gecko" in found.memories[0].content.parts[0].text
        # nothing more to build on the next writes and searches
        await memory.add_memory(app_name=app, user_id=heavy, memories=pet_facts(2))
        await memory.search_memory(app_name=app, user_id=heavy, query="ferret")
        assert memory.store.index_builder.running == 0
        assert memory.store.index_builder.started == 1


async def test_auto_build_can_be_turned_off(db_url, embedder):
    options = SearchOptions(heavy_user_rows=THRESHOLD, ann_auto_build=False)
    async with PgVectorMemoryService.from_url(db_url, embedder=embedder, search=options) as memory:
        app, user = unique("ann"), unique("heavy")
        await memory.add_memory(app_name=app, user_id=user, memories=pet_facts(THRESHOLD + 5))
        await memory.search_memory(app_name=app, user_id=user, query="canary")
        assert memory.store.index_builder.started == 0
        await memory.store.wait_for_index_builds()
        assert await _index_state(memory.engine, app, user) is None


async def test_a_second_process_never_builds_the_same_index(db_url, embedder):
    options = SearchOptions(heavy_user_rows=THRESHOLD, ann_auto_build=False)
    async with PgVectorMemoryService.from_url(db_url, embedder=embedder, search=options) as memory:
        app, user = unique("ann"), unique("heavy")
        await memory.add_memory(app_name=app, user_id=user, memories=pet_facts(THRESHOLD + 5))
    # another process holds the build lock: this one skips, builds nothing
    other, mine = make_engine(db_url, pool_size=1), make_engine(db_url, pool_size=1)
    try:
        async with other.connect() as holder:
            key = {"k": _lock_key(index_name(app, user))}
            assert await holder.scalar(text("SELECT pg_try_advisory_lock(:k)"), key)
            assert await try_build_user_index(mine, app, user) is False
            assert await _index_state(mine, app, user) is None
            await holder.execute(text("SELECT pg_advisory_unlock(:k)"), key)
            await holder.commit()
        # two racing builders: one builds, the other skips or finds it built
        results = await asyncio.gather(
            try_build_user_index(mine, app, user), try_build_user_index(other, app, user)
        )
        assert sorted(results) == [False, True]
        assert await _index_state(mine, app, user) is True
        # the lock was released: nothing left to build, and nobody is holding it
        assert await try_build_user_index(mine, app, user) is False
        async with mine.connect() as conn:
            assert await conn.scalar(text("SELECT pg_try_advisory_lock(:k)"), key)
            await conn.execute(text("SELECT pg_advisory_unlock(:k)"), key)
    finally:
        await other.dispose()
        await mine.dispose()
