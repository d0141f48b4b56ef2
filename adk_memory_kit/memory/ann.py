"""Approximate nearest-neighbour indexes for heavy users: one partial HNSW index per user.

A light user's dense list is an exact scan of their rows (recall 1.0; the (app_name,
user_id) primary-key prefix bounds it). A shared HNSW index over all users would post-filter
by user (few rows back, or slow iterative scans) and slow every insert; a *partial* index
``WHERE app_name = '<app>' AND user_id = '<user>'`` holds only that user's rows, so its graph
search never filters out other users, and only that user's inserts pay for it.

The planner picks a partial index only when the query names the same constants, so the
heavy-user search (memory/search.py) puts the app and user into its SQL text as quoted
literals (besides the bound parameters). Index names are derived from a hash of the app and
user, so the search finds out whether a user has one with ``to_regclass`` (no registry).

Indexes are built by :func:`build_user_index` / :func:`index_heavy_users` (run them from a
maintenance job, e.g. after the idle ingest job): building is ``CONCURRENTLY`` (writes go on),
on the user's own partition when the table is partitioned.
"""

from __future__ import annotations

import hashlib
import logging

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit.memory.schema import TABLE
from adk_memory_kit.memory.term_stats import USER_STATS

logger = logging.getLogger(__name__)

# Build parameters: pgvector's defaults. With ef_search = 400 (SearchOptions.ann_ef_search)
# they give recall@10 0.98 against the exact scan on the benchmark's 100k-row user
# (docs/scale.md); ef_search = 200 gives 0.87.
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64
# Users with this many rows get an index (SearchOptions.heavy_user_rows, the heavy path's
# threshold, is the same by default): an exact scan of 10k vectors already costs ~65 ms on
# 2 loaded cores. A table holds one partial index per heavy user and the planner considers
# every index of the (pruned) table, so with thousands of heavy users, partition the table.
ANN_MIN_ROWS = 3_000


def index_name(app: str, user: str) -> str:
    """The partial index name of one (app, user): stable, short, free of user text."""
    digest = hashlib.sha256(f"{app}\x1f{user}".encode()).hexdigest()[:20]
    return f"adk_mem_ann_{digest}"


def sql_literal(value: str) -> str:
    """``value`` as a standard SQL string literal (standard_conforming_strings is on), with
    ``:`` escaped for SQLAlchemy's ``text()`` so a colon never reads as a bind parameter."""
    return "'" + value.replace("'", "''").replace(":", "\\:") + "'"


def scope_literals(app: str, user: str) -> list[str]:
    """The partial-index predicate of one user: ``app_name = '...'``, ``user_id = '...'``."""
    return [f"app_name = {sql_literal(app)}", f"user_id = {sql_literal(user)}"]


async def build_user_index(engine: AsyncEngine, app: str, user: str) -> str:
    """Build (if missing) the user's partial HNSW index; returns its name.

    Runs ``CREATE INDEX CONCURRENTLY`` on an autocommit connection, on the user's partition
    when the memory table is partitioned (an index on a partitioned parent cannot be built
    concurrently). An interrupted build leaves an invalid index, which is dropped and rebuilt.
    """
    name = index_name(app, user)
    async with engine.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        valid = await conn.scalar(
            text("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(:n)"),
            {"n": name},
        )
        if valid:
            return name
        if valid is not None:
            await conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {name}"))
        target = await conn.scalar(
            text(
                f"SELECT tableoid::regclass::text FROM {TABLE}"
                " WHERE app_name = :app AND user_id = :user LIMIT 1"
            ),
            {"app": app, "user": user},
        )
        if target is None:
            return name  # no rows: nothing to index
        await conn.execute(text("SET maintenance_work_mem = '512MB'"))
        await conn.execute(
            text(
                f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON {target}"
                f" USING hnsw (embedding vector_cosine_ops)"
                f" WITH (m = {HNSW_M}, ef_construction = {HNSW_EF_CONSTRUCTION})"
                f" WHERE {' AND '.join(scope_literals(app, user))}"
            )
        )
        logger.info("built the partial HNSW index %s", name)
    return name


async def index_heavy_users(engine: AsyncEngine, *, min_rows: int = ANN_MIN_ROWS) -> list[str]:
    """Build the partial index of every user with at least ``min_rows`` rows; their names.

    Reads the row counts from the per-user statistics table (one index scan, no count(*)).
    """
    async with engine.connect() as conn:
        rows = await conn.execute(
            # scale-lint: maintenance across users, reads only the statistics table
            text(f"SELECT app_name, user_id FROM {USER_STATS} WHERE n >= :m ORDER BY 1, 2"),
            {"m": min_rows},
        )
        heavy = [(r.app_name, r.user_id) for r in rows]
    return [await build_user_index(engine, app, user) for app, user in heavy]
