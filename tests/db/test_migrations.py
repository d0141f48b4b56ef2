"""Migrations as data: one statement per step, version per step, conditions, old numbering.

Components and tables get unique names on the shared embedded server; the version-table
upgrade runs on a fresh database with the version table as older releases created it.
"""

from __future__ import annotations

import uuid

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from adk_memory_kit.db.migrations import (
    VERSION_TABLE,
    Step,
    legacy_version,
    migrate,
    translate_legacy,
)
from adk_memory_kit.db.rls import operator_begin, operator_connect
from adk_memory_kit.errors import SchemaMismatchError
from adk_memory_kit.memory import schema as memory_schema
from adk_memory_kit.memory.service import PgVectorMemoryService

pytestmark = pytest.mark.slow  # Postgres-heavy


@pytest.fixture
async def engine(db_url):
    eng = create_async_engine(db_url)
    yield eng
    await eng.dispose()


def _names() -> tuple[str, str]:
    tag = uuid.uuid4().hex[:10]
    return f"test_mig_{tag}", f"test_mig_table_{tag}"


async def _version(engine, component: str) -> tuple[int, int] | None:
    """``(step, version)``: steps applied, and the old block number older releases read."""
    async with engine.connect() as conn:
        row = (
            await conn.execute(
                text(f"SELECT step, version FROM {VERSION_TABLE} WHERE component = :c"),
                {"c": component},
            )
        ).first()
    return None if row is None else (row.step, row.version)


async def _values(engine, table: str) -> list[str]:
    async with engine.connect() as conn:
        return list(await conn.scalars(text(f"SELECT v FROM {table} ORDER BY v")))


async def test_a_do_block_with_semicolons_is_one_step(engine):
    component, table = _names()
    steps = [
        Step(f"CREATE TABLE {table} (v text)"),
        Step(
            f"""DO $$
            BEGIN
                INSERT INTO {table} VALUES ('a');
                INSERT INTO {table} VALUES ('b');
            END $$"""
        ),
    ]
    await migrate(engine, component, steps)
    assert await _values(engine, table) == ["a", "b"]
    assert await _version(engine, component) == (2, 2)  # unmarked steps: the same numbers


async def test_only_the_new_steps_run_and_each_is_recorded(engine):
    component, table = _names()
    steps = [Step(f"CREATE TABLE {table} (v text)"), Step(f"INSERT INTO {table} VALUES ('one')")]
    await migrate(engine, component, steps)
    await migrate(engine, component, steps)  # nothing to do: no second 'one'
    steps.append(Step(f"INSERT INTO {table} VALUES ('two')"))
    await migrate(engine, component, steps)
    assert await _values(engine, table) == ["one", "two"]
    assert await _version(engine, component) == (3, 3)


async def test_a_step_whose_condition_is_false_is_skipped_but_counted(engine):
    component, table = _names()
    missing = (
        "NOT EXISTS (SELECT 1 FROM information_schema.columns"
        f" WHERE table_name = '{table}' AND column_name = 'w')"
    )
    steps = [
        Step(f"CREATE TABLE {table} (v text, w int)"),
        Step(f"ALTER TABLE {table} ADD COLUMN w int", only_if=missing),  # would fail if run
        Step(f"INSERT INTO {table} (v) VALUES ('after')", only_if="true"),
    ]
    await migrate(engine, component, steps)
    assert await _values(engine, table) == ["after"]
    assert await _version(engine, component) == (3, 3)


async def test_a_failing_step_rolls_back_the_whole_run(engine):
    component, table = _names()
    steps = [Step(f"CREATE TABLE {table} (v text)"), Step("SELECT no_such_function()")]
    with pytest.raises(Exception, match="no_such_function"):
        await migrate(engine, component, steps)
    assert await _version(engine, component) is None
    async with engine.connect() as conn:
        assert await conn.scalar(text("SELECT to_regclass(:t)"), {"t": table}) is None


async def test_a_database_newer_than_the_code_is_refused(engine):
    component, table = _names()
    await migrate(engine, component, [Step(f"CREATE TABLE {table} (v text)"), Step("SELECT 1")])
    with pytest.raises(SchemaMismatchError, match="step 2, newer than this adk-memory-kit knows"):
        await migrate(engine, component, [Step(f"CREATE TABLE {table} (v text)")])


def test_old_block_versions_translate_to_the_step_that_ended_them():
    steps = [Step("a"), Step("b", legacy=1), Step("c"), Step("d"), Step("e", legacy=2), Step("f")]
    assert [translate_legacy("x", steps, v) for v in (0, 1, 2)] == [0, 2, 5]
    assert [legacy_version(steps, n) for n in range(7)] == [0, 0, 1, 1, 1, 2, 2]
    with pytest.raises(SchemaMismatchError, match="old numbering"):
        translate_legacy("x", steps, 3)
    plain = [Step("a"), Step("b")]  # no marks: the numbering did not change
    assert translate_legacy("x", plain, 2) == 2
    assert legacy_version(plain, 2) == 2


async def test_an_old_numbered_row_continues_after_its_last_block(engine):
    component, table = _names()
    steps = [
        Step(f"CREATE TABLE {table} (v text)"),
        Step(f"INSERT INTO {table} VALUES ('old')", legacy=1),
        Step(f"INSERT INTO {table} VALUES ('new')"),
    ]
    async with engine.begin() as conn:  # as an older release left it: block 1 done
        await conn.execute(text(f"CREATE TABLE {table} (v text)"))
        await conn.execute(text(f"INSERT INTO {table} VALUES ('old')"))
    await migrate(engine, "bootstrap_" + component, [])  # the version table exists
    async with engine.begin() as conn:
        await conn.execute(
            text(f"INSERT INTO {VERSION_TABLE} (component, version) VALUES (:c, 1)"),
            {"c": component},
        )
    await migrate(engine, component, steps)
    assert await _values(engine, table) == ["new", "old"]
    assert await _version(engine, component) == (3, 1)  # older releases still read 1


@pytest.fixture
async def fresh_db(db_url):
    """A new, empty database on the embedded server; dropped afterwards."""
    name = f"mig_{uuid.uuid4().hex[:10]}"
    admin = create_async_engine(db_url, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield make_url(db_url).set(database=name).render_as_string(hide_password=False)
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await admin.dispose()


async def test_a_memory_database_of_the_old_numbering_upgrades_and_works(fresh_db, embedder):
    """The version table as older releases created it (no ``numbering``), the memory tables
    at old version 2 (two blocks of statements), with a stored item: the current code
    translates the version, runs nothing twice, and reads and writes the table.
    """
    steps = memory_schema._steps(embedder.dim)
    ends = [i for i, s in enumerate(steps) if s.legacy]
    old_engine = create_async_engine(fresh_db)
    try:
        async with operator_begin(old_engine) as conn:
            await conn.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
            await conn.execute(
                text(
                    f"CREATE TABLE {VERSION_TABLE} (component text PRIMARY KEY,"
                    " version int NOT NULL, embedding_model text, embedding_dim int,"
                    " updated_at timestamptz NOT NULL DEFAULT now())"
                )
            )
            for step in steps[: ends[-1] + 1]:
                await conn.execute(text(step.sql))
            await conn.execute(
                text(
                    f"INSERT INTO {VERSION_TABLE} (component, version, embedding_model,"
                    " embedding_dim) VALUES ('memory', 2, :m, :d)"
                ),
                {"m": embedder.model_id, "d": embedder.dim},
            )
    finally:
        await old_engine.dispose()

    memory = PgVectorMemoryService(fresh_db, embedder=embedder)
    try:
        entry = MemoryEntry(
            content=types.Content(role="user", parts=[types.Part(text="the cat is called Miso")])
        )
        await memory.add_memory(app_name="old_app", user_id="u", memories=[entry])
        found = await memory.search_memory(app_name="old_app", user_id="u", query="cat name")
        assert any("Miso" in (m.content.parts[0].text or "") for m in found.memories)
        # all steps recorded; ``version`` still says 2, so an older release beside this one
        # (a rolling upgrade) keeps working
        assert await _version(memory.engine, "memory") == (len(steps), 2)
        async with operator_connect(memory.engine) as conn:
            marks = await conn.execute(
                text(
                    "SELECT obj_description(CAST(t AS regclass)) FROM"
                    " unnest(ARRAY['adk_memory_items', 'adk_memory_session_snapshots']) AS t"
                )
            )
            assert [m[0] for m in marks] == [
                "adk_memory_kit home: memory_items",
                "adk_memory_kit home: session_snapshots",
            ]
    finally:
        await memory.close()
