"""Issue 45: rows written to a user who has a partial HNSW index wait outside it (``ann_pending``)
and are folded in off the write path; searches find them at once, before and after the fold.

Real service, real embedded Postgres; a small ``heavy_user_rows`` so a test user is heavy.
Run also on a hash-partitioned schema and with row-level security on (.ci/run).
"""

from __future__ import annotations

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import text

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.core.scope import operator_scope, user_scope
from adk_memory_kit.db.engine import make_engine
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.memory import SearchOptions
from adk_memory_kit.memory.ann import build_user_index, index_heavy_users
from adk_memory_kit.memory.ann_names import index_name, scope_literals
from adk_memory_kit.memory.pending_rows import fold_pending
from adk_memory_kit.memory.search import search_params
from adk_memory_kit.memory.search_sql import HNSW_SETTINGS_SQL, heavy_sql
from adk_memory_kit.memory.tables import TABLE
from tests.support.memory import pet_facts, texts, unique

pytestmark = pytest.mark.slow

THRESHOLD = 40
NEW_FACT = "My axolotl Quetzal sleeps under the blue ceramic castle."
QUERY = "axolotl Quetzal castle"


def _entry(words: str) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=words)]))


def _service(db_url, embedder, engine=None) -> PgVectorMemoryService:
    options = SearchOptions(heavy_user_rows=THRESHOLD, ann_auto_build=False)
    memory = PgVectorMemoryService.from_url(
        None if engine is not None else db_url, engine=engine, embedder=embedder, search=options
    )
    memory.store.pending_folder.idle_s = 3600.0  # no background fold unless a test asks
    return memory


async def _indexed_user(memory, app: str, user: str) -> None:
    """``user`` heavy, with their partial HNSW index."""
    await memory.add_memory(app_name=app, user_id=user, memories=pet_facts(THRESHOLD + 5))
    await build_user_index(await memory.store.ready(), app, user)


async def _pending(memory, app: str, user: str, fact: str = NEW_FACT) -> list[bool]:
    """The ``ann_pending`` flag of the user's rows holding ``fact`` (read as the operator)."""
    async with operator_connect(memory.engine) as conn:
        found = await conn.execute(
            text(
                f"SELECT ann_pending FROM {TABLE}"
                " WHERE app_name = :a AND user_id = :u AND text = :t"
            ),
            {"a": app, "u": user, "t": fact},
        )
        return [r.ann_pending for r in found]


async def _pending_count(memory, app: str, user: str) -> int:
    async with operator_connect(memory.engine) as conn:
        return int(
            await conn.scalar(
                text(
                    f"SELECT count(*) FROM {TABLE} WHERE app_name = :a AND user_id = :u"
                    " AND ann_pending"
                ),
                {"a": app, "u": user},
            )
        )


async def _predicate(memory, app: str, user: str) -> str | None:
    async with operator_connect(memory.engine) as conn:
        return await conn.scalar(
            text(
                "SELECT pg_get_expr(indpred, indrelid) FROM pg_index"
                " WHERE indexrelid = to_regclass(:n) AND indisvalid"
            ),
            {"n": index_name(app, user)},
        )


async def _dense_top(memory, app: str, user: str, fact: str = NEW_FACT) -> str | None:
    """The text of the first row of the heavy user's dense list alone (no full-text list to
    find the row by its words) for the stored vector of ``fact``."""
    async with operator_connect(memory.engine) as conn:
        stored = await conn.scalar(
            text(
                f"SELECT embedding::text FROM {TABLE}"
                " WHERE app_name = :a AND user_id = :u AND text = :t"
            ),
            {"a": app, "u": user, "t": fact},
        )
    qvec = [float(x) for x in stored.strip("[]").split(",")]
    options = memory.store.search_options
    params = {**search_params(app, user, [], 5, options), "qvec": qvec}
    with user_scope(app, user):
        async with memory.engine.connect() as conn:
            await conn.execute(HNSW_SETTINGS_SQL, {"ef": "400"})
            found = await conn.execute(heavy_sql(app, user, hybrid=False), params)
            rows = found.mappings().all()
    return rows[0]["text"] if rows else None


async def _found(memory, app: str, user: str, query: str = QUERY) -> list[str]:
    return texts(await memory.search_memory(app_name=app, user_id=user, query=query))


async def test_a_new_row_is_found_before_the_fold_and_after_it(db_url, embedder):
    async with _service(db_url, embedder) as memory:
        app, user = unique("pend"), unique("heavy")
        await _indexed_user(memory, app, user)
        assert "ann_pending" in (await _predicate(memory, app, user) or "")
        assert await _pending_count(memory, app, user) == 0  # rows before the index: indexed
        await memory.add_memory(app_name=app, user_id=user, memories=[_entry(NEW_FACT)])
        assert await _pending(memory, app, user) == [True]  # not inserted into the graph
        assert NEW_FACT in (await _found(memory, app, user))[:3]
        assert await _dense_top(memory, app, user) == NEW_FACT  # the dense list alone too
        assert await fold_pending(memory.engine, app, user) == 1
        assert await _pending(memory, app, user) == [False]
        assert NEW_FACT in (await _found(memory, app, user))[:3]
        assert await _dense_top(memory, app, user) == NEW_FACT


async def test_the_background_fold_runs_once_writes_pause(db_url, embedder):
    async with _service(db_url, embedder) as memory:
        app, user = unique("pend"), unique("heavy")
        await _indexed_user(memory, app, user)
        memory.store.pending_folder.idle_s = 0.05
        memory.store.pending_folder.chunk = 2  # several chunks
        more = [_entry(f"Visit {i}: the axolotl tank got {i} new plants.") for i in range(5)]
        await memory.add_memory(app_name=app, user_id=user, memories=[_entry(NEW_FACT), *more])
        assert memory.store.pending_folder.running == 1
        await memory.store.wait_for_folds()
        assert await _pending_count(memory, app, user) == 0
        assert memory.store.pending_folder.folded == 6
        assert NEW_FACT in (await _found(memory, app, user))[:3]


async def test_a_write_past_the_cap_folds_the_excess_itself(db_url, embedder):
    async with _service(db_url, embedder) as memory:
        app, user = unique("pend"), unique("heavy")
        await _indexed_user(memory, app, user)
        memory.store.pending_cap = 3
        more = [_entry(f"Visit {i}: the axolotl tank got {i} new plants.") for i in range(7)]
        await memory.add_memory(app_name=app, user_id=user, memories=more)
        assert await _pending_count(memory, app, user) == 3
        await memory.add_memory(app_name=app, user_id=user, memories=[_entry(NEW_FACT)])
        assert await _pending_count(memory, app, user) == 3
        assert NEW_FACT in (await _found(memory, app, user))[:3]


async def test_the_upkeep_pass_folds_every_users_pending_rows(db_url, embedder):
    async with _service(db_url, embedder) as memory:
        app, user = unique("pend"), unique("heavy")
        await _indexed_user(memory, app, user)
        await memory.add_memory(app_name=app, user_id=user, memories=[_entry(NEW_FACT)])
        assert await _pending(memory, app, user) == [True]
        names = await index_heavy_users(memory.engine, min_rows=THRESHOLD)
        assert index_name(app, user) in names
        assert await _pending(memory, app, user) == [False]
        assert NEW_FACT in (await _found(memory, app, user))[:3]


async def test_a_rewritten_row_keeps_being_found(db_url, embedder):
    """A session turn rewritten with a new embedding waits outside the graph again; an
    unchanged one keeps its place in it."""
    async with _service(db_url, embedder) as memory:
        app, user = unique("pend"), unique("heavy")
        await _indexed_user(memory, app, user)
        await memory.add_memory(app_name=app, user_id=user, memories=[_entry(NEW_FACT)])
        await fold_pending(memory.engine, app, user)
        await memory.add_memory(app_name=app, user_id=user, memories=[_entry(NEW_FACT)])
        assert await _pending(memory, app, user) == [False]  # the same row, unchanged
        assert NEW_FACT in (await _found(memory, app, user))[:3]


async def test_forget_deletes_pending_rows(db_url, embedder):
    async with _service(db_url, embedder) as memory:
        app, user = unique("pend"), unique("heavy")
        await _indexed_user(memory, app, user)
        await memory.add_memory(app_name=app, user_id=user, memories=[_entry(NEW_FACT)])
        assert await _pending(memory, app, user) == [True]
        await memory.delete_user_memories(app_name=app, user_id=user)
        assert await _pending(memory, app, user) == []
        assert await _pending_count(memory, app, user) == 0
        assert await _found(memory, app, user) == []
        assert await fold_pending(memory.engine, app, user) == 0


async def test_an_index_built_before_pending_rows_keeps_serving_and_is_replaced(db_url, embedder):
    async with _service(db_url, embedder) as memory:
        app, user = unique("pend"), unique("heavy")
        await memory.add_memory(app_name=app, user_id=user, memories=pet_facts(THRESHOLD + 5))
        with operator_scope():  # the index as built before issue 45: no ann_pending
            async with memory.engine.connect() as conn:
                conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
                target = await conn.scalar(
                    text(
                        f"SELECT tableoid::regclass::text FROM {TABLE}"
                        " WHERE app_name = :a AND user_id = :u LIMIT 1"
                    ),
                    {"a": app, "u": user},
                )
                await conn.execute(
                    text(
                        f"CREATE INDEX {index_name(app, user)} ON {target}"
                        " USING hnsw (embedding vector_cosine_ops)"
                        f" WHERE {' AND '.join(scope_literals(app, user))}"
                    )
                )
        assert "ann_pending" not in (await _predicate(memory, app, user) or "")
        await memory.add_memory(app_name=app, user_id=user, memories=[_entry(NEW_FACT)])
        assert await _pending(memory, app, user) == [True]
        assert NEW_FACT in (await _found(memory, app, user))[:3]
        assert await _dense_top(memory, app, user) == NEW_FACT
        await build_user_index(memory.engine, app, user)  # replaced
        assert "ann_pending" in (await _predicate(memory, app, user) or "")
        assert NEW_FACT in (await _found(memory, app, user))[:3]
        await fold_pending(memory.engine, app, user)
        assert NEW_FACT in (await _found(memory, app, user))[:3]


async def test_row_level_security_still_isolates_pending_rows(db_url, embedder):
    engine = make_engine(db_url, rls_enabled=True)
    try:
        async with _service(db_url, embedder, engine=engine) as memory:
            app, ann, bob = unique("pend"), unique("ann"), unique("bob")
            for user in (ann, bob):
                await _indexed_user(memory, app, user)
            await memory.add_memory(app_name=app, user_id=ann, memories=[_entry(NEW_FACT)])
            assert NEW_FACT in (await _found(memory, app, ann))[:3]
            assert NEW_FACT not in await _found(memory, app, bob)
            with user_scope(app, bob):  # the wall: bob's scope sees none of ann's rows
                async with engine.connect() as conn:
                    seen = await conn.scalar(
                        text(f"SELECT count(*) FROM {TABLE} WHERE ann_pending")
                    )
                assert seen == 0
            assert await fold_pending(engine, app, ann) == 1
            assert NEW_FACT in (await _found(memory, app, ann))[:3]
            assert NEW_FACT not in await _found(memory, app, bob)
    finally:
        await engine.dispose()
