"""Kit homes: the kit's per-user tables, found from the database catalog.

Every kit table that holds per-user data carries ``COMMENT ON TABLE <t> IS 'adk_memory_kit
home: <name>'`` (added by a migration step built with :func:`home_comment_step`) and the
columns ``app_name`` and ``user_id``. :func:`discover` reads them from ``pg_description``,
so ``forget_user`` and ``data_map`` reach every home the database holds (the kit's own and
those later packages add) without being told about them.

This module owns the catalog query and the generic per-home statements (count and delete,
keyed by ``app_name`` and ``user_id`` equality only).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from adk_memory_kit.db.steps import Step

HOME_COMMENT_PREFIX = "adk_memory_kit home: "

_DISCOVER = text(
    f"""
SELECT n.nspname AS schema_name, c.relname AS table_name,
       btrim(substr(d.description, {len(HOME_COMMENT_PREFIX) + 1})) AS home,
       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid
               AND a.attname = 'app_name' AND NOT a.attisdropped)
       AND EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid
               AND a.attname = 'user_id' AND NOT a.attisdropped) AS keyed
FROM pg_description d
JOIN pg_class c ON c.oid = d.objoid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE d.classoid = 'pg_catalog.pg_class'::regclass AND d.objsubid = 0
  AND c.relkind IN ('r', 'p')
  AND d.description LIKE 'adk\\_memory\\_kit home: %'
ORDER BY 3, 1, 2"""
)


def home_comment_step(table: str, name: str) -> Step:
    """The migration step marking ``table`` as the kit home ``name``."""
    if "'" in name or "'" in table:
        raise ValueError("home and table names must not contain quotes")
    return Step(f"COMMENT ON TABLE {table} IS '{HOME_COMMENT_PREFIX}{name}'")


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class KitHome:
    """One marked table: its home name, where it is, and whether it has the scope columns."""

    name: str
    schema_name: str
    table_name: str
    keyed: bool = True

    @property
    def qualified(self) -> str:
        """``schema.table``, quoted for SQL."""
        return f"{_ident(self.schema_name)}.{_ident(self.table_name)}"

    @property
    def label(self) -> str:
        """``schema.table`` for reports (``public.`` left out)."""
        return (
            self.table_name
            if self.schema_name == "public"
            else f"{self.schema_name}.{self.table_name}"
        )

    async def count(self, conn: AsyncConnection, app_name: str, user_id: str) -> int:
        """How many rows of the user this home holds."""
        sql = text(
            f"SELECT count(*) FROM {self.qualified} WHERE app_name = :app AND user_id = :user"
        )
        return int(await conn.scalar(sql, {"app": app_name, "user": user_id}) or 0)

    async def delete(self, conn: AsyncConnection, app_name: str, user_id: str) -> int:
        """Delete the user's rows; the number deleted."""
        sql = text(f"DELETE FROM {self.qualified} WHERE app_name = :app AND user_id = :user")
        result = await conn.execute(sql, {"app": app_name, "user": user_id})
        return result.rowcount or 0


async def discover(conn: AsyncConnection) -> list[KitHome]:
    """Every table of the database marked as a kit home, ordered by home name.

    A marked table without ``app_name`` and ``user_id`` columns comes back with
    ``keyed=False``: it cannot be forgotten by key, and reports say so.
    """
    rows = await conn.execute(_DISCOVER)
    return [KitHome(r.home, r.schema_name, r.table_name, bool(r.keyed)) for r in rows]


#: ADK's own ``DatabaseSessionService`` table of sessions (not a kit home: forget_user
#: deletes sessions through the session service), read for its app names only.
ADK_SESSIONS_TABLE = "sessions"


async def app_names(conn: AsyncConnection) -> list[str]:
    """Every app name found in the data: the keyed kit homes and ADK's sessions table (when
    this database holds one), sorted. An app with a single row anywhere is listed."""
    tables = [h.qualified for h in await discover(conn) if h.keyed]
    if await conn.scalar(text(f"SELECT to_regclass('{ADK_SESSIONS_TABLE}') IS NOT NULL")):
        tables.append(_ident(ADK_SESSIONS_TABLE))
    if not tables:
        return []
    union = " UNION ".join(f"SELECT DISTINCT app_name FROM {t}" for t in tables)
    return [str(r[0]) for r in await conn.execute(text(f"{union} ORDER BY 1"))]
