"""MemoryStore: the memory tables of one database, bound to its engine and options.

It owns the engine (made on first use, or shared), the schema check, the ranked search, the
batched recall accesses and the background index builds (started after writes, never by a
search). Every statement lives in ``memory/items_sql.py``, ``memory/search.py``,
``memory/schema.py`` and ``memory/ann.py``; this class only binds them to one engine. No ADK
types: the service converts rows to entries.
Every per-user operation takes ``app`` and ``user`` and touches that user's rows only.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.core.db_errors import db_doors, is_transient
from adk_memory_kit.core.memory_scopes import ScopeRead, own_read, shared_read
from adk_memory_kit.core.scope import operator_scope, user_scope
from adk_memory_kit.db.embedded import DB_URL_ENV, kit_home
from adk_memory_kit.db.engine import behind_transaction_pooler, is_default_uri, make_engine
from adk_memory_kit.db.fence import fences_of
from adk_memory_kit.embedders.base import Embedder, checked_embed
from adk_memory_kit.errors import DatabaseUnavailableError
from adk_memory_kit.memory import grants, items_sql
from adk_memory_kit.memory.access import AccessRecorder
from adk_memory_kit.memory.admission import held_slot
from adk_memory_kit.memory.ann import SLOT_RETRY_S, IndexBuilder
from adk_memory_kit.memory.config import SearchOptions, StorageOptions
from adk_memory_kit.memory.pending_rows import (
    FOLD_CHUNK,
    PENDING_CAP,
    PendingFolder,
    fold_chunk,
    write_probe,
)
from adk_memory_kit.memory.query import query_terms
from adk_memory_kit.memory.query_decomposition import QueryDecomposer, fuse_searches
from adk_memory_kit.memory.rerank import asked_about, asks_about_now, asks_in_the_present
from adk_memory_kit.memory.schema import ensure_schema
from adk_memory_kit.memory.scoped_search import scoped_search
from adk_memory_kit.memory.search import SearchFilters
from adk_memory_kit.text.entities import entities

logger = logging.getLogger(__name__)
#: How many users' last write times a store keeps (the oldest are forgotten first).
_RECENT_WRITERS = 100_000
#: How far past the pending cap a write's probe counts (the excess a write folds at most).
PENDING_EXCESS_READ = 2_000


@db_doors
class MemoryStore:
    """The SQL side of long-term memory on one engine.

    Args:
        db_url: a SQLAlchemy URL; ``None`` uses ``ADK_MEMORY_KIT_DB_URL`` or the embedded server.
        embedder: embeds search queries; its ``dim`` and ``model_id`` fix the table's schema.
        storage: the layout of a new database's tables.
        search: ranking options; may be replaced between searches (tuning benchmarks do).
        engine: an existing engine to share (never disposed of here).
        pool_size: connections of the engine made here.
        access_flush_delay: seconds recall accesses wait before one UPDATE per user.
    """

    def __init__(
        self,
        db_url: str | None,
        *,
        embedder: Embedder,
        storage: StorageOptions,
        search: SearchOptions,
        engine: AsyncEngine | None = None,
        pool_size: int = 5,
        access_flush_delay: float = 2.0,
        read_url: str | None = None,
        read_your_writes_s: float = 5.0,
        query_decomposer: QueryDecomposer | None = None,
    ) -> None:
        self.embedder = embedder
        self.query_decomposer = query_decomposer
        self._read_url = read_url
        self._read_engine: AsyncEngine | None = None
        self._read_your_writes_s = read_your_writes_s
        self._last_write: OrderedDict[tuple[str, str], float] = OrderedDict()
        self.storage = storage
        self.search_options = search
        self._db_url = db_url
        self._engine = engine
        self._owns_engine = engine is None
        self._pool_size = pool_size
        self._ready = False
        self._ready_lock: asyncio.Lock | None = None
        self.access = AccessRecorder(self._write_access, flush_delay=access_flush_delay)
        self.index_builder = IndexBuilder(min_rows=search.heavy_user_rows)
        self.pending_folder = PendingFolder()
        #: The most rows a user keeps pending outside their index (memory/ann.py).
        self.pending_cap = PENDING_CAP

    # ------------------------------------------------------------------ engine
    @property
    def engine(self) -> AsyncEngine:
        """The engine (created on first use; starts the embedded server if needed)."""
        if self._engine is None:
            self._engine = make_engine(self._db_url, pool_size=self._pool_size)
        return self._engine

    def _url_given(self) -> bool:
        """Whether a database URL was chosen (argument or environment), not the embedded one."""
        if self._engine is not None and not self._owns_engine:
            return True
        given = self._db_url and not is_default_uri(self._db_url)
        return bool(given or os.environ.get(DB_URL_ENV))

    async def ready(self) -> AsyncEngine:
        """The engine, once reachable and with the memory schema created or checked."""
        if not self._ready:
            if self._ready_lock is None:
                self._ready_lock = asyncio.Lock()
            async with self._ready_lock:
                if not self._ready:
                    engine = await asyncio.to_thread(lambda: self.engine)
                    await _check_reachable(engine, self._url_given())
                    await ensure_schema(
                        engine,
                        dim=self.embedder.dim,
                        model_id=self.embedder.model_id,
                        partitions=self.storage.partitions,
                    )
                    self._ready = True
        return self.engine

    # ------------------------------------------------------------------ read replica
    def wrote(self, app: str, user: str) -> None:
        """Note that this process just wrote or deleted the user's memories: their searches
        stay on the primary for ``read_your_writes_s`` (with a read replica)."""
        if self._read_url is None:
            return
        key = (app, user)
        self._last_write[key] = time.monotonic()
        self._last_write.move_to_end(key)
        while len(self._last_write) > _RECENT_WRITERS:
            self._last_write.popitem(last=False)

    async def search_engine(self, app: str, user: str) -> AsyncEngine:
        """Where the user's searches read: the read replica (``read_url``), unless this
        process wrote or deleted for the user within ``read_your_writes_s``; else the
        primary. The primary's schema is checked first either way."""
        primary = await self.ready()
        if self._read_url is None:
            return primary
        written = self._last_write.get((app, user))
        if written is not None and time.monotonic() - written < self._read_your_writes_s:
            return primary
        if self._read_engine is None:
            self._read_engine = await asyncio.to_thread(
                make_engine, self._read_url, pool_size=self._pool_size
            )
        return self._read_engine

    async def close(self) -> None:
        """Write pending accesses; dispose of the engine (only if this store made it)."""
        await self.index_builder.close()
        await self.pending_folder.close()
        if self._ready:
            try:
                await self.access.close()
            except Exception as exc:  # never keep a pool open for a failed flush
                logger.warning("memory access flush at close failed: %s", type(exc).__name__)
        if self._read_engine is not None:
            await self._read_engine.dispose()
            self._read_engine = None
        if self._engine is not None and self._owns_engine:
            await self._engine.dispose()
            self._engine = None
            self._ready = False

    # ------------------------------------------------------------------ search and access
    async def search_rows(
        self,
        *,
        app_name: str,
        user_id: str,
        query: str,
        limit: int,
        filters: SearchFilters,
        reads: Sequence[ScopeRead] | None = None,
    ) -> list[Mapping[str, Any]]:
        """The ranked rows of ``query`` (clean, non-empty text) for one user, best first
        (read on the replica when there is one: :meth:`search_engine`). ``reads``: the
        entitled scopes, owner by owner (issue 47, memory/scoped_search.py; ``None``: the
        user's own rows only), merged into one ranking. With a query decomposer (issue 48,
        memory/query_decomposition.py) the question and each of its sub-questions are
        searched and the lists fused by reciprocal rank."""
        parts = await self.query_decomposer.parts(query) if self.query_decomposer else []
        if not parts:
            return await self._search_once_more(app_name, user_id, query, limit, filters, reads)
        lists = [
            await self._search_once_more(app_name, user_id, q, limit, filters, reads)
            for q in (query, *parts)
        ]
        return fuse_searches(lists, limit=limit, rrf_k=self.search_options.rrf_k)

    async def _search_once_more(
        self,
        app_name: str,
        user_id: str,
        query: str,
        limit: int,
        filters: SearchFilters,
        reads: Sequence[ScopeRead] | None,
    ) -> list[Mapping[str, Any]]:
        """One ranked search of ``query``, run again once when the database went away under
        it and is back (a search only reads)."""
        engine = await self.search_engine(app_name, user_id)

        async def embed_query() -> list[float]:
            (qvec,) = await checked_embed(self.embedder, [query], queries=True)
            return qvec

        async def ranked() -> list[Mapping[str, Any]]:
            return await scoped_search(
                engine,
                app=app_name,
                reads=reads or [ScopeRead(user_id, filters.scopes)],
                embed_query=embed_query,
                terms=query_terms(query),
                limit=limit,
                options=self.search_options,
                filters=filters,
                present_tense=asks_about_now(query),
                plain_present=asks_in_the_present(query),
                asked=asked_about(query),
                entity_keys=tuple(entities(query)),
            )

        try:
            return await ranked()
        except Exception as exc:
            # several owners' statements run at once: the whole search runs once more
            if not is_transient(exc):
                raise
            logger.info("search: the database went away mid-search; searching again")
            return await ranked()

    async def entitled_reads(
        self, app_name: str, user_id: str, agent_name: str | None = None
    ) -> list[ScopeRead]:
        """What the user (and the calling agent) may read, owner by owner: their own rows,
        then the app's and each granted group's shared rows where there are any (one probe,
        in the user's row-level-security scope)."""
        engine = await self.search_engine(app_name, user_id)
        with user_scope(app_name, user_id):
            async with engine.connect() as conn:
                owners = await grants.shared_owners(conn, app_name, user_id)
        return [own_read(user_id, agent_name), *(shared_read(o) for o in owners)]

    async def groups_of(self, app_name: str, user_id: str) -> list[str]:
        """The groups the user was granted in the app (memory/grants.py)."""
        async with (await self.ready()).connect() as conn:
            return await grants.groups_of(conn, app_name, user_id)

    async def set_grant(self, app_name: str, user_id: str, group: str, *, granted: bool) -> bool:
        """Grant (or revoke) ``group`` to the user, as an operator; ``True`` if it changed."""
        engine = await self.ready()
        with operator_scope():  # an operator's act, never a user's
            async with engine.begin() as conn:
                change = grants.grant if granted else grants.revoke
                return await change(conn, app_name, user_id, group)

    @contextmanager
    def writing(self, app: str, user: str) -> Iterator[None]:
        """Around a write of the user: their background fold waits until it ends (a fold
        chunk and a write would compete for the same rows and the same CPU)."""
        self.pending_folder.begin_write(app, user)
        try:
            yield
        finally:
            self.pending_folder.end_write(app, user)

    async def note_write(self, conn: AsyncConnection, app: str, user: str) -> None:
        """After a write of the user committed on ``conn``: start the background build of
        their partial HNSW index if they are now heavy without one, and the background fold
        of their pending rows into it (memory/ann.py, issue 45). One probe (the user's row
        count, whether the index exists, their pending rows counted up to a bound); a failed
        probe leaves the write as it is. A write that leaves more than ``pending_cap`` rows
        pending folds the excess itself, so searches' exact scan of them stays bounded.
        Searches never do this (issue 49: no search starts or waits for a build)."""
        self.wrote(app, user)
        cap = self.pending_cap
        try:
            probe = await write_probe(conn, app, user, cap + PENDING_EXCESS_READ)
            await conn.rollback()  # the probe's read-only transaction
            if probe.pending > cap:  # past the cap: this write folds the excess
                excess = probe.pending - cap
                while excess > 0:
                    done = await fold_chunk(conn, app, user, min(FOLD_CHUNK, excess))
                    excess = excess - done if done else 0
        except (OperationalError, InterfaceError) as exc:  # the write stands; next time
            logger.warning("index upkeep check after a write failed: %s", type(exc).__name__)
            return
        if probe.pending:
            self.pending_folder.note(await self.ready(), app, user)
        if not self.search_options.ann_auto_build or behind_transaction_pooler(conn.engine):
            return  # behind a transaction pooler: builds run from a direct URL (docs/scale.md)
        if self.index_builder.wants(app, user, probe.rows, probe.ann):
            self.index_builder.consider(await self.ready(), app, user, probe.rows, probe.ann)

    async def wait_for_index_builds(self) -> None:
        """Wait for the background index builds this store started (memory/ann.py)."""
        await self.index_builder.wait()

    async def wait_for_folds(self) -> None:
        """Wait for the background folds of pending rows this store started (memory/ann.py);
        each starts once its user's writes have paused."""
        await self.pending_folder.wait()

    async def flush_access(self) -> int:
        """Write the pending recall accesses now; returns how many rows were touched."""
        return await self.access.flush()

    async def _write_access(
        self, app: str, user: str, rows: Mapping[str, tuple[int, datetime]]
    ) -> None:
        engine = await self.ready()
        with user_scope(app, user):  # flushed in the background: the rows' own user
            async with engine.begin() as conn:
                fence = (await fences_of(conn, {(app, user)})).get((app, user))
                if fence is not None:
                    rows = {k: v for k, v in rows.items() if not fence.discards(v[1])}
                    if not rows:
                        return  # queued before or during a forget of the user: discarded
                await items_sql.record_access(conn, app, user, rows)

    # ------------------------------------------------------------------ deletes and counts
    async def delete_id(self, *, app_name: str, user_id: str, row_id: str) -> int:
        """Delete one row of the user; returns how many went (0 or 1)."""
        self.wrote(app_name, user_id)
        async with (await self.ready()).begin() as conn:
            return await items_sql.delete_id(conn, app_name, user_id, row_id)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> int:
        """Delete the rows of one session and its snapshot mark; returns the rows gone."""
        self.wrote(app_name, user_id)
        async with (await self.ready()).begin() as conn:
            return await items_sql.delete_session(conn, app_name, user_id, session_id)

    async def delete_user(self, *, app_name: str, user_id: str) -> int:
        """Delete every row of the user under their exclusive write lock."""
        self.wrote(app_name, user_id)
        async with (await self.ready()).begin() as conn:
            await items_sql.lock_user(conn, app_name, user_id, exclusive=True)
            return await items_sql.delete_user(conn, app_name, user_id)

    async def purge_expired(self) -> int:
        """Delete every user's rows whose time-to-live has passed (an operator's job).

        Whole-table work: it runs holding a server-wide heavy-work slot (memory/admission.py),
        waiting (without a connection) while index builds or other purges hold them all."""
        engine = await self.ready()
        with operator_scope():  # maintenance over every user
            async with held_slot(engine, poll_s=SLOT_RETRY_S):
                async with engine.begin() as conn:
                    return await items_sql.purge_expired(conn)

    async def count_by_kind(self, *, app_name: str, user_id: str) -> dict[str, int]:
        """How many rows the user has, by kind."""
        async with (await self.ready()).connect() as conn:
            return dict(await items_sql.count_by_kind(conn, app_name, user_id))

    async def list_users(self, app_name: str) -> list[str]:
        """The user ids with rows in ``app_name`` (an operator's view)."""
        engine = await self.ready()
        with operator_scope():  # an operator's view across the app's users
            async with engine.connect() as conn:
                return await items_sql.list_users(conn, app_name)


async def _check_reachable(engine: AsyncEngine, url_given: bool) -> None:
    """Open one connection; a server that cannot be reached raises a clear error.

    ``url_given``: a URL was passed or set in ``ADK_MEMORY_KIT_DB_URL`` (then the hint
    suggests the embedded default); otherwise the embedded server itself failed, and the
    hint points to its log.
    """
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except (OperationalError, InterfaceError, OSError) as exc:
        url = engine.url.render_as_string(hide_password=True)
        cause = getattr(exc, "orig", None) or exc
        detail = " ".join(str(cause).split())[:300]
        logger.debug("memory database %s is unreachable: %s", url, type(cause).__name__)
        if url_given:
            hint = (
                "Check that the PostgreSQL server is running and reachable and that the URL "
                "and credentials are right (the db_url argument, or ADK_MEMORY_KIT_DB_URL), or "
                "pass no URL and unset ADK_MEMORY_KIT_DB_URL to use the embedded default server"
            )
        else:
            hint = (
                "This is the embedded default server: see its log under "
                f"{kit_home() / 'pgdata' / 'log'} and 'adk-memory-kit db status'"
            )
        err = DatabaseUnavailableError(
            f"cannot connect to the memory database at {url} ({detail}). {hint}"
        )
        err.transient = True
        raise err from None
