"""A user's search statistics two ways: as the statistics tables hold them, and recomputed
from the memory table (tests compare them after every kind of write)."""

from __future__ import annotations

from sqlalchemy import text

from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.memory.term_stats import TERM_STATS, USER_STATS


async def recounted_stats(memory, app: str, user: str) -> tuple[int, int, dict[str, int]]:
    """(n, total_len, {lexeme: df}) recomputed from the memory table."""
    async with operator_connect(memory.engine) as conn:
        row = (
            await conn.execute(
                text(
                    "SELECT count(*) AS n, coalesce(sum(search_len), 0) AS total"
                    " FROM adk_memory_items WHERE app_name = :a AND user_id = :u"
                ),
                {"a": app, "u": user},
            )
        ).one()
        dfs = await conn.execute(
            text(
                "SELECT l.lexeme, count(*) AS df FROM adk_memory_items t"
                " CROSS JOIN LATERAL unnest(tsvector_to_array(t.tsv_en)) AS l(lexeme)"
                " WHERE t.app_name = :a AND t.user_id = :u GROUP BY 1"
            ),
            {"a": app, "u": user},
        )
        return row.n, row.total, {r.lexeme: r.df for r in dfs}


async def stored_stats(memory, app: str, user: str) -> tuple[int, int, dict[str, int]]:
    """(n, total_len, {lexeme: df}) as the statistics tables hold them."""
    async with operator_connect(memory.engine) as conn:
        row = (
            await conn.execute(
                text(f"SELECT n, total_len FROM {USER_STATS} WHERE app_name = :a AND user_id = :u"),
                {"a": app, "u": user},
            )
        ).one_or_none()
        dfs = await conn.execute(
            text(f"SELECT lexeme, df FROM {TERM_STATS} WHERE app_name = :a AND user_id = :u"),
            {"a": app, "u": user},
        )
        n, total = (row.n, row.total_len) if row else (0, 0)
        return n, total, {r.lexeme: r.df for r in dfs}
