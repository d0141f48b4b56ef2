"""The storage floor of the memory service: ADK's BaseMemoryService on PostgreSQL + pgvector.

:class:`BasePgVectorMemoryService` is every part but language, a thin adapter over
``service.store`` (:class:`~.memory_store.MemoryStore`: tables, engine, search),
``service.pipeline`` (:class:`~.pipeline.WritePipeline`: every write) and ``service.curator``
(:class:`~.curator.MemoryCurator`: corrections, pins, decay); see docs/memory-service.md. What
of a session it stores comes from a :class:`~adk_memory_kit.core.session_policy.SessionSelector`;
``adk_memory_kit.PgVectorMemoryService`` is this class with the kit's routed selector wired in
(:mod:`adk_memory_kit.assembly`)."""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from google.adk.events.event import Event
from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from sqlalchemy.ext.asyncio import AsyncEngine
from typing_extensions import override

from adk_memory_kit.core.db_errors import db_doors
from adk_memory_kit.core.memory_scopes import USER, agent_scope, is_shared
from adk_memory_kit.core.scope import user_scope
from adk_memory_kit.core.session_policy import (
    SessionSelector,
    TranscriptSelector,
    WritePolicy,
)
from adk_memory_kit.core.validation import check_bool, check_identifier, check_scope, clean_text
from adk_memory_kit.embedders.base import Embedder, checked_embed
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.config import MemoryConfig
from adk_memory_kit.memory.consolidation import Consolidator
from adk_memory_kit.memory.curator import MemoryCurator
from adk_memory_kit.memory.entries import entry_from_row, search_filters, search_limit
from adk_memory_kit.memory.importer import ImportReport, import_memories
from adk_memory_kit.memory.pipeline import WritePipeline
from adk_memory_kit.memory.query import query_terms
from adk_memory_kit.memory.reports import MemoryMetrics, SessionWrite, WriteReport
from adk_memory_kit.memory.search import search_on_engine
from adk_memory_kit.memory.shared import ScopedMemory, memory_uuid
from adk_memory_kit.memory.store import MemoryStore

if TYPE_CHECKING:
    from google.adk.sessions.session import Session


def _selector(config: MemoryConfig) -> SessionSelector:
    """The selector ``config`` names: the transcript, or the routed one it carries."""
    if config.write_policy is WritePolicy.FULL_TRANSCRIPT:
        return TranscriptSelector()
    if config.routed_options is None:
        raise InvalidInputError(
            "write_policy 'routed' needs its selector: use adk_memory_kit.PgVectorMemoryService "
            "(it supplies the kit's), pass routed_options=RoutedOptions(...), or choose "
            "write_policy='full_transcript'"
        )
    return config.routed_options


@db_doors
class BasePgVectorMemoryService(ScopedMemory, BaseMemoryService):
    """Long-term memory on PostgreSQL + pgvector with ranked hybrid search, knowing no language.

    ``db_url``: ``postgresql+psycopg://...`` (``None``: ``ADK_MEMORY_KIT_DB_URL``, else the
    embedded server; ``uri``: its alias for ADK's ``services.yaml``; ``agents_dir`` ignored).
    ``config``: every option (:class:`MemoryConfig`; :meth:`from_url` takes its fields as
    keywords). ``embedder``: default the local MiniLM. ``engine``: an engine to share.
    ``WritePolicy.FULL_TRANSCRIPT`` needs nothing more; ``ROUTED`` (the default) needs its
    selector in ``config.routed_options`` (:class:`InvalidInputError` otherwise), which the
    assembled ``adk_memory_kit.PgVectorMemoryService`` supplies."""

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
        config = self.completed_config(config or MemoryConfig())
        self.metrics = MemoryMetrics()
        self.store = MemoryStore(
            db_url or uri,
            embedder=embedder,
            storage=config.storage,
            search=config.search,
            engine=engine,
            pool_size=config.pool_size,
            access_flush_delay=config.access_flush_delay,
            read_url=config.read_url,
            read_your_writes_s=config.read_your_writes_s,
            query_decomposer=config.query_decomposer,
        )
        self.pipeline = WritePipeline(self.store, config, self.metrics, _selector(config))
        self.curator = MemoryCurator(self.store, self.pipeline, self.metrics)

    def completed_config(self, config: MemoryConfig) -> MemoryConfig:
        """Hook for an assembly: fill in what the floor cannot choose itself (the routed
        selector). The floor's own answer is ``config`` as given."""
        return config

    @classmethod
    def from_url(
        cls,
        url: str | None = None,
        *,
        embedder: Embedder | None = None,
        engine: AsyncEngine | None = None,
        **config: Any,
    ) -> Self:
        """A service on ``url`` whose :class:`MemoryConfig` is built from ``config``
        (e.g. ``from_url(url, write_policy="full_transcript", min_importance=0.3)``)."""
        return cls(url, config=MemoryConfig(**config), embedder=embedder, engine=engine)

    @property
    def config(self) -> MemoryConfig:
        """The configuration built with (search options live on, and may change in, the store)."""
        return self.pipeline.config

    @property
    def embedder(self) -> Embedder:
        return self.store.embedder

    @property
    def engine(self) -> AsyncEngine:
        """The store's engine (created on first use; starts the embedded server if needed)."""
        return self.store.engine

    async def ready(self) -> None:
        """Connect and create or check the schema now (else on first use); raises
        ``DatabaseUnavailableError`` or ``SchemaMismatchError`` (another embedder's table)."""
        await self.store.ready()

    async def close(self) -> None:
        """Write pending recall accesses; dispose of the pool (only if this service made it)."""
        await self.store.close()

    async def __aenter__(self) -> Self:
        await self.store.ready()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @override
    async def add_session_to_memory(self, session: Session) -> SessionWrite:  # type: ignore[override]  # a report ADK's callers may ignore
        """Store what the write policy selects (:meth:`WritePipeline.write_session`); returns a
        :class:`SessionWrite` (ADK's contract returns ``None``; ignoring it is fine)."""
        return await self.pipeline.write_session(session)

    @override
    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Upsert a delta of events (nothing else of the session is touched); hygiene keys of
        ``custom_metadata`` apply to every event and replace the stored ones (none: none kept)."""
        await self.pipeline.write_events(
            app_name=app_name,
            user_id=user_id,
            events=events,
            session_id=session_id,
            custom_metadata=custom_metadata,
        )

    @override
    async def add_memory(  # type: ignore[override]  # a report ADK's callers may ignore
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
        consolidator: Consolidator | None = None,
    ) -> WriteReport:
        """Store explicit memories (re-adding an id or text updates it: ``write_entries``);
        ``consolidator`` overrides the config's. Outcomes are returned and counted in metrics."""
        return await self.pipeline.write_entries(
            app_name=app_name,
            user_id=user_id,
            memories=memories,
            custom_metadata=custom_metadata,
            consolidator=consolidator,
        )

    @override
    async def search_memory(
        self, *, app_name: str, user_id: str, query: str, limit: int | None = None
    ) -> SearchMemoryResponse:
        """ADK's search: :meth:`search` over every memory type but ``procedure``."""
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
        agent_name: str | None = None,
    ) -> SearchMemoryResponse:
        """Ranked hybrid search of this app+user's memories (empty query: none), the filters
        (docs/memory-service.md) inside every ranked list; records an access on each of the
        user's own results unless ``record_access`` is false (an operator's look is not a use).

        Scopes (docs/scopes.md): the user's own rows, the app's shared rows and each granted
        group's, and with ``agent_name`` that agent's private rows, ranked together; each
        entry's ``custom_metadata["scope"]`` says whose it is. No other user's rows and no
        other agent's private rows are ever read."""
        check_scope(app_name, user_id)
        if agent_name is not None:
            agent_scope(agent_name)  # checked before any query
        if not isinstance(query, str):
            raise InvalidInputError(f"query must be a string, got {type(query).__name__}")
        cap = search_limit(limit, self.store.search_options.limit)
        check_bool("record_access", record_access)
        filters = search_filters(types, tags, as_of, include_superseded)
        query = clean_text(query.replace("\x00", " "))
        if not query.strip():
            return SearchMemoryResponse()
        reads = await self.store.entitled_reads(app_name, user_id, agent_name)
        rows = await self.store.search_rows(
            app_name=app_name, user_id=user_id, query=query, limit=cap, filters=filters, reads=reads
        )
        own = [str(r["id"]) for r in rows if not is_shared(r.get("scope") or USER)]
        if own and record_access:
            self.store.access.record(app_name, user_id, own)
            self.metrics.accesses_recorded += len(own)
        return SearchMemoryResponse(memories=[entry_from_row(r) for r in rows])

    async def search_below_floor(
        self,
        *,
        app_name: str,
        user_id: str,
        query: str,
        limit: int,
        include_superseded: bool = True,
    ) -> list[MemoryEntry]:
        """This app+user's ``limit`` memories ranked closest to ``query`` by the hybrid search
        with its relevance floor lifted (superseded ones too, unless ``include_superseded`` is
        false), best first: for a caller that judges relevance itself (what a user names in
        other words is often below the floor). The query is searched as given; no access is
        recorded; the entries carry their scores in ``custom_metadata``."""
        check_scope(app_name, user_id)
        store = self.store
        engine = await store.ready()

        async def embed_query() -> list[float]:
            (vector,) = await checked_embed(store.embedder, [query], queries=True)
            return vector

        with user_scope(app_name, user_id):  # row-level security
            rows = await search_on_engine(
                engine,
                app=app_name,
                user=user_id,
                embed_query=embed_query,
                terms=query_terms(query),
                limit=limit,
                options=store.search_options.model_copy(update={"relevance_floor": False}),
                filters=search_filters(None, None, None, include_superseded),
            )
        return [entry_from_row(r) for r in rows]

    async def flush_access(self) -> int:
        """Write the pending recall accesses now; returns how many rows were touched."""
        return await self.store.flush_access()

    async def import_memories(self, source: str | Path, **options: Any) -> ImportReport:
        """Bulk-import ``source`` (JSON lines, ADK's SQLite memory, a Mem0 export) through this
        service's own write doors, resumably (:func:`~.importer.import_memories`)."""
        return await import_memories(self, source, **options)

    @override
    async def delete_memory(  # type: ignore[override]  # a count ADK's callers may ignore
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> int:
        """Delete one memory by its ``MemoryEntry.id``; returns the rows deleted (0: none)."""
        check_scope(app_name, user_id)
        row_id = memory_uuid(memory_id)
        return await self.store.delete_id(app_name=app_name, user_id=user_id, row_id=row_id)

    async def delete_session_memories(self, *, app_name: str, user_id: str, session_id: str) -> int:
        """Delete the memories ingested from one session and its snapshot mark (it may be
        ingested again from scratch); returns the number of rows deleted."""
        check_scope(app_name, user_id)
        check_identifier("session_id", session_id)
        return await self.store.delete_session(
            app_name=app_name, user_id=user_id, session_id=session_id
        )

    async def delete_user_memories(self, *, app_name: str, user_id: str) -> int:
        """Delete every memory of one user in one app (right to be forgotten), under the
        user's exclusive write lock: a racing write lands wholly before or after it."""
        check_scope(app_name, user_id)
        return await self.store.delete_user(app_name=app_name, user_id=user_id)

    async def delete_memories(self, *, app_name: str, user_id: str) -> int:
        """ADK's coming ``BaseMemoryService.delete_memories`` (every memory of one user in one
        app): :meth:`delete_user_memories` under ADK's name; returns the rows deleted."""
        return await self.delete_user_memories(app_name=app_name, user_id=user_id)

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

    # -- moved in 0.1.0 to ``service.curator``; kept one more release with a warning ---------
    async def correct_memory(self, **kwargs: Any) -> Any:
        """Deprecated: ``service.curator.correct_memory`` (same arguments)."""
        _moved_to_curator("correct_memory")
        return await self.curator.correct_memory(**kwargs)

    async def pin_memory(self, **kwargs: Any) -> Any:
        """Deprecated: ``service.curator.pin_memory`` (same arguments)."""
        _moved_to_curator("pin_memory")
        return await self.curator.pin_memory(**kwargs)

    async def purge_stale(self, **kwargs: Any) -> Any:
        """Deprecated: ``service.curator.purge_stale`` (same arguments)."""
        _moved_to_curator("purge_stale")
        return await self.curator.purge_stale(**kwargs)


def _moved_to_curator(name: str) -> None:
    warnings.warn(
        f"PgVectorMemoryService.{name} moved to service.curator.{name}; the old name goes in "
        "the next release",
        DeprecationWarning,
        stacklevel=3,
    )
