"""Read every column of every kit table (found in the database catalog) for given strings."""

from __future__ import annotations

from sqlalchemy import text

from adk_memory_kit.db.engine import make_engine

#: ADK's own session tables: the kit does not write them (see docs/privacy.md).
ADK_TABLES = frozenset({"sessions", "events", "app_states", "user_states", "adk_internal_metadata"})


async def tables(db_url: str, *, include_adk: bool = False) -> list[tuple[str, str]]:
    """``(schema, table)`` of every ordinary or partitioned table outside the system schemas."""
    engine = make_engine(db_url)
    try:
        async with engine.connect() as conn:
            rows = await conn.execute(
                text(
                    "SELECT n.nspname, c.relname FROM pg_class c"
                    " JOIN pg_namespace n ON n.oid = c.relnamespace"
                    " WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition"
                    " AND n.nspname NOT IN ('pg_catalog', 'information_schema')"
                    " AND n.nspname NOT LIKE 'pg_toast%'"
                )
            )
            found = [(r[0], r[1]) for r in rows]
    finally:
        await engine.dispose()
    return [t for t in found if include_adk or t[1] not in ADK_TABLES]


async def leaks(db_url: str, secrets: list[str], *, include_adk: bool = False) -> list[str]:
    """``schema.table`` names (with the secret's index) whose any column holds a secret.

    Every column is cast to text (a row's text form covers arrays, JSON, tsvector), so no
    column is missed; a tsvector lexeme of a secret is caught by its lower-cased form.
    """
    engine = make_engine(db_url)
    out: list[str] = []
    try:
        async with engine.connect() as conn:
            for schema, table in await tables(db_url, include_adk=include_adk):
                name = f'"{schema}"."{table}"'
                for i, secret in enumerate(secrets):
                    hit = await conn.scalar(
                        text(
                            f"SELECT count(*) FROM {name} t"
                            " WHERE strpos(lower(t::text), lower(:s)) > 0"
                        ),
                        {"s": secret},
                    )
                    if hit:
                        out.append(f"{schema}.{table}#{i}")
    finally:
        await engine.dispose()
    return out
