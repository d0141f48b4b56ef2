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

Builds are maintenance, never part of a search (issue 49): a search only reads whether the
index exists and, until it does, scans the user's rows exactly. A build is started by the
write side (:class:`IndexBuilder`, told by the store after a write that leaves a user past the
threshold), by a maintenance job (:func:`index_heavy_users`,
``adk_memory_kit.lifecycle.IndexUpkeepJob``) or by hand (:func:`build_user_index`). Every
build:

* runs ``CONCURRENTLY`` (writes go on), on the user's own partition when partitioned;
* holds the index's advisory lock: a second process (or task) that asks while a build runs
  skips it, so one user's index is never built twice at once;
* holds one of the server-wide heavy-work slots (memory/admission.py, default one), so at
  most that many builds, purges and other heavy jobs run on the server at a time;
* runs with bounded resources: ``maintenance_work_mem`` sized to the graph and capped by
  the host (:func:`host_build_memory_cap_mb`), no parallel maintenance workers (unless asked),
  and, where the server runs on this host, its backend at the lowest CPU priority
  (memory/backend_priority.py).

Pending rows (issue 45, memory/pending_rows.py): the index covers only ``NOT ann_pending``
rows, so a write to a user who has an index does not pay the graph insert; pending rows are
read by an exact scan beside it and folded in off the write path. An index built before this
(no ``ann_pending`` in its predicate) still serves searches and is replaced by the next build.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import os
import time
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.core.db_errors import translates_db_errors
from adk_memory_kit.core.scope import operator_scope
from adk_memory_kit.core.validation import check_positive_int
from adk_memory_kit.db.engine import behind_transaction_pooler
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.admission import DEFAULT_SLOTS, release_slot, try_take_slot
from adk_memory_kit.memory.ann_names import (
    INDEXED_ROWS,
    index_name,
    scope_literals,
)
from adk_memory_kit.memory.backend_priority import lower_backend_priority
from adk_memory_kit.memory.background_tasks import BackgroundTasks
from adk_memory_kit.memory.pending_rows import fold_all_pending
from adk_memory_kit.memory.tables import TABLE
from adk_memory_kit.memory.term_stats import USER_STATS

logger = logging.getLogger(__name__)

# Build parameters: pgvector's defaults. With ef_search = 400 (SearchOptions.ann_ef_search)
# they give recall@10 0.98 against the exact scan on the benchmark's 100k-row user
# (docs/scale.md); ef_search = 200 gives 0.87.
HNSW_M = 16
HNSW_EF_CONSTRUCTION = 64
# A denser graph for the largest users. Recall@10 at ef_search 400 with the defaults: 0.99 at
# 100k rows, 0.98 at 125k, 0.92 at 150k, 0.91 at 200k, 0.80 at 300k, 0.56-0.61 at 1M; with
# m = 32 / ef_construction = 128: 1.00, 0.995, 0.98, 0.97, 0.975, 0.80 (builds 3.5-4x as long;
# benchmarks/ann_graph.py, docs/scale.md). The threshold is the largest size measured where
# the defaults still reach 0.98; users crossing it get their index rebuilt by the next
# build_user_index / index_heavy_users.
LARGE_GRAPH_ROWS = 125_000
LARGE_HNSW_M = 32
LARGE_HNSW_EF_CONSTRUCTION = 128
# Build memory: pgvector builds the graph in maintenance_work_mem and, once it no longer fits,
# goes on inserting into the on-disk index, 2.6x slower (1M rows of 384 dimensions: 507 s at
# 512 MB against 189 s in memory, docs/scale.md). A graph element takes its vector plus ~44
# bytes per unit of m (element, level-0 and upper neighbour lists: ~700 bytes at m = 16); the
# estimate is rounded up and bounded by BUILD_MEMORY_CAP_MB unless the caller names a size.
BUILD_BYTES_PER_M = 44
BUILD_MEMORY_FLOOR_MB = 64
BUILD_MEMORY_CAP_MB = 2048
# Users with this many rows get an index (SearchOptions.heavy_user_rows, the heavy path's
# threshold, is the same by default): an exact scan of 10k vectors already costs ~65 ms on
# 2 loaded cores. A table holds one partial index per heavy user and the planner considers
# every index of the (pruned) table, so with thousands of heavy users, partition the table.
ANN_MIN_ROWS = 3_000
# How long a build that found every heavy-work slot taken waits before it tries again.
SLOT_RETRY_S = 2.0


def graph_parameters(rows: int, *, large_graph_rows: int = LARGE_GRAPH_ROWS) -> tuple[int, int]:
    """``(m, ef_construction)`` of the HNSW index of a user with ``rows`` rows."""
    if rows >= large_graph_rows:
        return LARGE_HNSW_M, LARGE_HNSW_EF_CONSTRUCTION
    return HNSW_M, HNSW_EF_CONSTRUCTION


def estimate_build_memory_mb(
    rows: int, dims: int, *, m: int = HNSW_M, cap_mb: int = BUILD_MEMORY_CAP_MB
) -> int:
    """The ``maintenance_work_mem`` (MB) that holds the HNSW graph (``m``) of ``rows`` vectors
    of ``dims`` dimensions, within [BUILD_MEMORY_FLOOR_MB, cap_mb]."""
    need = rows * (4 * dims + 8 + BUILD_BYTES_PER_M * m) * 1.1 / 2**20
    return int(min(max(math.ceil(need), BUILD_MEMORY_FLOOR_MB), max(cap_mb, BUILD_MEMORY_FLOOR_MB)))


def _checked_options(build_memory_mb: int | None, large_graph_rows: int) -> None:
    if build_memory_mb is not None:
        check_positive_int("build_memory_mb", build_memory_mb, unit="megabytes")
    check_positive_int("large_graph_rows", large_graph_rows, unit="rows")


_INDEX_STATE_SQL = text(
    "SELECT i.indisvalid AS valid, c.reloptions AS options,"
    " coalesce(pg_get_expr(i.indpred, i.indrelid), '') AS predicate"
    " FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
    " WHERE i.indexrelid = to_regclass(:n)"
)


def _built_m(options: list[str] | None) -> int:
    """The ``m`` an index was built with (pgvector's default when not stated)."""
    for option in options or []:
        key, _, value = option.partition("=")
        if key == "m" and value.isdigit():
            return int(value)
    return HNSW_M


#: What one build attempt did: ``built`` (or densified) the index; ``current``: nothing to
#: do; ``empty``: the user has no rows; ``locked``: another session is building this index;
#: ``busy``: every server-wide heavy-work slot is taken (memory/admission.py).
BuildOutcome = Literal["built", "current", "empty", "locked", "busy"]


def host_build_memory_cap_mb() -> int:
    """The most build memory on this host: an eighth of its RAM, at most
    BUILD_MEMORY_CAP_MB (BUILD_MEMORY_CAP_MB where the RAM cannot be read)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return BUILD_MEMORY_CAP_MB
    return max(BUILD_MEMORY_FLOOR_MB, min(BUILD_MEMORY_CAP_MB, total // 8 // 2**20))


@dataclass(frozen=True)
class BuildLimits:
    """The resources of one build. ``memory_mb``: its ``maintenance_work_mem`` (``None``: the
    graph's estimate, capped by :func:`host_build_memory_cap_mb`; never below the server's
    own setting); ``workers``: parallel maintenance workers (0: the build's one backend);
    ``low_priority``: run the backend at the lowest CPU priority where the server is on this
    host; ``slots``: the server-wide heavy-work slots (memory/admission.py)."""

    memory_mb: int | None = None
    workers: int = 0
    low_priority: bool = True
    slots: int = DEFAULT_SLOTS


@translates_db_errors("build_user_index")
async def build_user_index(
    engine: AsyncEngine,
    app: str,
    user: str,
    *,
    build_memory_mb: int | None = None,
    large_graph_rows: int = LARGE_GRAPH_ROWS,
    workers: int = 0,
) -> str:
    """Build (if missing) the user's partial HNSW index; returns its name.

    Returns at once (building nothing) when another session holds the index's build lock
    (:func:`try_build_user_index` says which happened). Waits for a server-wide heavy-work
    slot (memory/admission.py) while other heavy jobs hold them all, without holding a
    pooled connection meanwhile.

    Runs ``CREATE INDEX CONCURRENTLY`` on an autocommit connection, on the user's partition
    when the memory table is partitioned (an index on a partitioned parent cannot be built
    concurrently). An interrupted build leaves an invalid index, which is dropped and rebuilt.
    A user with ``large_graph_rows`` rows or more gets the denser graph
    (:func:`graph_parameters`); an index built sparser before the user grew is replaced:
    the new one is built concurrently beside it, then takes its name (searches meanwhile use
    the old one; between the drop and the rename, ~ms, they scan exactly).

    ``build_memory_mb``: the build's ``maintenance_work_mem`` for this session only. Default:
    enough to hold the user's graph (:func:`estimate_build_memory_mb`, at most
    :func:`host_build_memory_cap_mb`); never below the server's own setting. ``workers``:
    parallel maintenance workers (default none).
    """
    _checked_options(build_memory_mb, large_graph_rows)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise InvalidInputError("workers must be a whole number of parallel workers, 0 or more")
    limits = BuildLimits(memory_mb=build_memory_mb, workers=workers)
    while await build_outcome(engine, app, user, limits, large_graph_rows) == "busy":
        await asyncio.sleep(SLOT_RETRY_S)
    return index_name(app, user)


def _lock_key(name: str) -> int:
    """The advisory-lock key of one index's build (a signed 63-bit int from its name)."""
    return int(hashlib.sha256(f"adk_mem_ann_build:{name}".encode()).hexdigest()[:15], 16)


async def try_build_user_index(
    engine: AsyncEngine,
    app: str,
    user: str,
    *,
    build_memory_mb: int | None = None,
    large_graph_rows: int = LARGE_GRAPH_ROWS,
) -> bool:
    """One attempt of :func:`build_user_index` that never waits; ``True`` if this call built
    (or densified) the index, ``False`` if there was nothing to do, another session was
    building it, or no server-wide slot was free (:func:`build_outcome` says which)."""
    _checked_options(build_memory_mb, large_graph_rows)
    limits = BuildLimits(memory_mb=build_memory_mb)
    return await build_outcome(engine, app, user, limits, large_graph_rows) == "built"


async def build_outcome(
    engine: AsyncEngine,
    app: str,
    user: str,
    limits: BuildLimits | None = None,
    large_graph_rows: int = LARGE_GRAPH_ROWS,
) -> BuildOutcome:
    """One attempt at the user's index, never waiting for a lock or a slot: what it did.
    Refused on an engine behind a transaction pooler (the build holds a session of its own:
    advisory locks and ``CREATE INDEX CONCURRENTLY``)."""
    if behind_transaction_pooler(engine):
        raise InvalidInputError(
            "index builds need a session of their own: run them on an engine on the "
            "server's own URL, not a transaction pooler's (docs/scale.md, PgBouncer)"
        )
    with operator_scope():  # DDL: the table owner's work, not the user's
        return await _try_build(engine, app, user, limits or BuildLimits(), large_graph_rows)


async def _try_build(
    engine: AsyncEngine, app: str, user: str, limits: BuildLimits, large_graph_rows: int
) -> BuildOutcome:
    name = index_name(app, user)
    async with engine.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        key = {"k": _lock_key(name)}
        if not await conn.scalar(text("SELECT pg_try_advisory_lock(:k)"), key):
            logger.info("the HNSW index %s is being built by another session", name)
            return "locked"
        discard = False
        try:
            outcome, discard = await _build_locked(conn, app, user, name, limits, large_graph_rows)
        except BaseException:
            # a cancelled or failed build: the session's advisory locks must not stay on a
            # pooled connection, so the connection is discarded (the server frees them)
            await conn.invalidate()
            raise
        if discard:  # its backend was reniced: it must not serve searches (see above)
            await conn.invalidate()
        else:
            await conn.execute(text("SELECT pg_advisory_unlock(:k)"), key)
        return outcome


async def _target(conn: AsyncConnection, app: str, user: str) -> Any:
    """(target table, dims, n) of the user's rows; ``None`` when they have none."""
    return (
        await conn.execute(
            text(
                f"SELECT tableoid::regclass::text AS target, vector_dims(embedding) AS dims,"
                f" (SELECT n FROM {USER_STATS} WHERE app_name = :app AND user_id = :user) AS n"
                f" FROM {TABLE} WHERE app_name = :app AND user_id = :user LIMIT 1"
            ),
            {"app": app, "user": user},
        )
    ).first()


async def _build_locked(
    conn: AsyncConnection,
    app: str,
    user: str,
    name: str,
    limits: BuildLimits,
    large_graph_rows: int,
) -> tuple[BuildOutcome, bool]:
    """The build, under the index's advisory lock (see :func:`build_user_index`): its outcome,
    and whether the connection must be discarded afterwards."""
    found = await _target(conn, app, user)
    if found is None:
        return "empty", False  # no rows: nothing to index
    m, ef_construction = graph_parameters(found.n or 0, large_graph_rows=large_graph_rows)
    state = (await conn.execute(_INDEX_STATE_SQL, {"n": name})).first()
    if (
        state is not None
        and state.valid
        and _built_m(state.options) >= m
        and "ann_pending" in state.predicate  # else built before pending rows: replaced
    ):
        return "current", False
    slot = await try_take_slot(conn, slots=limits.slots)
    if slot is None:
        return "busy", False
    reniced = limits.low_priority and await lower_backend_priority(conn)
    if state is not None and not state.valid:
        await conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {name}"))
        state = None
    building = name if state is None else f"{name}_next"
    # a replacement left behind by an interrupted rebuild
    await conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {name}_next"))
    memory_mb = limits.memory_mb
    if memory_mb is None:
        memory_mb = estimate_build_memory_mb(
            found.n or 0, found.dims, m=m, cap_mb=host_build_memory_cap_mb()
        )
    await conn.execute(_BUILD_SETTINGS_SQL, {"kb": memory_mb * 1024, "w": str(limits.workers)})
    try:
        await conn.execute(
            text(
                f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {building} ON {found.target}"
                f" USING hnsw (embedding vector_cosine_ops)"
                f" WITH (m = {m}, ef_construction = {ef_construction})"
                f" WHERE {' AND '.join([*scope_literals(app, user), INDEXED_ROWS])}"
            )
        )
    finally:
        # the pooled connection goes back with the server's own settings
        await conn.execute(text("RESET maintenance_work_mem"))
        await conn.execute(text("RESET max_parallel_maintenance_workers"))
    if building != name:
        await conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {name}"))
        await conn.execute(text(f"ALTER INDEX {building} RENAME TO {name}"))
    await release_slot(conn, slot)
    logger.info(
        "built the partial HNSW index %s (m %d, ef_construction %d, %d MB of build memory)",
        name,
        m,
        ef_construction,
        memory_mb,
    )
    return "built", reniced


# The build's session settings: its memory (never below the server's own) and its parallel
# maintenance workers.
_BUILD_SETTINGS_SQL = text(
    "SELECT set_config('maintenance_work_mem', greatest("
    " pg_size_bytes(current_setting('maintenance_work_mem')) / 1024,"
    " CAST(:kb AS bigint))::text || 'kB', false),"
    " set_config('max_parallel_maintenance_workers', :w, false)"
)


@translates_db_errors("index_heavy_users")
async def index_heavy_users(
    engine: AsyncEngine,
    *,
    min_rows: int = ANN_MIN_ROWS,
    build_memory_mb: int | None = None,
    large_graph_rows: int = LARGE_GRAPH_ROWS,
) -> list[str]:
    """Build (or densify, see :func:`build_user_index`) the partial index of every user with
    at least ``min_rows`` rows; their names. Then fold every user's pending rows into their
    index (:func:`fold_all_pending`).

    Reads the row counts from the per-user statistics table (one index scan, no count(*)).
    ``build_memory_mb``, ``large_graph_rows``: as in :func:`build_user_index`.
    """
    _checked_options(build_memory_mb, large_graph_rows)
    with operator_scope():
        return await _index_heavy(engine, min_rows, build_memory_mb, large_graph_rows)


async def _index_heavy(
    engine: AsyncEngine, min_rows: int, build_memory_mb: int | None, large_graph_rows: int
) -> list[str]:
    async with engine.connect() as conn:
        rows = await conn.execute(
            # scale-lint: maintenance across users, reads only the statistics table
            text(f"SELECT app_name, user_id FROM {USER_STATS} WHERE n >= :m ORDER BY 1, 2"),
            {"m": min_rows},
        )
        heavy = [(r.app_name, r.user_id) for r in rows]
    names = [
        await build_user_index(
            engine,
            app,
            user,
            build_memory_mb=build_memory_mb,
            large_graph_rows=large_graph_rows,
        )
        for app, user in heavy
    ]
    await fold_all_pending(engine)
    return names


@dataclass
class IndexBuilder(BackgroundTasks[bool]):
    """Builds heavy users' partial indexes in the background, as writes make them heavy.

    :meth:`consider` is called by the write side (the store, after a write committed) with
    the user's row count and whether their index exists; it costs nothing when there is
    nothing to build. Never called by a search: a search only reads whether the index exists.
    At most one build per user runs in this process; across processes the index's advisory
    lock keeps a second build from starting, and the server-wide heavy-work slot
    (memory/admission.py) keeps builds and other heavy jobs to one at a time on the server:
    a build that finds the slot taken waits (without a connection) and tries again every
    ``slot_retry`` seconds. A failed build is retried no sooner than ``retry_after`` seconds
    later. Searches never wait for a build: until the index is valid they scan exactly.
    """

    min_rows: int = ANN_MIN_ROWS
    large_graph_rows: int = LARGE_GRAPH_ROWS
    retry_after: float = 600.0
    slot_retry: float = SLOT_RETRY_S
    limits: BuildLimits = BuildLimits()

    def __post_init__(self) -> None:
        super().__init__()
        self._densify_checked: set[tuple[str, str]] = set()
        self._failed: dict[tuple[str, str], float] = {}
        self.started = 0

    def wants(self, app: str, user: str, rows: int, has_index: bool) -> bool:
        """Whether :meth:`consider` would start a build for this user now."""
        key = (app, user)
        if rows < self.min_rows or key in self._tasks:
            return False
        # an existing index is checked once per process: too sparse for the user's size, or
        # built before pending rows (issue 45), it is replaced
        if has_index and key in self._densify_checked:
            return False
        failed = self._failed.get(key)
        return failed is None or time.monotonic() - failed >= self.retry_after

    def consider(
        self, engine: AsyncEngine, app: str, user: str, rows: int, has_index: bool
    ) -> None:
        """Start a background build if the user needs one (none yet; or, checked once per
        process, a sparser graph than their size calls for or an index built before pending
        rows) and none is running."""
        if not self.wants(app, user, rows, has_index):
            return
        key = (app, user)
        if has_index:
            self._densify_checked.add(key)
        task = asyncio.get_running_loop().create_task(self._build(engine, app, user))
        self._tasks[key] = task
        self.started += 1

    async def _build(self, engine: AsyncEngine, app: str, user: str) -> bool:
        key = (app, user)
        try:
            while True:
                outcome = await build_outcome(engine, app, user, self.limits, self.large_graph_rows)
                if outcome != "busy":
                    break
                await asyncio.sleep(self.slot_retry)  # another heavy job holds the slot
            self._failed.pop(key, None)
            if outcome in ("built", "current"):
                self._densify_checked.add(key)
            return outcome == "built"
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # logged, retried later; searches go on exactly
            self._failed[key] = time.monotonic()
            logger.warning("background HNSW build failed: %s", type(exc).__name__)
            return False
        finally:
            self._tasks.pop(key, None)
