"""Pending rows (issue 45): rows written to a user with an HNSW index wait outside it.

An insert into a user's HNSW graph costs ~1,400 buffer reads, so a write to a user who has an
index does not pay it. The write marks its rows ``ann_pending`` (the upsert computes the flag
from whether the user's index exists, memory/items_sql.py) and the index covers only
``NOT ann_pending`` rows (memory/ann.py); a search reads the indexed rows through HNSW and the
pending ones by an exact scan (a partial btree on ``ann_pending`` finds them), one list
(memory/search_sql.py). :func:`fold_pending` moves pending rows into the index in chunks
(clearing the flag inserts each into the graph), off the write path: a :class:`PendingFolder`
folds a user's rows once their writes pause, ``index_heavy_users`` folds every user's, and a
write that leaves more than :data:`PENDING_CAP` pending folds the excess itself, so the exact
scan stays bounded.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.core.db_errors import translates_db_errors
from adk_memory_kit.core.scope import operator_scope, user_scope
from adk_memory_kit.core.validation import check_positive_int
from adk_memory_kit.memory.ann_names import index_name
from adk_memory_kit.memory.background_tasks import BackgroundTasks
from adk_memory_kit.memory.tables import TABLE
from adk_memory_kit.memory.term_stats import USER_STATS

logger = logging.getLogger(__name__)

# Pending rows (see the module's docstring). The most a user keeps pending: a write leaving
# more folds the excess itself, so a search's exact scan of them stays a few ms (an exact
# scan of 10k rows costs ~65 ms). Folds run in chunks of FOLD_CHUNK rows, one transaction
# each (a chunk holds its rows' locks for ~0.3 s), once the user's writes have paused for
# FOLD_IDLE_S seconds.
PENDING_CAP = 2_000
FOLD_CHUNK = 100
FOLD_IDLE_S = 1.0

# The user's row count, whether their index exists and how many rows wait to be folded in
# (counted through the partial btree on ann_pending, at most :most).
_WRITE_PROBE_SQL = text(
    f"SELECT (SELECT n FROM {USER_STATS} WHERE app_name = :app AND user_id = :user) AS n,"
    " to_regclass(:ix) IS NOT NULL AS ann,"
    f" (SELECT count(*) FROM (SELECT 1 FROM {TABLE} WHERE app_name = :app AND user_id = :user"
    " AND ann_pending LIMIT :most) p) AS pending"
)

# One chunk of the user's pending rows into the index: clearing the flag makes each row's new
# version an index entry (rows a writer holds are skipped, taken by a later chunk).
_FOLD_SQL = text(
    f"""
WITH c AS (
    SELECT id FROM {TABLE}
    WHERE app_name = :app AND user_id = :user AND ann_pending
    LIMIT :chunk FOR UPDATE SKIP LOCKED
)
UPDATE {TABLE} t SET ann_pending = false
FROM c WHERE t.app_name = :app AND t.user_id = :user AND t.id = c.id
"""
)

# scale-lint: maintenance across users, reads only the partial btree of pending rows
_PENDING_USERS_SQL = text(f"SELECT DISTINCT app_name, user_id FROM {TABLE} WHERE ann_pending")


@dataclass(frozen=True)
class WriteProbe:
    """What the write side reads after a write: the user's row count, whether their index
    exists, and their pending rows (counted up to a bound)."""

    rows: int
    ann: bool
    pending: int


async def write_probe(conn: AsyncConnection, app: str, user: str, most: int) -> WriteProbe:
    """One round trip: :class:`WriteProbe` of the user (pending counted up to ``most``)."""
    row = (
        await conn.execute(
            _WRITE_PROBE_SQL, {"app": app, "user": user, "ix": index_name(app, user), "most": most}
        )
    ).one()
    return WriteProbe(rows=int(row.n or 0), ann=bool(row.ann), pending=int(row.pending or 0))


async def fold_chunk(conn: AsyncConnection, app: str, user: str, chunk: int = FOLD_CHUNK) -> int:
    """Fold up to ``chunk`` of the user's pending rows into their index, in a transaction of
    its own on ``conn`` (in the user's scope); how many were folded."""
    async with conn.begin():
        result = await conn.execute(_FOLD_SQL, {"app": app, "user": user, "chunk": chunk})
    return int(result.rowcount or 0)


@translates_db_errors("fold_pending")
async def fold_pending(
    engine: AsyncEngine,
    app: str,
    user: str,
    *,
    chunk: int = FOLD_CHUNK,
    most: int | None = None,
) -> int:
    """Fold the user's pending rows into their partial HNSW index, ``chunk`` rows a
    transaction (``most``: stop after about that many); how many were folded. Safe at any
    time: a row's flag only says which of a search's two dense scans reads it."""
    check_positive_int("chunk", chunk, unit="rows")
    folded = 0
    with user_scope(app, user):
        async with engine.connect() as conn:
            while most is None or folded < most:
                size = chunk if most is None else min(chunk, most - folded)
                done = await fold_chunk(conn, app, user, size)
                folded += done
                if done < size:
                    break
    return folded


@translates_db_errors("fold_all_pending")
async def fold_all_pending(engine: AsyncEngine, *, chunk: int = FOLD_CHUNK) -> int:
    """Fold every user's pending rows (a maintenance pass); how many were folded."""
    with operator_scope():
        async with engine.connect() as conn:
            users = [(r.app_name, r.user_id) for r in await conn.execute(_PENDING_USERS_SQL)]
    folded = 0
    for app, user in users:
        folded += await fold_pending(engine, app, user, chunk=chunk)
    return folded


@dataclass
class PendingFolder(BackgroundTasks[int]):
    """Folds users' pending rows into their indexes in the background, once their writes
    pause.

    :meth:`note` is called by the write side after each write of a user with pending rows;
    at most one fold per user runs in this process. It waits until no write of the user is
    running in this process (:meth:`begin_write`, :meth:`end_write`) and none ended in the
    last ``idle_s`` seconds, then folds ``chunk`` rows a transaction, checking again between
    chunks (a new write postpones the rest). Folds by several processes are safe
    (rows are taken ``FOR UPDATE SKIP LOCKED``). A failed fold is logged and left to the next
    write or to :func:`index_heavy_users`.
    """

    idle_s: float = FOLD_IDLE_S
    chunk: int = FOLD_CHUNK

    def __post_init__(self) -> None:
        super().__init__()
        self._last_write: dict[tuple[str, str], float] = {}
        self._writing: dict[tuple[str, str], int] = {}
        self.folded = 0

    def begin_write(self, app: str, user: str) -> None:
        """A write of the user starts in this process: no fold chunk of theirs starts until it
        ends (:meth:`end_write`)."""
        key = (app, user)
        self._writing[key] = self._writing.get(key, 0) + 1

    def end_write(self, app: str, user: str) -> None:
        """The write :meth:`begin_write` announced ended (committed or not)."""
        key = (app, user)
        left = self._writing.get(key, 0) - 1
        if left > 0:
            self._writing[key] = left
        else:
            self._writing.pop(key, None)
        if key in self._tasks:
            self._last_write[key] = time.monotonic()

    def note(self, engine: AsyncEngine, app: str, user: str) -> None:
        """The user just wrote and has pending rows: fold them once the writes pause."""
        key = (app, user)
        self._last_write[key] = time.monotonic()
        if key not in self._tasks:
            self._tasks[key] = asyncio.get_running_loop().create_task(self._fold(engine, app, user))

    async def _fold(self, engine: AsyncEngine, app: str, user: str) -> int:
        key = (app, user)
        folded = 0
        try:
            while True:
                quiet = time.monotonic() - self._last_write.get(key, 0.0)
                if key in self._writing or quiet < self.idle_s:
                    await asyncio.sleep(max(self.idle_s - quiet, self.idle_s / 4))
                    continue
                done = await fold_pending(engine, app, user, chunk=self.chunk, most=self.chunk)
                folded += done
                self.folded += done
                if done < self.chunk:
                    return folded
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # logged; the next write or maintenance pass folds them
            logger.warning("background fold of pending rows failed: %s", type(exc).__name__)
            return folded
        finally:
            self._tasks.pop(key, None)
            self._last_write.pop(key, None)
