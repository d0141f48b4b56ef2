"""Row-level security, the second wall: a statement that forgets its user filter, run on the
kit's own engine, sees only the current user's rows, and nothing at all outside a scope.

Real parts: the embedded PostgreSQL, the real MiniLM embedder, data written through the
kit's public services (memory, review queue, episodic log, idle-job watermarks, forget).
"""

from __future__ import annotations

import uuid

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from psycopg import errors as pg_errors
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.scope import active_scope, operator_scope, user_scope
from adk_memory_kit.db import rls
from adk_memory_kit.db.engine import make_engine
from adk_memory_kit.episodic.store import EpisodicLog, PendingEntry
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.routing.review_queue import ReviewQueue

pytestmark = pytest.mark.slow

# The per-user tables the data below fills (each through the kit's own public methods).
FILLED = (
    "adk_memory_items",
    "adk_memory_user_stats",
    "adk_memory_term_stats",
    "adk_memory_kit_review_queue",
    "adk_episodic_log",
)


def _entry(words: str) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=words)]))


@pytest.fixture(scope="module")
async def world(db_url, embedder):
    """One app with two users (ann: 3 facts, bob: 2), each with a review item and
    episodic entries, written through the kit on an engine with row-level security on."""
    engine = make_engine(db_url, rls_enabled=True)
    memory = PgVectorMemoryService(engine=engine, embedder=embedder)
    queue = ReviewQueue(engine=engine)
    log = EpisodicLog(engine=engine, flush_interval=0.05)
    app = f"rls_{uuid.uuid4().hex[:8]}"
    facts = {
        "ann": ["Ann keeps bees in Tromso", "Ann's violin is a 1920 Hopf", "Ann reads Ibsen"],
        "bob": ["Bob repairs tube radios", "Bob swims in the fjord every morning"],
    }
    for user, said in facts.items():
        await memory.add_memory(app_name=app, user_id=user, memories=[_entry(s) for s in said])
        await queue.submit(app_name=app, user_id=user, text=f"{user} asked for a new rule")
        for n in range(len(said)):
            log.append(PendingEntry(app, user, "s1", f"inv{n}", "agent", "tool_call", f"t{n}"))
    await log.flush()
    yield {"engine": engine, "app": app, "memory": memory, "queue": queue, "log": log}
    await log.close()
    await queue.close()
    await memory.close()
    await engine.dispose()


async def _count(engine, sql: str, params: dict | None = None) -> int:
    async with engine.connect() as conn:
        return int(await conn.scalar(text(sql), params or {}) or 0)


async def _truth(engine, table: str, app: str, user: str) -> int:
    """The user's row count, filtered, in operator mode (what the wall must let through)."""
    with operator_scope():
        return await _count(
            engine,
            f"SELECT count(*) FROM {table} WHERE app_name = :a AND user_id = :u",
            {"a": app, "u": user},
        )


@pytest.mark.parametrize("table", FILLED)
async def test_an_unfiltered_statement_in_a_users_scope_sees_only_that_user(world, table):
    engine, app = world["engine"], world["app"]
    for user, other in (("ann", "bob"), ("bob", "ann")):
        own = await _truth(engine, table, app, user)
        assert own > 0 and await _truth(engine, table, app, other) > 0  # more rows exist
        with user_scope(app, user):
            # the deliberate bug: no WHERE at all
            assert await _count(engine, f"SELECT count(*) FROM {table}") == own
            async with engine.connect() as conn:
                seen = (await conn.execute(text(f"SELECT app_name, user_id FROM {table}"))).all()
        assert {tuple(r) for r in seen} == {(app, user)}


@pytest.mark.parametrize("table", FILLED)
async def test_an_unfiltered_statement_outside_any_scope_sees_nothing(world, table):
    engine = world["engine"]
    assert active_scope() is None
    with operator_scope():
        everyone = await _count(engine, f"SELECT count(*) FROM {table}")
    assert everyone >= await _truth(engine, table, world["app"], "ann") > 0
    assert await _count(engine, f"SELECT count(*) FROM {table}") == 0


async def test_another_apps_user_of_the_same_name_is_not_seen(world):
    with user_scope(world["app"] + "_other", "ann"):
        assert await _count(world["engine"], "SELECT count(*) FROM adk_memory_items") == 0


async def test_unfiltered_writes_touch_only_the_scoped_user_and_foreign_rows_are_refused(world):
    engine, app = world["engine"], world["app"]
    ann_items = await _truth(engine, "adk_memory_kit_review_queue", app, "ann")
    bob_items = await _truth(engine, "adk_memory_kit_review_queue", app, "bob")
    with user_scope(app, "bob"):
        async with engine.connect() as conn:
            trans = await conn.begin()
            updated = await conn.execute(text("UPDATE adk_memory_items SET importance = 0.5"))
            deleted = await conn.execute(text("DELETE FROM adk_memory_kit_review_queue"))
            assert updated.rowcount == await _truth(engine, "adk_memory_items", app, "bob")
            assert deleted.rowcount == bob_items
            await trans.rollback()
        with pytest.raises(DBAPIError) as refused:
            async with engine.begin() as conn:
                await conn.execute(
                    text(
                        "INSERT INTO adk_memory_kit_review_queue (app_name, user_id, text,"
                        " text_hash) VALUES (:a, 'ann', 'planted', 'x')"
                    ),
                    {"a": app},
                )
    assert isinstance(refused.value.orig, pg_errors.InsufficientPrivilege)
    assert await _truth(engine, "adk_memory_kit_review_queue", app, "ann") == ann_items
    assert await _truth(engine, "adk_memory_kit_review_queue", app, "bob") == bob_items


async def test_the_kits_public_calls_still_work_under_the_wall(world):
    memory, queue, log, app = world["memory"], world["queue"], world["log"], world["app"]
    found = await memory.search_memory(app_name=app, user_id="ann", query="bees violin Ibsen")
    assert found.memories and all("Bob" not in m.content.parts[0].text for m in found.memories)
    assert sorted(await memory.list_users(app)) == ["ann", "bob"]  # an operator view
    assert await memory.count_memories(app_name=app, user_id="bob") == {"fact": 2}
    assert {i.user_id for i in await queue.list(app_name=app, status=None)} == {"ann", "bob"}
    assert [i.user_id for i in await queue.list(app_name=app, user_id="ann")] == ["ann"]
    assert len(await log.trace(app, "ann", "s1")) == 3
    assert (await log.cost_summary(app)).total.tool_calls == 5  # app-wide: operator
    assert (await log.cost_summary(app, user_id="bob")).total.tool_calls == 2


async def test_scoped_transactions_switch_to_the_role_without_bypass(world):
    engine = world["engine"]
    with user_scope(world["app"], "ann"):
        async with engine.connect() as conn:
            who = await conn.scalar(text("SELECT current_user"))
            bypass = await conn.scalar(
                text("SELECT rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = current_user")
            )
    assert who == rls.SCOPED_ROLE and bypass is False
    async with engine.connect() as conn:  # no scope: the same role, no settings
        assert await conn.scalar(text("SELECT current_user")) == rls.SCOPED_ROLE
    with operator_scope():
        async with engine.connect() as conn:
            assert await conn.scalar(text("SELECT current_user")) == "postgres"


async def test_every_kit_table_carries_the_forced_policy(world):
    engine = world["engine"]
    with operator_scope():
        async with engine.connect() as conn:
            rows = (
                await conn.execute(
                    text(
                        "SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity,"
                        " EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid"
                        "   AND p.polname = :p) AS policy"
                        " FROM pg_class c WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition"
                        " AND c.relname LIKE 'adk\\_%'"
                        " AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid"
                        "   AND a.attname = 'app_name' AND NOT a.attisdropped)"
                        " AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid"
                        "   AND a.attname = 'user_id' AND NOT a.attisdropped)"
                    ),
                    {"p": rls.POLICY},
                )
            ).all()
    found = {r.relname: (r.relrowsecurity, r.relforcerowsecurity, r.policy) for r in rows}
    # every per-user table the kit's packages create is listed, and carries the policy
    assert set(found) <= set(rls.KIT_TABLES), set(found) - set(rls.KIT_TABLES)
    assert set(FILLED) <= set(found)
    assert all(state == (True, True, True) for state in found.values()), found


def test_the_list_of_kit_tables_matches_the_packages_names():
    from adk_memory_kit.db.fence import FENCE_TABLE
    from adk_memory_kit.episodic.store import TABLE as EPISODIC
    from adk_memory_kit.lifecycle.watermarks import WATERMARKS
    from adk_memory_kit.memory.entities import ENTITIES
    from adk_memory_kit.memory.forget_log import FORGET_LOG
    from adk_memory_kit.memory.grants import GRANTS
    from adk_memory_kit.memory.tables import SNAPSHOTS, TABLE
    from adk_memory_kit.memory.term_stats import TERM_STATS, USER_STATS
    from adk_memory_kit.routing.review_queue import TABLE as REVIEW

    names = {TABLE, SNAPSHOTS, USER_STATS, TERM_STATS, ENTITIES, REVIEW, EPISODIC, FENCE_TABLE}
    names |= {GRANTS}
    assert names | {FORGET_LOG, WATERMARKS} == set(rls.KIT_TABLES)


async def test_with_the_wall_off_the_engine_sets_no_scope(db_url, world):
    """The opt-out: ``rls_enabled=False`` runs every connection in operator mode."""
    engine = make_engine(db_url, rls_enabled=False)
    try:
        assert not rls.rls_on(engine)
        app = world["app"]
        everyone = await _count(
            engine, "SELECT count(*) FROM adk_memory_items WHERE app_name = :a", {"a": app}
        )
        assert everyone == 5
    finally:
        await engine.dispose()


def test_the_switch_refuses_unclear_values(monkeypatch, db_url):
    monkeypatch.setenv(rls.RLS_ENV, "maybe")
    with pytest.raises(InvalidInputError, match=rls.RLS_ENV):
        rls.rls_default()
    monkeypatch.setenv(rls.RLS_ENV, "off")
    assert rls.rls_default() is False
    monkeypatch.setenv(rls.RLS_ENV, "ON")
    assert rls.rls_default() is True
    with pytest.raises(InvalidInputError, match="rls_enabled"):
        make_engine(db_url, rls_enabled="yes")  # type: ignore[arg-type]


async def test_a_url_role_that_owns_the_tables_is_held_by_force(db_url, embedder):
    """The production setup: the URL's role owns the kit tables and is no superuser. No role
    switch happens; FORCE ROW LEVEL SECURITY holds the owner to the policy."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.ext.asyncio import create_async_engine

    suffix = uuid.uuid4().hex[:8]
    role, database = f"rls_owner_{suffix}", f"rls_db_{suffix}"
    admin = create_async_engine(db_url, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f"CREATE ROLE {role} LOGIN"))
        await conn.execute(text(f"CREATE DATABASE {database} OWNER {role}"))
    url = make_url(db_url)
    as_admin = create_async_engine(url.set(database=database), isolation_level="AUTOCOMMIT")
    async with as_admin.connect() as conn:
        await conn.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    await as_admin.dispose()
    owner_url = url.set(database=database, username=role).render_as_string(hide_password=False)
    engine = make_engine(owner_url, rls_enabled=True)
    memory = PgVectorMemoryService(engine=engine, embedder=embedder)
    try:
        for user in ("ann", "bob"):
            await memory.add_memory(app_name="a", user_id=user, memories=[_entry(f"{user} fact")])
        with user_scope("a", "ann"):
            async with engine.connect() as conn:
                assert await conn.scalar(text("SELECT current_user")) == role
                assert await conn.scalar(text("SELECT count(*) FROM adk_memory_items")) == 1
        assert await _count(engine, "SELECT count(*) FROM adk_memory_items") == 0
        with operator_scope():
            assert await _count(engine, "SELECT count(*) FROM adk_memory_items") == 2
        assert sorted(await memory.list_users("a")) == ["ann", "bob"]
    finally:
        await memory.close()
        await engine.dispose()
        async with admin.connect() as conn:
            await conn.execute(text(f"DROP DATABASE IF EXISTS {database} WITH (FORCE)"))
            await conn.execute(text(f"DROP ROLE IF EXISTS {role}"))
        await admin.dispose()
