"""Versioned schema migrations as data: per component, an ordered list of :class:`Step`.

Each step is ONE SQL statement (never split, so ``DO $$ ... $$`` blocks are safe), with an
optional condition. Step N (1-based) brings a component from step N-1 to N, and the
version table's ``step`` column records N as soon as step N ran. Steps are append-only: a
database records only how far it got, so an edited step never reaches a database that
already ran it.

A transaction-scoped advisory lock makes concurrent first starts (several workers, several
processes) safe; all pending steps of a component run in one transaction.

Older releases numbered versions by blocks of several ``;``-separated statements and read
only the ``version`` column. A row without ``step`` is one of theirs: the step that
completed old version N carries ``legacy=N``, so the database continues from there (a
component whose steps carry no ``legacy`` mark kept its numbering: one block, one step).
``version`` keeps meaning the old block number (the highest ``legacy`` mark reached), so an
older release running beside this one during a rolling upgrade still reads it correctly.
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
_VERSION_TABLE_SHAPE = text(
    "SELECT to_regclass(:t) IS NOT NULL AS has_table, EXISTS (SELECT 1 FROM pg_attribute"
    " WHERE attrelid = to_regclass(:t) AND attname = 'step' AND NOT attisdropped) AS has_step"
)
# A version table created by an older release has no ``step``: its rows are legacy.
_ADD_STEP = text(f"ALTER TABLE {VERSION_TABLE} ADD COLUMN IF NOT EXISTS step int")
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
    shape = (await conn.execute(_VERSION_TABLE_SHAPE, {"t": VERSION_TABLE})).one()
    if not shape.has_table:
        await conn.execute(_CREATE_VERSION_TABLE)
    elif not shape.has_step:
        await conn.execute(_ADD_STEP)
    return (await conn.execute(_READ_VERSION, {"c": component})).first()


def _marked(steps: Sequence[Step]) -> bool:
    return any(s.legacy is not None for s in steps)


def translate_legacy(component: str, steps: Sequence[Step], version: int) -> int:
    """The step count that old block version ``version`` of ``component`` corresponds to."""
    if version == 0 or not _marked(steps):
        return version
    for index, step in enumerate(steps, start=1):
        if step.legacy == version:
            return index
    raise SchemaMismatchError(
        f"the database holds {component} schema version {version} (old numbering), which "
        "this adk-memory-kit does not know; upgrade adk-memory-kit"
    )


def legacy_version(steps: Sequence[Step], applied: int) -> int:
    """The old block number of a database that ran ``steps[:applied]`` (what older
    releases read from ``version``)."""
    if not _marked(steps):
        return applied
    return max((s.legacy for s in steps[:applied] if s.legacy is not None), default=0)


async def lock_and_read_version(
    conn: AsyncConnection, component: str, steps: Sequence[StepLike]
) -> int | None:
    """Take the migration lock and return ``component``'s version (``None`` if new).

    A row in the old numbering is translated and rewritten. Raises if the database is newer
    than ``steps``. Callers check recorded attributes (:func:`recorded_embedding`), then call
    :func:`run_steps` in the same transaction. The transaction runs in operator mode from
    here on (:func:`~adk_memory_kit.db.rls.elevate`), whoever's call opened it.
    """
    await elevate(conn)
    await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
    row = await _version_row(conn, component)
    if row is None:
        return None
    all_steps = as_steps(steps)
    current = row.step
    if current is None:
        current = translate_legacy(component, all_steps, row.version)
        await conn.execute(
            _RECORD_VERSION,
            {
                "c": component,
                "v": legacy_version(all_steps, min(current, len(all_steps))),
                "s": current,
                "m": row.embedding_model,
                "d": row.embedding_dim,
            },
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
        await conn.execute(
            _RECORD_VERSION, {**params, "s": number, "v": legacy_version(all_steps, number)}
        )
    if from_version == 0 and not all_steps:
        await conn.execute(_RECORD_VERSION, {**params, "s": 0, "v": 0})
    await protect_tables(conn)  # row-level security on the kit tables that exist now


async def migrate(engine: AsyncEngine, component: str, steps: Sequence[StepLike]) -> None:
    """Bring ``component``'s tables up to date (for components without extra checks)."""
    async with engine.begin() as conn:
        version = await lock_and_read_version(conn, component, steps)
        await run_steps(conn, component, steps, version or 0)
