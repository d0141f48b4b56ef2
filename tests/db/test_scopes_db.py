"""Memory scopes in the database (issue 47): row-level security reads a user's own rows and
their app's (and granted groups') shared rows, never another user's, and never writes a
shared row; a database one migration step behind keeps its rows, as the users' own.

Real parts: the embedded PostgreSQL, the real MiniLM embedder, the kit's public services.
"""

from __future__ import annotations

import uuid

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import create_async_engine

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.memory_scopes import APP_OWNER
from adk_memory_kit.core.scope import user_scope
from adk_memory_kit.db.engine import make_engine
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.memory.schema import COMPONENT, _steps

pytestmark = pytest.mark.slow


def _entry(words: str) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=words)]))


@pytest.fixture(scope="module")
async def walled(db_url, embedder):
    """One app on an engine with row-level security on: ann and bob (own and agent rows), an
    app rule, a finance rule granted to ann."""
    engine = make_engine(db_url, rls_enabled=True)
    memory = PgVectorMemoryService(engine=engine, embedder=embedder)
    app = f"scrls_{uuid.uuid4().hex[:8]}"
    for user in ("ann", "bob"):
        await memory.add_memory(app_name=app, user_id=user, memories=[_entry(f"{user} likes tea")])
        await memory.add_agent_memory(
            app_name=app, user_id=user, agent_name="billing", memories=[f"{user} pays for tea"]
        )
    await memory.add_shared_memory(app_name=app, memories=["tea is free on Mondays"])
    await memory.add_shared_memory(
        app_name=app, memories=["the tea budget is frozen"], scope="group:finance"
    )
    await memory.grant_group(app_name=app, user_id="ann", group="finance")
    yield {"engine": engine, "app": app, "memory": memory}
    await memory.close()
    await engine.dispose()


async def _visible(engine, app: str, user: str, table: str = "adk_memory_items") -> set:
    """(user_id, scope) or user_id of every row a statement WITHOUT a user filter sees."""
    column = "user_id, scope" if table == "adk_memory_items" else "user_id, ''"
    with user_scope(app, user):
        async with engine.connect() as conn:
            found = await conn.execute(
                text(f"SELECT {column} FROM {table} WHERE app_name = :a"), {"a": app}
            )
            return {tuple(r) for r in found}


async def test_the_wall_shows_own_rows_and_entitled_shared_rows_only(walled):
    engine, app = walled["engine"], walled["app"]
    assert await _visible(engine, app, "ann") == {
        ("ann", "user"),
        ("ann", "agent:billing"),
        (APP_OWNER, "app"),
        ("~shared:group:finance", "group:finance"),
    }
    assert await _visible(engine, app, "bob") == {
        ("bob", "user"),
        ("bob", "agent:billing"),
        (APP_OWNER, "app"),
    }
    # the statistics a search of a shared owner reads: the same entitlement
    stats = await _visible(engine, app, "bob", "adk_memory_user_stats")
    assert {u for u, _ in stats} == {"bob", APP_OWNER}
    assert await _visible(engine, app, "carl") == {(APP_OWNER, "app")}


async def test_a_user_transaction_cannot_write_a_shared_row(walled):
    engine, app = walled["engine"], walled["app"]
    with user_scope(app, "bob"):
        async with engine.begin() as conn:
            changed = await conn.execute(
                text(
                    "UPDATE adk_memory_items SET text = 'tea is never free'"
                    " WHERE app_name = :a AND user_id = :o"
                ),
                {"a": app, "o": APP_OWNER},
            )
            assert changed.rowcount == 0
            gone = await conn.execute(
                text("DELETE FROM adk_memory_items WHERE app_name = :a AND user_id <> 'bob'"),
                {"a": app},
            )
            assert gone.rowcount == 0
        with pytest.raises(DBAPIError, match="row-level security"):
            async with engine.begin() as conn:
                await conn.execute(
                    text("UPDATE adk_memory_items SET user_id = :o WHERE app_name = :a"),
                    {"a": app, "o": APP_OWNER},
                )
    found = await walled["memory"].search(
        app_name=app, user_id="bob", query="tea Monday", record_access=False
    )
    texts = {m.content.parts[0].text: m.custom_metadata["scope"] for m in found.memories}
    assert texts == {"tea is free on Mondays": "app", "bob likes tea": "user"}


async def test_a_database_one_step_behind_keeps_its_rows_as_the_users_own(db_url, embedder):
    """The rows of a database migrated before scopes (no scope column, no grants table)
    survive the upgrade as ``user`` rows and are found by the scoped search."""
    name = f"sc_{uuid.uuid4().hex[:10]}"
    admin = create_async_engine(db_url, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f"CREATE DATABASE {name}"))
    url = make_url(db_url).set(database=name).render_as_string(hide_password=False)
    before = [s.sql for s in _steps(embedder.dim)].index(
        "ALTER TABLE adk_memory_items ADD COLUMN IF NOT EXISTS scope text NOT NULL DEFAULT 'user'"
    )
    try:
        first = PgVectorMemoryService.from_url(url, embedder=embedder)
        await first.add_memory(
            app_name="a", user_id="u", memories=[_entry("the old row about herons")]
        )
        async with operator_connect(first.engine) as conn:  # back to the step before scopes
            for sql in (
                "ALTER TABLE adk_memory_items DROP CONSTRAINT adk_memory_items_scope_owner",
                "ALTER TABLE adk_memory_items DROP COLUMN scope",
                "DROP TABLE adk_memory_scope_grants",
            ):
                await conn.execute(text(sql))
            await conn.execute(
                text(
                    "UPDATE adk_memory_kit_schema SET step = :s, version = :s WHERE component = :c"
                ),
                {"s": before, "c": COMPONENT},
            )
            await conn.commit()
        await first.close()

        second = PgVectorMemoryService.from_url(url, embedder=embedder)
        found = await second.search(app_name="a", user_id="u", query="herons")
        assert [(m.content.parts[0].text, m.custom_metadata["scope"]) for m in found.memories] == [
            ("the old row about herons", "user")
        ]
        await second.add_shared_memory(app_name="a", memories=["herons nest by the lake"])
        found = await second.search(app_name="a", user_id="u", query="herons")
        assert {m.custom_metadata["scope"] for m in found.memories} == {"user", "app"}
        async with operator_connect(second.engine) as conn:
            step = await conn.scalar(
                text("SELECT step FROM adk_memory_kit_schema WHERE component = :c"),
                {"c": COMPONENT},
            )
        assert step == len(_steps(embedder.dim))
        await second.close()
    finally:
        async with admin.connect() as conn:
            await conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        await admin.dispose()
