"""PgVectorMemoryService: ADK's BaseMemoryService on PostgreSQL + pgvector."""

from __future__ import annotations

import asyncio
import json
import logging
import numbers
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from google.adk.events.event import Event
from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import bindparam, text
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.db.engine import make_engine
from adk_memory_kit.embedders.base import Embedder, embed_queries
from adk_memory_kit.errors import DatabaseUnavailableError, EmbedderError, InvalidInputError
from adk_memory_kit.memory.documents import (
    IndexingOptions,
    MemoryDocument,
    StoredKey,
    check_identifier,
    check_scope,
    clean_text,
    documents_from_entries,
    documents_from_events,
    newest_event_time,
)
from adk_memory_kit.memory.hygiene import Hygiene, pop_hygiene
from adk_memory_kit.memory.query import query_terms
from adk_memory_kit.memory.schema import SNAPSHOTS, TABLE, ensure_schema
from adk_memory_kit.memory.search import SearchOptions, search_rows, vector_literal

if TYPE_CHECKING:
    from google.adk.sessions.session import Session

logger = logging.getLogger(__name__)

_INSERT = f"""
INSERT INTO {TABLE} AS t (id, app_name, user_id, session_id, event_id, kind, author, role, text,
    search_text, context_text, source_hash, embedding, event_time, subject, expires_at,
    importance, valid_to, metadata)
VALUES (:id, :app, :user, :session_id, :event_id, :kind, :author, :role, :text,
    :search_text, :context_text, :source_hash, CAST(:embedding AS vector), :event_time,
    :subject, :expires_at, :importance, :valid_to, CAST(:metadata AS jsonb))
ON CONFLICT (app_name, user_id, session_id, event_id) DO UPDATE SET
    kind = EXCLUDED.kind, author = EXCLUDED.author, role = EXCLUDED.role, text = EXCLUDED.text,
    search_text = EXCLUDED.search_text, context_text = EXCLUDED.context_text,
    source_hash = EXCLUDED.source_hash,
    embedding = EXCLUDED.embedding, event_time = EXCLUDED.event_time, ingested_at = now(),
"""

# Explicit adds (add_memory, add_events_to_memory) state the item whole: hygiene values,
# supersession and metadata are replaced by what the caller passed.
_UPSERT_EXPLICIT_SQL = text(
    _INSERT
    + """    subject = EXCLUDED.subject, expires_at = EXCLUDED.expires_at,
    importance = EXCLUDED.importance, valid_to = EXCLUDED.valid_to, metadata = EXCLUDED.metadata
"""
)

# Session snapshots carry no hygiene values: re-ingesting a session keeps the expiry,
# importance, subject, supersession and extra metadata keys an explicit add set on its rows.
_UPSERT_SESSION_SQL = text(
    _INSERT
    + """    subject = COALESCE(EXCLUDED.subject, t.subject),
    expires_at = COALESCE(EXCLUDED.expires_at, t.expires_at),
    importance = COALESCE(EXCLUDED.importance, t.importance),
    metadata = t.metadata || EXCLUDED.metadata
"""
)

# Existing current facts with the subject, dated no later than the newest incoming fact, are
# superseded as of the date of the earliest incoming fact not older than them.
_SUPERSEDE_SQL = text(
    f"""
UPDATE {TABLE} t SET valid_to = (
    SELECT min(x) FROM unnest(CAST(:times AS timestamptz[])) AS x WHERE x >= t.event_time)
WHERE t.app_name = :app AND t.user_id = :user AND t.subject = :subject
    AND t.valid_to IS NULL AND t.event_time <= :newest
    AND NOT (t.id = ANY(CAST(:keep AS uuid[])))
"""
)

_STORED_SQL = text(
    f"""
SELECT id::text AS id, source_hash, subject, expires_at, importance FROM {TABLE}
WHERE app_name = :app AND user_id = :user AND id = ANY(CAST(:ids AS uuid[]))
"""
)

_STORED_EMBEDDING_SQL = text(
    f"""
SELECT id::text AS id, embedding::text AS value FROM {TABLE}
WHERE app_name = :app AND user_id = :user AND id = ANY(CAST(:ids AS uuid[]))
"""
)

_SNAPSHOT_MARK_SQL = text(
    f"SELECT newest_event_at FROM {SNAPSHOTS}"
    " WHERE app_name = :app AND user_id = :user AND session_id = :sid"
)

_SET_SNAPSHOT_MARK_SQL = text(
    f"""
INSERT INTO {SNAPSHOTS} AS s (app_name, user_id, session_id, newest_event_at)
VALUES (:app, :user, :sid, :newest)
ON CONFLICT (app_name, user_id, session_id) DO UPDATE SET
    newest_event_at = greatest(s.newest_event_at, EXCLUDED.newest_event_at), written_at = now()
"""
)

_MAX_LIMIT = 2**31 - 1


class PgVectorMemoryService(BaseMemoryService):
    """Long-term memory on PostgreSQL + pgvector with ranked hybrid search.

    Args:
        db_url: ``postgresql+psycopg://user:pw@host:port/db``. ``None`` uses
            ``ADK_MEMORY_KIT_DB_URL`` or else the embedded server under ``ADK_MEMORY_KIT_HOME``.
        embedder: any :class:`Embedder`; defaults to the local MiniLM ONNX model.
        uri: alias of ``db_url`` so ADK's ``services.yaml`` can build the service.
        search: ranking options (result cap, candidate depth, RRF weights).
        indexing: what is embedded and indexed per event.
        engine: an existing ``AsyncEngine`` to share (e.g. with ``DatabaseSessionService``).
        pool_size: connections kept open by the service's own engine.
        partitions: create a new database's memory tables hash-partitioned by ``user_id``
            into this many partitions (``None``: plain tables). An existing unpartitioned
            table is refused; see docs/scale.md for the migration.
    """

    def __init__(
        self,
        db_url: str | None = None,
        *,
        embedder: Embedder | None = None,
        uri: str | None = None,
        search: SearchOptions | None = None,
        indexing: IndexingOptions | None = None,
        engine: AsyncEngine | None = None,
        pool_size: int = 5,
        partitions: int | None = None,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("agents_dir", None)  # passed by ADK's service registry
        if kwargs:
            raise InvalidInputError(f"unknown PgVectorMemoryService options: {sorted(kwargs)}")
        if db_url and uri and db_url != uri:
            raise InvalidInputError("give db_url or uri, not two different URLs")
        if partitions is not None and (
            isinstance(partitions, bool) or not isinstance(partitions, int) or partitions < 1
        ):
            raise InvalidInputError(
                f"partitions must be a positive whole number or None, got {partitions!r}"
            )
        if embedder is None:
            from adk_memory_kit.embedders.local import LocalMiniLMEmbedder

            embedder = LocalMiniLMEmbedder()
        self._db_url = db_url or uri
        self.partitions = partitions
        self._engine = engine
        self._owns_engine = engine is None
        self._pool_size = pool_size
        self.embedder = embedder
        self.search_options = search or SearchOptions()
        self.indexing = indexing or IndexingOptions()
        self._ready = False
        self._ready_lock: asyncio.Lock | None = None

    # ------------------------------------------------------------------ plumbing
    @property
    def engine(self) -> AsyncEngine:
        """The engine (created on first use; starts the embedded server if needed)."""
        if self._engine is None:
            self._engine = make_engine(self._db_url, pool_size=self._pool_size)
        return self._engine

    async def _ensure_ready(self) -> AsyncEngine:
        if not self._ready:
            if self._ready_lock is None:
                self._ready_lock = asyncio.Lock()
            async with self._ready_lock:
                if not self._ready:
                    engine = await asyncio.to_thread(lambda: self.engine)
                    await _check_reachable(engine)
                    await ensure_schema(
                        engine,
                        dim=self.embedder.dim,
                        model_id=self.embedder.model_id,
                        partitions=self.partitions,
                    )
                    self._ready = True
        return self.engine

    async def close(self) -> None:
        """Dispose of the connection pool (only if this service created it)."""
        if self._engine is not None and self._owns_engine:
            await self._engine.dispose()
            self._engine = None
            self._ready = False

    async def __aenter__(self) -> PgVectorMemoryService:
        await self._ensure_ready()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ writes
    async def add_session_to_memory(self, session: Session) -> None:
        """Upsert every text event of ``session``; drop rows of events no longer in it.

        Snapshots of one session are ordered by their newest event time (of any event, text or
        not). A snapshot older than one already written changes nothing, so a slow writer of an
        older copy of the session never undoes a newer one. Rows of events missing from the
        snapshot are deleted only if they are not newer than the snapshot's newest event: rows
        of later events (from a newer snapshot or ``add_events_to_memory``) are kept, so
        removing a session's *latest* events without appending a newer one does not remove
        them from memory (use ``delete_memory`` or ``delete_session_memories``). A session
        with no events changes nothing. Expiry, importance, subject and extra metadata that an
        explicit add set on the session's rows are kept.
        """
        check_scope(session.app_name, session.user_id)
        check_identifier("session.id", session.id)
        events = list(session.events)
        docs, newest = await asyncio.to_thread(self._session_documents, session, events)
        if newest is None:
            return
        app, user = session.app_name, session.user_id
        engine = await self._ensure_ready()
        async with engine.connect() as conn:
            if await self._newer_snapshot_stored(conn, app, user, session.id, newest):
                return
        stored = await self._stored_rows(engine, app, user, docs)
        changed = [
            d for d in docs if d.id not in stored or stored[d.id].source_hash != d.source_hash
        ]
        vectors = await self._vectors(engine, app, user, changed, stored)
        params = [
            self._row_params(app, user, doc, vectors[doc.id], Hygiene(), None)
            for doc in sorted(changed, key=lambda d: d.id)
        ]
        async with engine.begin() as conn:
            await self._lock_user(conn, app, user, exclusive=False)
            await self._lock_session(conn, app, user, session.id)
            if await self._newer_snapshot_stored(conn, app, user, session.id, newest):
                logger.debug("skipped an older snapshot of session %s", session.id)
                return
            await conn.execute(
                _SET_SNAPSHOT_MARK_SQL,
                {"app": app, "user": user, "sid": session.id, "newest": newest},
            )
            if params:
                await conn.execute(_UPSERT_SESSION_SQL, params)
            await conn.execute(
                text(
                    f"DELETE FROM {TABLE} WHERE app_name = :app AND user_id = :user"
                    " AND session_id = :sid AND kind = 'event' AND event_time <= :newest"
                    " AND NOT (id = ANY(CAST(:keep AS uuid[])))"
                ),
                {
                    "app": app,
                    "user": user,
                    "sid": session.id,
                    "newest": newest,
                    "keep": [d.id for d in docs],
                },
            )

    def _session_documents(
        self, session: Session, events: list[Event]
    ) -> tuple[list[MemoryDocument], datetime | None]:
        """The session's documents and its newest event time (CPU work: run in a thread)."""
        docs = documents_from_events(
            session.app_name, session.user_id, session.id, events, self.indexing
        )
        return docs, newest_event_time(events)

    @staticmethod
    async def _newer_snapshot_stored(
        conn: AsyncConnection, app: str, user: str, session_id: str, newest: datetime
    ) -> bool:
        mark = await conn.scalar(_SNAPSHOT_MARK_SQL, {"app": app, "user": user, "sid": session_id})
        return mark is not None and mark > newest

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Upsert a delta of events (nothing else of the session is touched).

        ``custom_metadata`` may carry the hygiene keys (``ttl``, ``expires_at``,
        ``importance``, ``subject``); they apply to every event of the call and replace the
        values stored on those events' rows (none given: none kept).
        """
        check_scope(app_name, user_id)
        if session_id is not None:
            check_identifier("session_id", session_id)
        metadata = dict(custom_metadata or {})
        hygiene = pop_hygiene(metadata)
        docs = await asyncio.to_thread(
            documents_from_events,
            app_name,
            user_id,
            session_id or "",
            list(events),
            self.indexing,
            metadata,
        )
        await self._write(app_name, user_id, docs, hygiene)

    async def add_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Store explicit memories (dated facts). Re-adding the same id or text updates it.

        ``MemoryEntry.id`` is either the id of a row ``search_memory`` returned (that row is
        updated in place: it keeps its session and event key, so an entry re-added exactly as
        returned never duplicates) or the caller's own stable key for the entry (scoped by
        ``custom_metadata["session_id"]`` when given). Without an id the entry is keyed by its
        text. The keys ``search_memory`` adds to returned metadata (``score``, ``scores``,
        ``event_id``, ``ingested_at``, ``superseded_at``) are not stored.

        ``custom_metadata`` (call-wide) and each entry's ``custom_metadata`` may carry
        ``ttl``/``ttl_seconds``, ``expires_at``, ``importance`` and ``subject``; see
        :mod:`adk_memory_kit.memory.hygiene`. Re-adding an entry replaces its stored values
        of these (none given: none kept), and an entry whose subject has a newer-dated current
        fact is stored already superseded.
        """
        check_scope(app_name, user_id)
        base = dict(custom_metadata or {})
        prepared: list[MemoryEntry] = []
        hygienes: list[Hygiene] = []
        for entry in memories:
            if not isinstance(entry, MemoryEntry):
                raise InvalidInputError(f"memories must be MemoryEntry objects, got {type(entry)}")
            merged = {**base, **(entry.custom_metadata or {})}
            hygienes.append(pop_hygiene(merged))
            prepared.append(entry.model_copy(update={"custom_metadata": merged}))
        if not prepared:
            return
        stored_keys = await self._stored_keys(app_name, user_id, prepared)
        docs = await asyncio.to_thread(
            documents_from_entries, app_name, user_id, prepared, self.indexing, {}, stored_keys
        )
        for doc, hygiene in zip(docs, hygienes, strict=True):
            await self._write(app_name, user_id, [doc], hygiene)

    async def _stored_keys(
        self, app: str, user: str, entries: list[MemoryEntry]
    ) -> dict[str, StoredKey]:
        """``{entry.id: key of the stored row}`` for entries whose id is one of this user's rows."""
        by_uuid: dict[str, str] = {}
        for entry in entries:
            if not entry.id:
                continue
            try:
                by_uuid[str(uuid.UUID(entry.id))] = entry.id
            except ValueError:
                continue  # the caller's own key
        if not by_uuid:
            return {}
        engine = await self._ensure_ready()
        async with engine.connect() as conn:
            rows = await conn.execute(
                text(
                    f"SELECT id::text AS id, session_id, event_id, kind FROM {TABLE}"
                    " WHERE app_name = :app AND user_id = :user"
                    " AND id = ANY(CAST(:ids AS uuid[]))"
                ),
                {"app": app, "user": user, "ids": list(by_uuid)},
            )
            return {by_uuid[r.id]: StoredKey(r.id, r.session_id, r.event_id, r.kind) for r in rows}

    async def _write(
        self, app_name: str, user_id: str, docs: list[MemoryDocument], hygiene: Hygiene
    ) -> None:
        """Upsert explicitly added items: their text, metadata and hygiene values as given."""
        if not docs:
            return
        engine = await self._ensure_ready()
        stored = await self._stored_rows(engine, app_name, user_id, docs)
        # under a subject every item is rewritten: its supersession is decided under the lock
        changed = [
            d
            for d in docs
            if hygiene.subject or d.id not in stored or stored[d.id].differs(d, hygiene)
        ]
        if not changed:
            return
        vectors = await self._vectors(engine, app_name, user_id, changed, stored)
        async with engine.begin() as conn:
            await self._lock_user(conn, app_name, user_id, exclusive=False)
            for session_id in sorted({d.session_id for d in docs}):
                await self._lock_session(conn, app_name, user_id, session_id)
            valid_to: dict[str, datetime | None] = {}
            if hygiene.subject:
                valid_to = await self._supersede(conn, app_name, user_id, hygiene.subject, docs)
            params = [
                self._row_params(
                    app_name, user_id, doc, vectors[doc.id], hygiene, valid_to.get(doc.id)
                )
                for doc in sorted(changed, key=lambda d: d.id)
            ]
            await conn.execute(_UPSERT_EXPLICIT_SQL, params)

    async def _supersede(
        self,
        conn: AsyncConnection,
        app: str,
        user: str,
        subject: str,
        docs: list[MemoryDocument],
    ) -> dict[str, datetime | None]:
        """Order facts of one subject by their dates, not by the order of the writes.

        Current facts dated no later than an incoming one are superseded (``valid_to`` = the
        date of the incoming fact that replaced them). An incoming fact older than a current
        (unexpired) one, or than another incoming fact of the same call, is stored already
        superseded, as of the date of the earliest such newer fact; of incoming facts with the
        same date the one given last wins (as a stored fact loses to an incoming one of its
        date). Returns each incoming fact's ``valid_to`` (``None``: current).
        """
        await conn.execute(
            text("SELECT pg_advisory_xact_lock(hashtextextended(:k, 0))"),
            {"k": json.dumps([TABLE, "subject", app, user, subject])},
        )
        keep = [d.id for d in docs]
        rows = await conn.execute(
            text(
                f"SELECT event_time FROM {TABLE} WHERE app_name = :app AND user_id = :user"
                " AND subject = :subject AND valid_to IS NULL"
                " AND (expires_at IS NULL OR expires_at > now())"
                " AND NOT (id = ANY(CAST(:keep AS uuid[])))"
            ),
            {"app": app, "user": user, "subject": subject, "keep": keep},
        )
        current = [r.event_time for r in rows]
        valid_to: dict[str, datetime | None] = {}
        for i, doc in enumerate(docs):
            newer = [t for t in current if t > doc.event_time]
            newer += [
                other.event_time
                for j, other in enumerate(docs)
                if other.id != doc.id
                and (
                    other.event_time > doc.event_time
                    or (other.event_time == doc.event_time and j > i)
                )
            ]
            valid_to[doc.id] = min(newer) if newer else None
        times = sorted({d.event_time for d in docs})
        await conn.execute(
            _SUPERSEDE_SQL,
            {
                "app": app,
                "user": user,
                "subject": subject,
                "times": times,
                "newest": times[-1],
                "keep": keep,
            },
        )
        return valid_to

    async def _vectors(
        self,
        engine: AsyncEngine,
        app: str,
        user: str,
        changed: list[MemoryDocument],
        stored: Mapping[str, _StoredRow],
    ) -> dict[str, str]:
        """pgvector literals for ``changed``: stored ones where the embedded text is unchanged."""
        reusable = [
            d
            for d in changed
            if d.id in stored
            and stored[d.id].source_hash.split(":")[0] == d.source_hash.split(":")[0]
        ]
        kept = await self._stored_embeddings(engine, app, user, reusable)
        to_embed = [d for d in changed if d.id not in kept]
        fresh = await self.embedder.embed([d.embed_text for d in to_embed]) if to_embed else []
        if len(fresh) != len(to_embed):
            raise EmbedderError(
                f"the embedder returned {len(fresh)} vectors for {len(to_embed)} texts"
            )
        return {
            **kept,
            **{d.id: vector_literal(v) for d, v in zip(to_embed, fresh, strict=True)},
        }

    @staticmethod
    async def _lock_user(conn: AsyncConnection, app: str, user: str, *, exclusive: bool) -> None:
        """Writers share a per-user lock; deleting the whole user takes it exclusively, so a
        write racing ``delete_user_memories`` lands either wholly before or wholly after it."""
        fn = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
        await conn.execute(
            text(f"SELECT {fn}(hashtextextended(:k, 0))"),
            {"k": json.dumps([TABLE, "user", app, user])},
        )

    @staticmethod
    async def _lock_session(conn: AsyncConnection, app: str, user: str, session_id: str) -> None:
        """Serialise concurrent writers of one session (transaction-scoped advisory lock)."""
        await conn.execute(
            text("SELECT pg_advisory_xact_lock(hashtextextended(:k, 0))"),
            {"k": json.dumps([TABLE, app, user, session_id])},
        )

    @staticmethod
    async def _select_by_ids(
        engine: AsyncEngine, sql: Any, app: str, user: str, docs: list[MemoryDocument]
    ) -> list[Any]:
        """Run ``sql`` (filtered by app, user and ``:ids``) for the stored rows of ``docs``."""
        if not docs:
            return []
        async with engine.connect() as conn:
            result = await conn.execute(
                sql, {"app": app, "user": user, "ids": [d.id for d in docs]}
            )
            return list(result)

    async def _stored_rows(
        self, engine: AsyncEngine, app: str, user: str, docs: list[MemoryDocument]
    ) -> dict[str, _StoredRow]:
        """What is stored for ``docs`` (by row id): the hash and the hygiene values."""
        rows = await self._select_by_ids(engine, _STORED_SQL, app, user, docs)
        return {
            r.id: _StoredRow(r.source_hash, r.subject, r.expires_at, r.importance) for r in rows
        }

    async def _stored_embeddings(
        self, engine: AsyncEngine, app: str, user: str, docs: list[MemoryDocument]
    ) -> dict[str, str]:
        """``{row id: stored embedding in pgvector's text form}`` for ``docs``."""
        rows = await self._select_by_ids(engine, _STORED_EMBEDDING_SQL, app, user, docs)
        return {r.id: r.value for r in rows}

    @staticmethod
    def _row_params(
        app: str,
        user: str,
        doc: MemoryDocument,
        vector: str,
        hygiene: Hygiene,
        valid_to: datetime | None,
    ) -> dict[str, Any]:
        return {
            "id": doc.id,
            "app": app,
            "user": user,
            "session_id": doc.session_id,
            "event_id": doc.event_id,
            "kind": doc.kind,
            "author": doc.author,
            "role": doc.role,
            "text": doc.text,
            "search_text": doc.search_text,
            "context_text": doc.context_text,
            "source_hash": doc.source_hash,
            "embedding": vector,
            "event_time": doc.event_time,
            "subject": hygiene.subject,
            "expires_at": hygiene.expires_at,
            "importance": hygiene.importance,
            "valid_to": valid_to,
            "metadata": json.dumps(doc.metadata, default=str, sort_keys=True),
        }

    # ------------------------------------------------------------------ reads
    async def search_memory(
        self, *, app_name: str, user_id: str, query: str, limit: int | None = None
    ) -> SearchMemoryResponse:
        """Ranked hybrid search over this app+user's memories (empty query: no results)."""
        check_scope(app_name, user_id)
        if not isinstance(query, str):
            raise InvalidInputError(f"query must be a string, got {type(query).__name__}")
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, numbers.Integral)
        ):
            raise InvalidInputError(f"limit must be a whole number, got {limit!r}")
        cap = self.search_options.limit if limit is None else int(limit)
        if not 0 < cap <= _MAX_LIMIT:
            raise InvalidInputError(f"limit must be between 1 and {_MAX_LIMIT}, got {cap}")
        query = clean_text(query.replace("\x00", " "))
        if not query.strip():
            return SearchMemoryResponse()
        engine = await self._ensure_ready()
        (qvec,) = await embed_queries(self.embedder, [query])
        async with engine.connect() as conn:
            rows = await search_rows(
                conn,
                app=app_name,
                user=user_id,
                qvec=qvec,
                terms=query_terms(query),
                limit=cap,
                options=self.search_options,
            )
        return SearchMemoryResponse(memories=[_entry_from_row(r) for r in rows])

    # ------------------------------------------------------------------ deletes
    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        """Delete one memory item by the id carried in ``MemoryEntry.id``."""
        check_scope(app_name, user_id)
        try:
            parsed = uuid.UUID(str(memory_id))
        except ValueError as exc:
            raise InvalidInputError(
                f"memory_id {memory_id!r} is not an id returned by search_memory"
            ) from exc
        await self._delete("id = :mid", app_name, user_id, mid=str(parsed))

    async def delete_session_memories(self, *, app_name: str, user_id: str, session_id: str) -> int:
        """Delete every memory ingested from one session; returns the number of rows deleted."""
        check_scope(app_name, user_id)
        check_identifier("session_id", session_id)
        return await self._delete(
            "session_id = :sid", app_name, user_id, snapshots=True, sid=session_id
        )

    async def delete_user_memories(self, *, app_name: str, user_id: str) -> int:
        """Delete every memory of one user in one app (right to be forgotten)."""
        check_scope(app_name, user_id)
        return await self._delete("TRUE", app_name, user_id, lock_user=True, snapshots=True)

    async def purge_expired(self) -> int:
        """Delete items whose time-to-live has passed; returns how many."""
        engine = await self._ensure_ready()
        async with engine.begin() as conn:
            result = await conn.execute(
                # scale-lint: global maintenance, deletes expired rows of every user (on
                # Citus a multi-shard DELETE, run from a scheduled job)
                text(f"DELETE FROM {TABLE} WHERE expires_at IS NOT NULL AND expires_at <= now()")
            )
            return result.rowcount or 0

    async def count_memories(self, *, app_name: str, user_id: str) -> dict[str, int]:
        """How many items this user has, by kind (for audits and data maps)."""
        check_scope(app_name, user_id)
        engine = await self._ensure_ready()
        async with engine.connect() as conn:
            rows = await conn.execute(
                text(
                    f"SELECT kind, count(*) AS n FROM {TABLE} WHERE app_name = :app"
                    " AND user_id = :user GROUP BY kind"
                ),
                {"app": app_name, "user": user_id},
            )
            return {r.kind: r.n for r in rows}

    async def list_users(self, app_name: str) -> list[str]:
        """The user ids that have memories in ``app_name``."""
        check_identifier("app_name", app_name)
        engine = await self._ensure_ready()
        async with engine.connect() as conn:
            rows = await conn.execute(
                # scale-lint: lists the users of an app (admin and forget tooling), by design
                # across users (on Citus a multi-shard query)
                text(f"SELECT DISTINCT user_id FROM {TABLE} WHERE app_name = :app ORDER BY 1"),
                {"app": app_name},
            )
            return [r.user_id for r in rows]

    async def _delete(
        self,
        where: str,
        app: str,
        user: str,
        *,
        lock_user: bool = False,
        snapshots: bool = False,
        **params: Any,
    ) -> int:
        """Delete matching items; ``snapshots`` also forgets the matching sessions' snapshot
        times (so the session can be ingested again from scratch)."""
        engine = await self._ensure_ready()
        async with engine.begin() as conn:
            if lock_user:
                await self._lock_user(conn, app, user, exclusive=True)
            result = await conn.execute(
                text(
                    f"DELETE FROM {TABLE} WHERE app_name = :app AND user_id = :user AND {where}"
                ).bindparams(*(bindparam(k) for k in params)),
                {"app": app, "user": user, **params},
            )
            if snapshots:
                await conn.execute(
                    text(
                        f"DELETE FROM {SNAPSHOTS} WHERE app_name = :app AND user_id = :user"
                        f" AND {where}"
                    ).bindparams(*(bindparam(k) for k in params)),
                    {"app": app, "user": user, **params},
                )
            return result.rowcount or 0


@dataclass(frozen=True)
class _StoredRow:
    source_hash: str
    subject: str | None
    expires_at: datetime | None
    importance: float | None

    def differs(self, doc: MemoryDocument, hygiene: Hygiene) -> bool:
        """Whether an explicit add of ``doc`` with ``hygiene`` would change this row."""
        if self.source_hash != doc.source_hash or self.subject != hygiene.subject:
            return True
        if self.expires_at != hygiene.expires_at:
            return True
        if (self.importance is None) != (hygiene.importance is None):
            return True
        # importance is stored as real (float4): compare at its precision
        return (
            self.importance is not None
            and hygiene.importance is not None
            and abs(self.importance - hygiene.importance) > 1e-6
        )


async def _check_reachable(engine: AsyncEngine) -> None:
    """Open one connection; a server that cannot be reached raises a clear error."""
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except (OperationalError, InterfaceError, OSError) as exc:
        url = engine.url.render_as_string(hide_password=True)
        cause = getattr(exc, "orig", None) or exc
        detail = " ".join(str(cause).split())[:300]
        logger.debug("memory database %s is unreachable", url, exc_info=True)
        raise DatabaseUnavailableError(
            f"cannot connect to the memory database at {url} ({detail}). Check that the "
            "PostgreSQL server is running and reachable and that the URL and credentials are "
            "right (the db_url argument, or ADK_MEMORY_KIT_DB_URL), or pass no URL and unset "
            "ADK_MEMORY_KIT_DB_URL to use the embedded default server"
        ) from None


def _entry_from_row(row: Mapping[str, Any]) -> MemoryEntry:
    event_time: datetime = row["event_time"]
    metadata = dict(row["metadata"] or {})
    metadata.update(
        score=float(row["score"]),
        session_id=row["session_id"],
        event_id=row["event_id"],
        kind=row["kind"],
        ingested_at=row["ingested_at"].astimezone(timezone.utc).isoformat(),
    )
    # the score parts the memory console shows (None: the row was not in that ranked list)
    metadata["scores"] = {
        "dense": _float_or_none(row.get("dense_score")),
        "bm25": _float_or_none(row.get("bm25_score")),
        "exact": _float_or_none(row.get("exact_score")),
        "fused": float(row["score"]),
    }
    for key in ("subject", "importance"):
        if row[key] is not None:
            metadata[key] = row[key]
    if row["valid_to"] is not None:
        metadata["superseded_at"] = row["valid_to"].astimezone(timezone.utc).isoformat()
    if row["expires_at"] is not None:
        metadata["expires_at"] = row["expires_at"].astimezone(timezone.utc).isoformat()
    return MemoryEntry(
        id=str(row["id"]),
        author=row["author"],
        timestamp=event_time.astimezone(timezone.utc).isoformat(),
        custom_metadata=metadata,
        content=types.Content(role=row["role"] or "user", parts=[types.Part(text=row["text"])]),
    )


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)
