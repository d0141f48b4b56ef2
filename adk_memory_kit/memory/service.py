"""PgVectorMemoryService: ADK's BaseMemoryService on PostgreSQL + pgvector.

A thin adapter over three composed parts (docs/memory-service.md):

* ``service.store`` (:class:`~.memory_store.MemoryStore`): the tables, the engine, search;
* ``service.pipeline`` (:class:`~.pipeline.WritePipeline`): every write into the tables;
* ``service.curator`` (:class:`~.curator.MemoryCurator`): corrections, pins, decay.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from google.adk.events.event import Event
from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit.core.db_errors import db_doors
from adk_memory_kit.core.validation import check_bool, check_identifier, check_scope, clean_text
from adk_memory_kit.embedders.base import Embedder
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.config import MemoryConfig
from adk_memory_kit.memory.consolidation import Consolidator
from adk_memory_kit.memory.curator import MemoryCurator
from adk_memory_kit.memory.entries import entry_from_row, search_filters, search_limit
from adk_memory_kit.memory.memory_store import MemoryStore
from adk_memory_kit.memory.pipeline import WritePipeline
from adk_memory_kit.memory.reports import MemoryMetrics, SessionWrite, WriteReport

if TYPE_CHECKING:
    from google.adk.sessions.session import Session


@db_doors
class PgVectorMemoryService(BaseMemoryService):
    """Long-term memory on PostgreSQL + pgvector with ranked hybrid search.

    Args:
        db_url: ``postgresql+psycopg://user:pw@host:port/db``. ``None`` uses
            ``ADK_MEMORY_KIT_DB_URL`` or else the embedded server under ``ADK_MEMORY_KIT_HOME``.
        config: every option (:class:`MemoryConfig`); :meth:`from_url` takes its fields as
            keywords.
        embedder: any :class:`Embedder`; defaults to the local MiniLM ONNX model.
        engine: an existing ``AsyncEngine`` to share (e.g. with ``DatabaseSessionService``).
        uri: alias of ``db_url`` so ADK's ``services.yaml`` can build the service
            (``agents_dir``, which ADK's registry passes too, is ignored).
    """

    def __init__(
        self,
        db_url: str | None = None,
        *,
        config: MemoryConfig | None = None,
        embedder: Embedder | None = None,
        engine: AsyncEngine | None = None,
        uri: str | None = None,
        agents_dir: str | None = None,
        **unknown: Any,
    ) -> None:
        if unknown:
            raise InvalidInputError(
                f"unknown PgVectorMemoryService options: {sorted(unknown)}; options go in "
                "config=MemoryConfig(...) or PgVectorMemoryService.from_url(url, **options)"
            )
        if db_url and uri and db_url != uri:
            raise InvalidInputError("give db_url or uri, not two different URLs")
        if config is not None and not isinstance(config, MemoryConfig):
            raise InvalidInputError("config must be a MemoryConfig")
        if embedder is None:
            from adk_memory_kit.embedders.local import LocalMiniLMEmbedder

            embedder = LocalMiniLMEmbedder()
        config = config or MemoryConfig()
        self.metrics = MemoryMetrics()
        self.store = MemoryStore(
            db_url or uri,
            embedder=embedder,
            storage=config.storage,
            search=config.search,
            engine=engine,
            pool_size=config.pool_size,
            access_flush_delay=config.access_flush_delay,
        )
        self.pipeline = WritePipeline(self.store, config, self.metrics)
        self.curator = MemoryCurator(self.store, self.pipeline, self.metrics)

    @classmethod
    def from_url(
        cls,
        url: str | None = None,
        *,
        embedder: Embedder | None = None,
        engine: AsyncEngine | None = None,
        **config: Any,
    ) -> PgVectorMemoryService:
        """A service on ``url`` whose :class:`MemoryConfig` is built from ``config``
        (e.g. ``from_url(url, write_policy="full_transcript", min_importance=0.3)``)."""
        return cls(url, config=MemoryConfig(**config), embedder=embedder, engine=engine)

    # ------------------------------------------------------------------ plumbing
    @property
    def config(self) -> MemoryConfig:
        """The configuration the service was built with (the pipeline's; search options
        live on the store, where they may be replaced between searches)."""
        return self.pipeline.config

    @property
    def embedder(self) -> Embedder:
        return self.store.embedder

    @property
    def engine(self) -> AsyncEngine:
        """The store's engine (created on first use; starts the embedded server if needed)."""
        return self.store.engine

    async def ready(self) -> None:
        """Connect and create or check the schema now (else done on first use).

        Raises :class:`DatabaseUnavailableError` (unreachable server, no pgvector) or
        :class:`~adk_memory_kit.errors.SchemaMismatchError` (another embedder's table).
        """
        await self.store.ready()

    async def close(self) -> None:
        """Write pending recall accesses; dispose of the pool (only if this service made it)."""
        await self.store.close()

    async def __aenter__(self) -> PgVectorMemoryService:
        await self.store.ready()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------------ writes
    async def add_session_to_memory(self, session: Session) -> SessionWrite:  # type: ignore[override]  # a report ADK's callers may ignore
        """Store what the write policy selects of ``session`` (:meth:`WritePipeline.write_session`:
        snapshot order, kept hygiene values, one transaction); returns a :class:`SessionWrite`
        (ADK's contract returns ``None``; callers that ignore the result are unaffected)."""
        return await self.pipeline.write_session(session)

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
        await self.pipeline.write_events(
            app_name=app_name,
            user_id=user_id,
            events=events,
            session_id=session_id,
            custom_metadata=custom_metadata,
        )

    async def add_memory(  # type: ignore[override]  # a report ADK's callers may ignore
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
        consolidator: Consolidator | None = None,
    ) -> WriteReport:
        """Store explicit memories (dated facts); re-adding the same id or text updates it.

        :meth:`WritePipeline.write_entries` states the keys, the hygiene values, the gate and
        consolidation (``consolidator`` overrides the configured one for this call). Returns a
        :class:`WriteReport` with every entry's outcome, also counted in :attr:`metrics`.
        """
        return await self.pipeline.write_entries(
            app_name=app_name,
            user_id=user_id,
            memories=memories,
            custom_metadata=custom_metadata,
            consolidator=consolidator,
        )

    # ------------------------------------------------------------------ reads
    async def search_memory(
        self, *, app_name: str, user_id: str, query: str, limit: int | None = None
    ) -> SearchMemoryResponse:
        """Ranked hybrid search over this app+user's memories (empty query: no results).

        ADK's contract: every memory type except ``procedure`` (see :meth:`search`)."""
        return await self.search(app_name=app_name, user_id=user_id, query=query, limit=limit)

    async def search(
        self,
        *,
        app_name: str,
        user_id: str,
        query: str,
        types: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        as_of: datetime | str | None = None,
        limit: int | None = None,
        record_access: bool = True,
        include_superseded: bool = False,
    ) -> SearchMemoryResponse:
        """Ranked hybrid search with filters applied inside every ranked list.

        ``types``: only these memory types (``None``: all but ``procedure``, which is recalled
        only when asked for by type). ``tags``: items holding any of these tags. ``as_of``: what
        was true at that time (items whose ``[valid_from, valid_to)`` window holds it; naive
        times are UTC). Records an access on every returned item (batched, off the hot path)
        unless ``record_access`` is false (an operator looking: a look is not a use and must
        not keep an item from decaying). Superseded items are not returned unless
        ``include_superseded`` (they rank after current ones) or ``as_of`` names a time they
        held.
        """
        check_scope(app_name, user_id)
        if not isinstance(query, str):
            raise InvalidInputError(f"query must be a string, got {type(query).__name__}")
        cap = search_limit(limit, self.store.search_options.limit)
        check_bool("record_access", record_access)
        filters = search_filters(types, tags, as_of, include_superseded)
        query = clean_text(query.replace("\x00", " "))
        if not query.strip():
            return SearchMemoryResponse()
        rows = await self.store.search_rows(
            app_name=app_name, user_id=user_id, query=query, limit=cap, filters=filters
        )
        if rows and record_access:
            self.store.access.record(app_name, user_id, [str(r["id"]) for r in rows])
            self.metrics.accesses_recorded += len(rows)
        return SearchMemoryResponse(memories=[entry_from_row(r) for r in rows])

    async def flush_access(self) -> int:
        """Write the pending recall accesses now; returns how many rows were touched."""
        return await self.store.flush_access()

    # ------------------------------------------------------------------ deletes and counts
    async def delete_memory(  # type: ignore[override]  # a count ADK's callers may ignore
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> int:
        """Delete one memory item by the id carried in ``MemoryEntry.id``; returns how many
        rows went (0: this user has no such memory)."""
        check_scope(app_name, user_id)
        try:
            parsed = uuid.UUID(str(memory_id))
        except ValueError as exc:
            raise InvalidInputError(
                "memory_id is not an id returned by search_memory (a UUID)"
            ) from exc
        return await self.store.delete_id(app_name=app_name, user_id=user_id, row_id=str(parsed))

    async def delete_session_memories(self, *, app_name: str, user_id: str, session_id: str) -> int:
        """Delete every memory ingested from one session; returns the number of rows deleted.

        The session's snapshot mark goes too, so it can be ingested again from scratch.
        """
        check_scope(app_name, user_id)
        check_identifier("session_id", session_id)
        return await self.store.delete_session(
            app_name=app_name, user_id=user_id, session_id=session_id
        )

    async def delete_user_memories(self, *, app_name: str, user_id: str) -> int:
        """Delete every memory of one user in one app (right to be forgotten).

        Takes the user's write lock exclusively, so a racing write lands wholly before or
        wholly after the delete.
        """
        check_scope(app_name, user_id)
        return await self.store.delete_user(app_name=app_name, user_id=user_id)

    async def purge_expired(self) -> int:
        """Delete items whose time-to-live has passed; returns how many."""
        return await self.store.purge_expired()

    async def count_memories(self, *, app_name: str, user_id: str) -> dict[str, int]:
        """How many items this user has, by kind (for audits and data maps)."""
        check_scope(app_name, user_id)
        return await self.store.count_by_kind(app_name=app_name, user_id=user_id)

    async def list_users(self, app_name: str) -> list[str]:
        """The user ids that have memories in ``app_name``."""
        check_identifier("app_name", app_name)
        return await self.store.list_users(app_name)
