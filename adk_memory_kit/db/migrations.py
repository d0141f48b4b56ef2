"""Versioned schema migrations as data: per component, an ordered list of :class:`Step`.

Each step is ONE SQL statement (never split, so ``DO $$ ... $$`` blocks are safe), with an
optional condition. Step N (1-based) brings a component from step N-1 to N, and the
version table's ``step`` column records N as soon as step N ran. Steps are append-only: a
database records only how far it got, so an edited step never reaches a database that
already ran it.

A transaction-scoped advisory lock makes concurrent first starts (several workers, several
processes) safe; all pending steps of a component run in one transaction.

The version table's ``version`` column holds the same number as ``step`` (it is ``NOT NULL``
in the table's first shape, so it stays).
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.db.rls import elevate, protect_tables
from adk_memory_kit.db.steps import Step, StepLike, as_steps
from adk_memory_kit.errors import SchemaMismatchError

VERSION_TABLE = "adk_memory_kit_schema"
_MIGRATION_LOCK = 0x4D454D4B


_CREATE_VERSION_TABLE = text(
    f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} ("
    " component text PRIMARY KEY, version int NOT NULL,"
    " embedding_model text, embedding_dim int,"
    " updated_at timestamptz NOT NULL DEFAULT now(), step int)"
)
_HAS_VERSION_TABLE = text("SELECT to_regclass(:t) IS NOT NULL")
_READ_VERSION = text(
    f"SELECT version, step, embedding_model, embedding_dim FROM {VERSION_TABLE}"
    " WHERE component = :c"
)
_RECORD_VERSION = text(
    f"INSERT INTO {VERSION_TABLE} (component, version, step, embedding_model, embedding_dim)"
    " VALUES (:c, :v, :s, :m, :d) ON CONFLICT (component) DO UPDATE"
    " SET version = EXCLUDED.version, step = EXCLUDED.step, updated_at = now()"
)


async def _version_row(conn: AsyncConnection, component: str) -> Row | None:
    if not await conn.scalar(_HAS_VERSION_TABLE, {"t": VERSION_TABLE}):
        await conn.execute(_CREATE_VERSION_TABLE)
    return (await conn.execute(_READ_VERSION, {"c": component})).first()


async def lock_and_read_version(
    conn: AsyncConnection, component: str, steps: Sequence[StepLike]
) -> int | None:
    """Take the migration lock and return ``component``'s version (``None`` if new).

    Raises if the database is newer than ``steps``. Callers check recorded attributes
    (:func:`recorded_embedding`), then call :func:`run_steps` in the same transaction. The
    transaction runs in operator mode from here on (:func:`~adk_memory_kit.db.rls.elevate`),
    whoever's call opened it.
    """
    await elevate(conn)
    await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
    row = await _version_row(conn, component)
    if row is None:
        return None
    current = row.step
    if current is None:
        raise SchemaMismatchError(
            f"the database's {VERSION_TABLE} row for {component} has no step number; it was "
            "not written by this adk-memory-kit"
        )
    if current > len(steps):
        raise SchemaMismatchError(
            f"the database holds {component} schema step {current}, newer than this "
            f"adk-memory-kit knows ({len(steps)}); upgrade adk-memory-kit"
        )
    return current


async def recorded_embedding(
    conn: AsyncConnection, component: str
) -> tuple[str | None, int | None]:
    """The ``(embedding_model, embedding_dim)`` recorded for ``component``."""
    row = (await conn.execute(_READ_VERSION, {"c": component})).first()
    return (None, None) if row is None else (row.embedding_model, row.embedding_dim)


async def run_steps(
    conn: AsyncConnection,
    component: str,
    steps: Sequence[StepLike],
    from_version: int,
    *,
    embedding_model: str | None = None,
    embedding_dim: int | None = None,
) -> None:
    """Apply ``steps[from_version:]``, recording the version after each step, then put
    the row-level security policy on the kit tables (:mod:`adk_memory_kit.db.rls`).

    The embedding attributes are recorded with the first version row of ``component``.
    """
    all_steps = as_steps(steps)
    params = {"c": component, "m": embedding_model, "d": embedding_dim}
    for number, step in enumerate(all_steps[from_version:], start=from_version + 1):
        if step.only_if is None or await conn.scalar(text(f"SELECT ({step.only_if})")):
            await conn.execute(text(step.sql))
        await conn.execute(_RECORD_VERSION, {**params, "s": number, "v": number})
    if from_version == 0 and not all_steps:
        await conn.execute(_RECORD_VERSION, {**params, "s": 0, "v": 0})
    await protect_tables(conn)  # row-level security on the kit tables that exist now


async def migrate(engine: AsyncEngine, component: str, steps: Sequence[StepLike]) -> None:
    """Bring ``component``'s tables up to date (for components without extra checks)."""
    async with engine.begin() as conn:
        version = await lock_and_read_version(conn, component, steps)
        await run_steps(conn, component, steps, version or 0)


__all__ = [
    "VERSION_TABLE",
    "Step",
    "StepLike",
    "lock_and_read_version",
    "migrate",
    "recorded_embedding",
    "run_steps",
]
