"""PgVectorMemoryService: ADK's BaseMemoryService on PostgreSQL + pgvector."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import bindparam, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.db.engine import make_engine
from adk_memory_kit.embedders.base import Embedder
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.documents import (
    IndexingOptions,
    MemoryDocument,
    check_identifier,
    check_scope,
    documents_from_entries,
    documents_from_events,
)
from adk_memory_kit.memory.hygiene import Hygiene, pop_hygiene
from adk_memory_kit.memory.query import query_terms
from adk_memory_kit.memory.schema import TABLE, ensure_schema
from adk_memory_kit.memory.search import (
    HYBRID_SQL,
    VECTOR_ONLY_SQL,
    SearchOptions,
    text_params,
    vector_literal,
)

if TYPE_CHECKING:
    from google.adk.events.event import Event
    from google.adk.sessions.session import Session

logger = logging.getLogger(__name__)

_UPSERT_SQL = text(
    f"""
INSERT INTO {TABLE} (id, app_name, user_id, session_id, event_id, kind, author, role, text,
    search_text, context_text, source_hash, embedding, event_time, subject, expires_at,
    importance, metadata)
VALUES (:id, :app, :user, :session_id, :event_id, :kind, :author, :role, :text,
    :search_text, :context_text, :source_hash, CAST(:embedding AS vector), :event_time,
    :subject, :expires_at, :importance, CAST(:metadata AS jsonb))
ON CONFLICT (app_name, user_id, session_id, event_id) DO UPDATE SET
    kind = EXCLUDED.kind, author = EXCLUDED.author, role = EXCLUDED.role, text = EXCLUDED.text,
    search_text = EXCLUDED.search_text, context_text = EXCLUDED.context_text,
    source_hash = EXCLUDED.source_hash,
    embedding = EXCLUDED.embedding, event_time = EXCLUDED.event_time,
    subject = EXCLUDED.subject, expires_at = EXCLUDED.expires_at,
    importance = EXCLUDED.importance, metadata = EXCLUDED.metadata, valid_to = NULL,
    ingested_at = now()
"""
)


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
        **kwargs: Any,
    ) -> None:
        kwargs.pop("agents_dir", None)  # passed by ADK's service registry
        if kwargs:
            raise InvalidInputError(f"unknown PgVectorMemoryService options: {sorted(kwargs)}")
        if db_url and uri and db_url != uri:
            raise InvalidInputError("give db_url or uri, not two different URLs")
        if embedder is None:
            from adk_memory_kit.embedders.local import LocalMiniLMEmbedder

            embedder = LocalMiniLMEmbedder()
        self._db_url = db_url or uri
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
                    await ensure_schema(
                        engine, dim=self.embedder.dim, model_id=self.embedder.model_id
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
        """Upsert every text event of ``session``; drop rows of events no longer in it."""
        check_scope(session.app_name, session.user_id)
        check_identifier("session.id", session.id)
        docs = documents_from_events(
            session.app_name, session.user_id, session.id, session.events, self.indexing
        )
        await self._write(
            session.app_name, session.user_id, docs, Hygiene(), replace_session=session.id
        )

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Upsert a delta of events (nothing else of the session is touched)."""
        check_scope(app_name, user_id)
        if session_id is not None:
            check_identifier("session_id", session_id)
        metadata = dict(custom_metadata or {})
        hygiene = pop_hygiene(metadata)
        docs = documents_from_events(
            app_name, user_id, session_id or "", list(events), self.indexing, metadata
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

        ``custom_metadata`` (call-wide) and each entry's ``custom_metadata`` may carry
        ``ttl``/``ttl_seconds``, ``expires_at``, ``importance`` and ``subject``; see
        :mod:`adk_memory_kit.memory.hygiene`.
        """
        check_scope(app_name, user_id)
        base = dict(custom_metadata or {})
        for entry in memories:
            if not isinstance(entry, MemoryEntry):
                raise InvalidInputError(f"memories must be MemoryEntry objects, got {type(entry)}")
            merged = {**base, **(entry.custom_metadata or {})}
            hygiene = pop_hygiene(merged)
            plain = entry.model_copy(update={"custom_metadata": merged})
            docs = documents_from_entries(app_name, user_id, [plain], self.indexing, {})
            await self._write(app_name, user_id, docs, hygiene)

    async def _write(
        self,
        app_name: str,
        user_id: str,
        docs: list[MemoryDocument],
        hygiene: Hygiene,
        *,
        replace_session: str | None = None,
    ) -> None:
        engine = await self._ensure_ready()
        existing = await self._stored_column(engine, app_name, user_id, docs, "source_hash")
        # a fact re-stated under a subject becomes current again, even if its text is unchanged
        changed = [d for d in docs if hygiene.subject or existing.get(d.id) != d.source_hash]
        reusable = [
            d
            for d in changed
            if existing.get(d.id, ":").split(":")[0] == d.source_hash.split(":")[0]
        ]
        # rows whose embedded text is unchanged keep their stored vector (pgvector text form)
        kept = await self._stored_column(engine, app_name, user_id, reusable, "embedding")
        to_embed = [d for d in changed if d.id not in kept]
        fresh = await self.embedder.embed([d.embed_text for d in to_embed])
        if len(fresh) != len(to_embed):
            raise RuntimeError("embedder returned a different number of vectors than texts")
        vectors = {
            **kept,
            **{d.id: vector_literal(v) for d, v in zip(to_embed, fresh, strict=True)},
        }
        params = [
            self._row_params(app_name, user_id, doc, vectors[doc.id], hygiene)
            for doc in sorted(changed, key=lambda d: d.id)
        ]
        async with engine.begin() as conn:
            await self._lock_user(conn, app_name, user_id, exclusive=False)
            for session_id in sorted({d.session_id for d in docs} | {replace_session or ""}):
                await self._lock_session(conn, app_name, user_id, session_id)
            if hygiene.subject:
                await conn.execute(
                    text(
                        f"UPDATE {TABLE} SET valid_to = now() WHERE app_name = :app"
                        " AND user_id = :user AND subject = :subject AND valid_to IS NULL"
                        " AND NOT (id = ANY(CAST(:keep AS uuid[])))"
                    ),
                    {
                        "app": app_name,
                        "user": user_id,
                        "subject": hygiene.subject,
                        "keep": [d.id for d in docs],
                    },
                )
            if params:
                await conn.execute(_UPSERT_SQL, params)
            if replace_session is not None:
                await conn.execute(
                    text(
                        f"DELETE FROM {TABLE} WHERE app_name = :app AND user_id = :user"
                        " AND session_id = :sid AND kind = 'event'"
                        " AND NOT (id = ANY(CAST(:keep AS uuid[])))"
                    ),
                    {
                        "app": app_name,
                        "user": user_id,
                        "sid": replace_session,
                        "keep": [d.id for d in docs],
                    },
                )

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
    async def _stored_column(
        engine: AsyncEngine, app: str, user: str, docs: list[MemoryDocument], column: str
    ) -> dict[str, str]:
        """``{row id: column as text}`` for the stored rows of ``docs`` (a trusted column name)."""
        if not docs:
            return {}
        async with engine.connect() as conn:
            rows = await conn.execute(
                text(
                    f"SELECT id::text AS id, {column}::text AS value FROM {TABLE}"
                    " WHERE app_name = :app AND user_id = :user"
                    " AND id = ANY(CAST(:ids AS uuid[]))"
                ),
                {"app": app, "user": user, "ids": [d.id for d in docs]},
            )
            return {r.id: r.value for r in rows}

    @staticmethod
    def _row_params(
        app: str, user: str, doc: MemoryDocument, vector: str, hygiene: Hygiene
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
        query = query.replace("\x00", " ")
        if not query.strip():
            return SearchMemoryResponse()
        cap = self.search_options.limit if limit is None else limit
        if cap <= 0:
            raise InvalidInputError(f"limit must be positive, got {cap}")
        engine = await self._ensure_ready()
        (qvec,) = await self.embedder.embed([query])
        terms = query_terms(query)
        opts = self.search_options
        params: dict[str, Any] = {
            "app": app_name,
            "user": user_id,
            "qvec": vector_literal(qvec),
            "lim": cap,
            "cand": max(opts.candidates, cap),
        }
        if terms:
            sql = HYBRID_SQL
            params.update(text_params(terms, opts))
        else:
            sql = VECTOR_ONLY_SQL
        async with engine.connect() as conn:
            rows = (await conn.execute(sql, params)).mappings().all()
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
        return await self._delete("session_id = :sid", app_name, user_id, sid=session_id)

    async def delete_user_memories(self, *, app_name: str, user_id: str) -> int:
        """Delete every memory of one user in one app (right to be forgotten)."""
        check_scope(app_name, user_id)
        return await self._delete("TRUE", app_name, user_id, lock_user=True)

    async def purge_expired(self) -> int:
        """Delete items whose time-to-live has passed; returns how many."""
        engine = await self._ensure_ready()
        async with engine.begin() as conn:
            result = await conn.execute(
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
                text(f"SELECT DISTINCT user_id FROM {TABLE} WHERE app_name = :app ORDER BY 1"),
                {"app": app_name},
            )
            return [r.user_id for r in rows]

    async def _delete(
        self, where: str, app: str, user: str, *, lock_user: bool = False, **params: Any
    ) -> int:
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
            return result.rowcount or 0


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
