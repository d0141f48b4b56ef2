"""Read every column of every kit table (found in the database catalog) for given strings."""

from __future__ import annotations

import re

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


async def table_texts(
    db_url: str, *, include_adk: bool = False, app: str | None = None
) -> dict[str, str]:
    """``schema.table`` -> every row's text form (all columns: arrays, JSON, tsvector
    included), lower-cased and joined: one read per table. ``app``: only rows whose text
    holds it (an app name is in every kit row)."""
    found = await tables(db_url, include_adk=include_adk)
    engine = make_engine(db_url)
    out: dict[str, str] = {}
    try:
        async with engine.connect() as conn:
            for schema, table in found:
                where = " WHERE strpos(t::text, :app) > 0" if app else ""
                sql = f'SELECT t::text FROM "{schema}"."{table}" t{where}'
                rows = await conn.execute(text(sql), {"app": app} if app else {})
                out[f"{schema}.{table}"] = "\n".join(r[0] for r in rows).lower()
    finally:
        await engine.dispose()
    return out


async def leaks(
    db_url: str, secrets: list[str], *, include_adk: bool = False, app: str | None = None
) -> list[str]:
    """``schema.table#i`` for every table any of whose columns holds secret ``i`` verbatim
    (compared lower-cased, so a ``tsvector`` lexeme of a secret counts too)."""
    texts = await table_texts(db_url, include_adk=include_adk, app=app)
    return [
        f"{name}#{i}"
        for name, blob in texts.items()
        for i, secret in enumerate(secrets)
        if _holds(blob, secret.lower())
    ]


def _holds(blob: str, secret: str) -> bool:
    """A short secret (a PIN, a CVV) counts only as a whole token: "279" inside a float of an
    embedding or a timestamp is not that CVV."""
    if len(secret) >= 8:
        return secret in blob
    return re.search(rf"(?<![0-9a-z]){re.escape(secret)}(?![0-9a-z])", blob) is not None
