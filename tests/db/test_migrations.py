"""Migrations as data: one statement per step, version per step, conditions.

Components and tables get unique names on the shared embedded server.
"""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from adk_memory_kit.db.migrations import (
    VERSION_TABLE,
    Step,
    migrate,
)
from adk_memory_kit.errors import SchemaMismatchError

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
    """``(step, version)``: steps applied, recorded in both columns."""
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
    assert await _version(engine, component) == (2, 2)


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


async def test_a_row_without_a_step_number_is_refused(engine):
    """Only this kit writes the version table, always with a step number: a row without one
    is not ours, and nothing runs over it."""
    component, table = _names()
    await migrate(engine, "bootstrap_" + component, [])  # the version table exists
    async with engine.begin() as conn:
        await conn.execute(
            text(f"INSERT INTO {VERSION_TABLE} (component, version) VALUES (:c, 1)"),
            {"c": component},
        )
    with pytest.raises(SchemaMismatchError, match="has no step number"):
        await migrate(engine, component, [Step(f"CREATE TABLE {table} (v text)")])
    async with engine.connect() as conn:
        assert await conn.scalar(text("SELECT to_regclass(:t)"), {"t": table}) is None
