"""Versioned schema migrations: per component, an ordered list of SQL steps.

The version table records, per component, how many steps have run. Steps are append-only:
step N brings a component from version N-1 to N. A transaction-scoped advisory lock makes
concurrent first starts (several workers, several processes) safe.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import text
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.errors import SchemaMismatchError

VERSION_TABLE = "adk_memory_kit_schema"
_MIGRATION_LOCK = 0x4D454D4B


async def _version_row(conn: AsyncConnection, component: str) -> Row | None:
    await conn.execute(
        text(
            f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} ("
            " component text PRIMARY KEY, version int NOT NULL,"
            " embedding_model text, embedding_dim int,"
            " updated_at timestamptz NOT NULL DEFAULT now())"
        )
    )
    result = await conn.execute(
        text(
            f"SELECT version, embedding_model, embedding_dim FROM {VERSION_TABLE}"
            " WHERE component = :c"
        ),
        {"c": component},
    )
    return result.first()


async def lock_and_read_version(
    conn: AsyncConnection, component: str, steps: Sequence[str | tuple[str, ...]]
) -> Row | None:
    """Take the migration lock and return ``component``'s version row (``None`` if new).

    Raises if the database is newer than ``steps``. Callers check recorded attributes (such
    as the embedding dimension), then call :func:`run_steps` in the same transaction.
    """
    await conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _MIGRATION_LOCK})
    row = await _version_row(conn, component)
    current = row.version if row else 0
    if current > len(steps):
        raise SchemaMismatchError(
            f"the database holds {component} schema version {current}, newer than this "
            f"adk-memory-kit knows ({len(steps)}); upgrade adk-memory-kit"
        )
    return row


async def run_steps(
    conn: AsyncConnection,
    component: str,
    steps: Sequence[str | tuple[str, ...]],
    from_version: int,
    *,
    embedding_model: str | None = None,
    embedding_dim: int | None = None,
) -> None:
    """Apply ``steps[from_version:]`` and record the new version.

    A string step may hold several statements separated by ``;`` (no ``;`` inside literals);
    a tuple step holds one statement per string, run as written (function bodies may hold ``;``).
    """
    for step in steps[from_version:]:
        statements = step if isinstance(step, tuple) else step.split(";")
        for statement in filter(str.strip, statements):
            await conn.execute(text(statement))
    await conn.execute(
        text(
            f"INSERT INTO {VERSION_TABLE} (component, version, embedding_model, embedding_dim)"
            " VALUES (:c, :v, :m, :d) ON CONFLICT (component) DO UPDATE"
            " SET version = EXCLUDED.version, updated_at = now()"
        ),
        {"c": component, "v": len(steps), "m": embedding_model, "d": embedding_dim},
    )


async def migrate(engine: AsyncEngine, component: str, steps: Sequence[str]) -> None:
    """Bring ``component``'s tables up to date (for components without extra checks)."""
    async with engine.begin() as conn:
        row = await lock_and_read_version(conn, component, steps)
        await run_steps(conn, component, steps, row.version if row else 0)
