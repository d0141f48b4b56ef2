"""PgVectorMemoryService: ADK's BaseMemoryService on PostgreSQL + pgvector."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import numbers
import os
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from google.adk.events.event import Event
from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import text
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.core.db_errors import db_doors, translates_db_errors
from adk_memory_kit.core.ids import legacy_text_fact_key, memory_row_id
from adk_memory_kit.core.scope import operator_scope
from adk_memory_kit.core.validation import (
    check_identifier,
    check_mapping,
    check_scope,
)
from adk_memory_kit.db.embedded import DB_URL_ENV, kit_home
from adk_memory_kit.db.engine import is_default_uri, make_engine
from adk_memory_kit.embedders.base import Embedder, checked_embed
from adk_memory_kit.errors import DatabaseUnavailableError, InvalidInputError
from adk_memory_kit.memory import store
from adk_memory_kit.memory.access import AccessRecorder
from adk_memory_kit.memory.ann import IndexBuilder
from adk_memory_kit.memory.consolidation import Consolidator
from adk_memory_kit.memory.curation import CurationMixin, Verifier
from adk_memory_kit.memory.documents import (
    IndexingOptions,
    MemoryDocument,
    as_events,
    documents_from_entries,
    documents_from_events,
    newest_event_time,
)
from adk_memory_kit.memory.hygiene import Hygiene, pop_hygiene
from adk_memory_kit.memory.query import query_terms
from adk_memory_kit.memory.reports import EntryOutcome, MemoryMetrics, SessionWrite, WriteReport
from adk_memory_kit.memory.rerank import asks_about_now
from adk_memory_kit.memory.schema import StorageOptions, ensure_schema
from adk_memory_kit.memory.search import (
    SearchFilters,
    SearchOptions,
    SearchPlan,
    search_on_engine,
)
from adk_memory_kit.write_policy.policy import (
    RoutedOptions,
    WritePolicy,
    resolve_policy,
    select_events,
)

if TYPE_CHECKING:
    from google.adk.sessions.session import Session

logger = logging.getLogger(__name__)


@db_doors
class PgVectorMemoryService(CurationMixin, BaseMemoryService):
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
        write_policy: what ``add_session_to_memory`` stores (every lifecycle path goes through
            it): ``WritePolicy.ROUTED`` (default: routed facts and the user's contentful
            turns, see :mod:`adk_memory_kit.write_policy`) or ``WritePolicy.FULL_TRANSCRIPT``
            (every text event, LoCoMo-style episodic recall). Names are accepted too.
        routed_options: tuning of the ROUTED policy (:class:`RoutedOptions`).
        partitions: create a new database's memory tables hash-partitioned by ``user_id``
            into this many partitions (``None``: plain tables), validated by
            :class:`StorageOptions`. An existing unpartitioned table is refused; see
            docs/scale.md for the migration.
        consolidator: compares each new fact with the user's nearby facts on write
            (:class:`RuleConsolidator`, :class:`LlmConsolidator`); ``None``: written as given.
        verifier: quality gate on fact writes, ``(entry) -> True | False | reason`` (may be
            async); rejected entries are reported by ``add_memory`` and counted in ``metrics``.
        min_importance: entries with a lower ``importance`` are rejected the same way.
        access_flush_delay: seconds recall accesses wait in memory before one UPDATE per user.
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
        write_policy: WritePolicy | str | None = None,
        routed_options: RoutedOptions | None = None,
        partitions: int | None = None,
        consolidator: Consolidator | None = None,
        verifier: Verifier | None = None,
        min_importance: float | None = None,
        access_flush_delay: float = 2.0,
        **kwargs: Any,
    ) -> None:
        kwargs.pop("agents_dir", None)  # passed by ADK's service registry
        if kwargs:
            raise InvalidInputError(f"unknown PgVectorMemoryService options: {sorted(kwargs)}")
        if db_url and uri and db_url != uri:
            raise InvalidInputError("give db_url or uri, not two different URLs")
        self.storage = StorageOptions(partitions=partitions)
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
        self.write_policy = resolve_policy(write_policy)
        self.routed_options = routed_options or RoutedOptions()
        self._ready = False
        self._ready_lock: asyncio.Lock | None = None
        if min_importance is not None and (
            isinstance(min_importance, bool)
            or not isinstance(min_importance, numbers.Real)
            or not 0.0 <= float(min_importance) <= 1.0
        ):
            raise InvalidInputError("min_importance must be a number in [0, 1] or None")
        if verifier is not None and not callable(verifier):
            raise InvalidInputError("verifier must be a callable (entry) -> bool | reason")
        self.consolidator = consolidator
        self.verifier = verifier
        self.min_importance = None if min_importance is None else float(min_importance)
        self.metrics = MemoryMetrics()
        self._access = AccessRecorder(self._write_access, flush_delay=access_flush_delay)
        self._index_builder = IndexBuilder(min_rows=self.search_options.heavy_user_rows)

    # ------------------------------------------------------------------ plumbing
    @property
    def partitions(self) -> int | None:
        """The hash-partition count a new database's memory tables get (None: plain)."""
        return self.storage.partitions

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

    async def _ensure_ready(self) -> AsyncEngine:
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
                        partitions=self.partitions,
                    )
                    self._ready = True
        return self.engine

    @translates_db_errors("PgVectorMemoryService.ready")
    async def ready(self) -> None:
        """Connect and create or check the schema now (else done on first use).

        Raises :class:`DatabaseUnavailableError` (unreachable server, no pgvector) or
        :class:`~adk_memory_kit.errors.SchemaMismatchError` (another embedder's table).
        """
        await self._ensure_ready()

    async def close(self) -> None:
        """Write pending recall accesses; dispose of the pool (only if this service made it)."""
        await self._index_builder.close()
        if self._ready:
            try:
                await self._access.close()
            except Exception as exc:  # never keep a pool open for a failed flush
                logger.warning("memory access flush at close failed: %s", type(exc).__name__)
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
    @translates_db_errors("PgVectorMemoryService.add_session_to_memory")
    async def add_session_to_memory(self, session: Session) -> SessionWrite:  # type: ignore[override]  # a report ADK's callers may ignore
        """Upsert the text events of ``session`` the write policy selects; drop other rows.

        Under ``WritePolicy.ROUTED`` (default) each event is first reduced to the sentences the
        policy stores (:func:`adk_memory_kit.write_policy.select_events`); an event left with
        nothing is not stored, and its row from an earlier ingestion is deleted as if the event
        were gone. ``FULL_TRANSCRIPT`` stores every text event.

        Snapshots of one session are ordered by their newest event time (of any event, text or
        not). A snapshot older than one already written changes nothing, so a slow writer of an
        older copy of the session never undoes a newer one. Rows of events missing from the
        snapshot are deleted only if they are not newer than the snapshot's newest event: rows
        of later events (from a newer snapshot or ``add_events_to_memory``) are kept, so
        removing a session's *latest* events without appending a newer one does not remove
        them from memory (use ``delete_memory`` or ``delete_session_memories``). A session
        with no events changes nothing. Expiry, importance, subject and extra metadata that an
        explicit add set on the session's rows are kept.

        One connection: one read (the snapshot mark and the stored rows by id), one embedding
        call for the changed texts, then one transaction.

        Returns a :class:`~adk_memory_kit.memory.SessionWrite` whose ``rows_stored`` is the
        number of memory rows now holding the session's events (ADK's contract returns
        ``None``; callers that ignore the result are unaffected).
        """
        check_scope(session.app_name, session.user_id)
        check_identifier("session.id", session.id)
        events = as_events(session.events)  # duck-typed events as ADK's services take them
        # write-policy hook: only what the policy selects is stored (newest stays the session's)
        selected = await select_events(
            session, events, self.write_policy, self.routed_options, index_context=True
        )
        docs, newest = await asyncio.to_thread(self._session_documents, session, events, selected)
        if newest is None:
            return SessionWrite(session.id, 0, status="empty")
        app, user, sid = session.app_name, session.user_id, session.id
        engine = await self._ensure_ready()
        async with engine.connect() as conn:
            async with conn.begin():
                if await store.newer_snapshot_stored(conn, app, user, sid, newest):
                    held = await store.count_session_events(conn, app, user, sid)
                    return SessionWrite(sid, held, status="older_snapshot")
                stored = await store.read_by_ids(
                    conn, app, user, ((d.id, d.source_hash) for d in docs), same_too=False
                )
            changed = [
                d for d in docs if d.id not in stored or stored[d.id].source_hash != d.source_hash
            ]
            vectors = await self._vectors(changed, stored)
            rows = [
                store.row(app, user, doc, vectors[doc.id], Hygiene(), None)
                for doc in sorted(changed, key=lambda d: d.id)
            ]
            async with conn.begin():
                await store.lock_user(conn, app, user, exclusive=False)
                await store.lock_session(conn, app, user, sid)
                if await store.newer_snapshot_stored(conn, app, user, sid, newest):
                    logger.debug("skipped an older snapshot of session %s", sid)
                    held = await store.count_session_events(conn, app, user, sid)
                    return SessionWrite(sid, held, status="older_snapshot")
                await store.mark_snapshot(conn, app, user, sid, newest)
                await store.upsert(conn, rows, session=True)
                await store.delete_missing_events(
                    conn, app, user, sid, newest, [d.id for d in docs]
                )
        return SessionWrite(sid, len({d.id for d in docs}), len(rows))

    @translates_db_errors("PgVectorMemoryService.session_row_delta")
    async def session_row_delta(self, session: Session) -> int:
        """How many rows ``add_session_to_memory(session)`` would add (negative: remove) for
        this user, computed without writing anything (``reindex --dry-run``).

        Counts rows, not texts: a row the policy keeps with other text is not counted. A
        snapshot older than the stored one changes nothing (0)."""
        check_scope(session.app_name, session.user_id)
        check_identifier("session.id", session.id)
        events = as_events(session.events)  # duck-typed events as ADK's services take them
        selected = await select_events(
            session, events, self.write_policy, self.routed_options, index_context=True
        )
        docs, newest = await asyncio.to_thread(self._session_documents, session, events, selected)
        if newest is None:
            return 0
        app, user, sid = session.app_name, session.user_id, session.id
        engine = await self._ensure_ready()
        async with engine.connect() as conn:
            if await store.newer_snapshot_stored(conn, app, user, sid, newest):
                return 0
            added, deleted = await store.session_row_changes(
                conn, app, user, sid, newest, [d.id for d in docs]
            )
        return added - deleted

    def _session_documents(
        self, session: Session, events: list[Event], selected: list[Event] | None = None
    ) -> tuple[list[MemoryDocument], datetime | None]:
        """Documents of ``selected`` (default: all events) and the newest time of ``events``
        (CPU work: run in a thread)."""
        docs = documents_from_events(
            session.app_name,
            session.user_id,
            session.id,
            events if selected is None else selected,
            self.indexing,
        )
        return docs, newest_event_time(events)

    @translates_db_errors("PgVectorMemoryService.add_events_to_memory")
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
        metadata = check_mapping("custom_metadata", custom_metadata)
        hygiene = pop_hygiene(metadata)
        docs = await asyncio.to_thread(
            documents_from_events,
            app_name,
            user_id,
            session_id or "",
            as_events(events),
            self.indexing,
            metadata,
        )
        if not docs:
            return
        engine = await self._ensure_ready()
        async with engine.connect() as conn:
            async with conn.begin():
                stored = await store.read_by_ids(
                    conn, app_name, user_id, ((d.id, d.source_hash) for d in docs), same_too=True
                )
            await self._write(conn, app_name, user_id, [(d, hygiene) for d in docs], stored)

    @translates_db_errors("PgVectorMemoryService.add_memory")
    async def add_memory(  # type: ignore[override]  # a report ADK's callers may ignore
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
        consolidator: Consolidator | None = None,
    ) -> WriteReport:
        """Store explicit memories (dated facts). Re-adding the same id or text updates it.

        ``MemoryEntry.id`` is either the id of a row ``search_memory`` returned (that row is
        updated in place: it keeps its session and event key, so an entry re-added exactly as
        returned never duplicates) or the caller's own stable key for the entry (scoped by
        ``custom_metadata["session_id"]`` when given). Without an id the entry is keyed by its
        normalized text (:func:`adk_memory_kit.core.ids.fact_key`; a row stored by an older
        release under its exact text's key is updated in place). The keys ``search_memory``
        adds to returned metadata (``score``, ``scores``, ``event_id``, ``ingested_at``,
        ``superseded_at``) are not stored.

        ``custom_metadata`` (call-wide) and each entry's ``custom_metadata`` may carry
        ``ttl``/``ttl_seconds``, ``expires_at``, ``importance`` and ``subject``; see
        :mod:`adk_memory_kit.memory.hygiene`. Re-adding an entry replaces its stored values
        of these (none given: none kept), and an entry whose subject has a newer-dated current
        fact is stored already superseded.

        All entries are written together: one read of the stored rows, one embedding call,
        one transaction (all or nothing). Of entries with the same key, the last one given
        wins.

        Issue 16: ``memory_type``, ``tags`` and ``valid_from`` are read too. Entries below the
        ``min_importance`` threshold or refused by the ``verifier`` are not stored; with a
        ``consolidator`` each fact is compared with the user's nearby facts first (ADD,
        UPDATE, NOOP, CONFLICT). Returns a :class:`WriteReport` with every entry's outcome
        (rejected ones included), also counted in :attr:`metrics`. ``consolidator``
        overrides the service's for this call (the sleep-time distiller passes its own).
        """
        check_scope(app_name, user_id)
        base = check_mapping("custom_metadata", custom_metadata)
        prepared: list[MemoryEntry] = []
        hygienes: list[Hygiene] = []
        for entry in memories:
            if not isinstance(entry, MemoryEntry):
                raise InvalidInputError(f"memories must be MemoryEntry objects, got {type(entry)}")
            merged = {**base, **check_mapping("MemoryEntry.custom_metadata", entry.custom_metadata)}
            hygienes.append(pop_hygiene(merged))
            prepared.append(entry.model_copy(update={"custom_metadata": merged}))
        report = WriteReport()
        if not prepared:
            return report
        passed = await self._gate(prepared, hygienes, report)
        if not passed:
            report.outcomes.sort(key=lambda o: o.index)
            return report
        engine = await self._ensure_ready()
        async with engine.connect() as conn:
            entries = [prepared[i] for i in passed]
            items, stored = await self._prepare(
                conn, app_name, user_id, entries, [hygienes[i] for i in passed]
            )
            indexed = [(passed[j], d, h) for j, d, h in items]
            consolidator = consolidator or self.consolidator
            if consolidator is None:
                await self._write(conn, app_name, user_id, [(d, h) for _, d, h in indexed], stored)
                report.outcomes += [EntryOutcome(i, "WRITTEN", d.id) for i, d, _ in indexed]
            else:
                kept, vectors, after = await self._consolidate(
                    conn, app_name, user_id, indexed, stored, report, consolidator
                )
                await self._write(
                    conn, app_name, user_id, kept, stored, vectors=vectors, after=after
                )
        self.metrics.written += sum(o.outcome != "REJECTED" for o in report.outcomes)
        report.outcomes.sort(key=lambda o: o.index)
        return report

    async def _prepare(
        self,
        conn: AsyncConnection,
        app_name: str,
        user_id: str,
        prepared: list[MemoryEntry],
        hygienes: list[Hygiene] | None = None,
    ) -> tuple[list[Any], Mapping[str, store.StoredRow]]:
        """Documents of explicit entries and the stored rows they touch: ``([(index, doc,
        hygiene)], stored)``; of entries with the same key the last one given wins."""
        if hygienes is None:
            hygienes = []
            for i, entry in enumerate(prepared):
                meta = dict(entry.custom_metadata or {})
                hygienes.append(pop_hygiene(meta))
                prepared[i] = entry.model_copy(update={"custom_metadata": meta})
        # Keys as if nothing were stored; the one read below also finds rows the entries'
        # ids name (row ids search_memory returned) and rows under the older text key.
        fresh = await asyncio.to_thread(
            documents_from_entries, app_name, user_id, prepared, self.indexing, {}
        )
        lookups: dict[str, str] = {}
        legacy_ids: dict[int, str] = {}
        for i, (entry, doc) in enumerate(zip(prepared, fresh, strict=True)):
            lookups[doc.id] = doc.source_hash
            if entry.id and (named := _as_uuid(entry.id)) is not None:
                lookups[named] = doc.source_hash
            elif not entry.id:
                legacy = memory_row_id(
                    app_name, user_id, doc.session_id, legacy_text_fact_key(doc.text)
                )
                if legacy != doc.id:
                    legacy_ids[i] = legacy
                    lookups[legacy] = doc.source_hash
        async with conn.begin():
            stored = await store.read_by_ids(
                conn, app_name, user_id, lookups.items(), same_too=True
            )
        stored_keys = {
            entry.id: stored[named].key
            for entry in prepared
            if entry.id and (named := _as_uuid(entry.id)) in stored
        }
        docs = (
            await asyncio.to_thread(
                documents_from_entries,
                app_name,
                user_id,
                prepared,
                self.indexing,
                {},
                stored_keys,
            )
            if stored_keys
            else fresh
        )
        for i, legacy in legacy_ids.items():
            if docs[i].id not in stored and legacy in stored:
                old = stored[legacy]
                docs[i] = dataclasses.replace(docs[i], id=old.id, event_id=old.event_id)
        last: dict[str, tuple[int, MemoryDocument, Hygiene]] = {}
        for i, (doc, hygiene) in enumerate(zip(docs, hygienes, strict=True)):
            last.pop(doc.id, None)  # the last entry with a key wins, in its position
            last[doc.id] = (i, doc, hygiene)
        return list(last.values()), stored

    async def _write(
        self,
        conn: AsyncConnection,
        app_name: str,
        user_id: str,
        items: list[tuple[MemoryDocument, Hygiene]],
        stored: Mapping[str, store.StoredRow],
        *,
        vectors: Mapping[str, Any] | None = None,
        before: Callable[[AsyncConnection], Awaitable[None]] | None = None,
        after: Callable[[AsyncConnection], Awaitable[None]] | None = None,
    ) -> None:
        """Upsert explicitly added items (their text, metadata and hygiene values as given) in
        one transaction on ``conn``; ``stored`` is what the caller read for their ids.
        ``before``/``after`` run in the same transaction (corrections, consolidation)."""
        # under a subject every item is rewritten: its supersession is decided under the lock
        changed = [
            (d, h)
            for d, h in items
            if h.subject or d.id not in stored or stored[d.id].differs(d, h)
        ]
        if not changed and before is None and after is None:
            return
        missing = [d for d, _ in changed if vectors is None or d.id not in vectors]
        vectors = {**(vectors or {}), **(await self._vectors(missing, stored) if missing else {})}
        async with conn.begin():
            await store.lock_user(conn, app_name, user_id, exclusive=False)
            if before is not None:
                await before(conn)
            for session_id in sorted({d.session_id for d, _ in items}):
                await store.lock_session(conn, app_name, user_id, session_id)
            valid_to: dict[str, datetime | None] = {}
            for subject in sorted({h.subject for _, h in items if h.subject}):
                same = [(d, h.valid_from or d.event_time) for d, h in items if h.subject == subject]
                valid_to |= await self._supersede(conn, app_name, user_id, subject, same)
            rows = [
                store.row(app_name, user_id, d, vectors[d.id], h, valid_to.get(d.id))
                for d, h in sorted(changed, key=lambda item: item[0].id)
            ]
            await store.upsert(conn, rows, session=False)
            if after is not None:
                await after(conn)

    async def _supersede(
        self,
        conn: AsyncConnection,
        app: str,
        user: str,
        subject: str,
        dated: list[tuple[MemoryDocument, datetime]],
    ) -> dict[str, datetime | None]:
        """Order facts of one subject by their dates, not by the order of the writes.

        Current facts dated no later than an incoming one are superseded (``valid_to`` = the
        date of the incoming fact that replaced them). An incoming fact older than a current
        (unexpired) one, or than another incoming fact of the same call, is stored already
        superseded, as of the date of the earliest such newer fact; of incoming facts with the
        same date the one given last wins (as a stored fact loses to an incoming one of its
        date). Returns each incoming fact's ``valid_to`` (``None``: current).
        """
        await store.lock_subject(conn, app, user, subject)
        keep = [d.id for d, _ in dated]
        current = await store.current_subject_times(conn, app, user, subject, keep)
        valid_to: dict[str, datetime | None] = {}
        for i, (doc, when) in enumerate(dated):
            newer = [t for t in current if t > when]
            newer += [
                other_when
                for j, (other, other_when) in enumerate(dated)
                if other.id != doc.id and (other_when > when or (other_when == when and j > i))
            ]
            valid_to[doc.id] = min(newer) if newer else None
        await store.supersede(conn, app, user, subject, [w for _, w in dated], keep)
        return valid_to

    async def _vectors(
        self, changed: list[MemoryDocument], stored: Mapping[str, store.StoredRow]
    ) -> dict[str, Any]:
        """Embeddings for ``changed``: stored ones where the embedded text is unchanged, the
        rest from ONE embedder call."""
        kept = {
            d.id: stored[d.id].embedding
            for d in changed
            if d.id in stored and stored[d.id].embedding is not None
        }
        to_embed = [d for d in changed if d.id not in kept]
        fresh = await checked_embed(self.embedder, [d.embed_text for d in to_embed])
        return {**kept, **{d.id: v for d, v in zip(to_embed, fresh, strict=True)}}

    # ------------------------------------------------------------------ reads
    @translates_db_errors("PgVectorMemoryService.search_memory")
    async def search_memory(
        self, *, app_name: str, user_id: str, query: str, limit: int | None = None
    ) -> SearchMemoryResponse:
        """Ranked hybrid search over this app+user's memories (empty query: no results).

        ADK's contract: every memory type except ``procedure`` (see :meth:`search`)."""
        return await self.search(app_name=app_name, user_id=user_id, query=query, limit=limit)

    async def _search_rows(
        self, app: str, user: str, query: str, limit: int, filters: SearchFilters
    ) -> list[Mapping[str, Any]]:
        engine = await self._ensure_ready()

        async def embed_query() -> list[float]:
            (qvec,) = await checked_embed(self.embedder, [query], queries=True)
            return qvec

        def on_plan(plan: SearchPlan) -> None:
            if self.search_options.ann_auto_build:  # a heavy user's missing index
                self._index_builder.consider(engine, app, user, plan.rows, plan.ann)

        return await search_on_engine(
            engine,
            app=app,
            user=user,
            embed_query=embed_query,
            terms=query_terms(query),
            limit=limit,
            options=self.search_options,
            filters=filters,
            on_plan=on_plan,
            present_tense=asks_about_now(query),
        )

    async def wait_for_index_builds(self) -> None:
        """Wait for the background index builds this service started (memory/ann.py)."""
        await self._index_builder.wait()

    # ------------------------------------------------------------------ deletes
    @translates_db_errors("PgVectorMemoryService.delete_memory")
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
        engine = await self._ensure_ready()
        async with engine.begin() as conn:
            return await store.delete_id(conn, app_name, user_id, str(parsed))

    @translates_db_errors("PgVectorMemoryService.delete_session_memories")
    async def delete_session_memories(self, *, app_name: str, user_id: str, session_id: str) -> int:
        """Delete every memory ingested from one session; returns the number of rows deleted.

        The session's snapshot mark goes too, so it can be ingested again from scratch.
        """
        check_scope(app_name, user_id)
        check_identifier("session_id", session_id)
        engine = await self._ensure_ready()
        async with engine.begin() as conn:
            return await store.delete_session(conn, app_name, user_id, session_id)

    @translates_db_errors("PgVectorMemoryService.delete_user_memories")
    async def delete_user_memories(self, *, app_name: str, user_id: str) -> int:
        """Delete every memory of one user in one app (right to be forgotten).

        Takes the user's write lock exclusively, so a racing write lands wholly before or
        wholly after the delete.
        """
        check_scope(app_name, user_id)
        engine = await self._ensure_ready()
        async with engine.begin() as conn:
            await store.lock_user(conn, app_name, user_id, exclusive=True)
            return await store.delete_user(conn, app_name, user_id)

    @translates_db_errors("PgVectorMemoryService.purge_expired")
    async def purge_expired(self) -> int:
        """Delete items whose time-to-live has passed; returns how many."""
        engine = await self._ensure_ready()
        with operator_scope():  # maintenance over every user
            async with engine.begin() as conn:
                return await store.purge_expired(conn)

    @translates_db_errors("PgVectorMemoryService.count_memories")
    async def count_memories(self, *, app_name: str, user_id: str) -> dict[str, int]:
        """How many items this user has, by kind (for audits and data maps)."""
        check_scope(app_name, user_id)
        engine = await self._ensure_ready()
        async with engine.connect() as conn:
            return dict(await store.count_by_kind(conn, app_name, user_id))

    @translates_db_errors("PgVectorMemoryService.list_users")
    async def list_users(self, app_name: str) -> list[str]:
        """The user ids that have memories in ``app_name``."""
        check_identifier("app_name", app_name)
        engine = await self._ensure_ready()
        with operator_scope():  # an operator's view across the app's users
            async with engine.connect() as conn:
                return await store.list_users(conn, app_name)


def _as_uuid(value: str) -> str | None:
    """``value`` as a canonical row id, or ``None`` if it is not a UUID (a caller's key)."""
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


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
    for key in ("subject", "importance", "memory_type", "superseded_reason", "superseded_by"):
        if row.get(key) is not None:
            metadata[key] = row[key]
    metadata["tags"] = list(row.get("tags") or [])
    for key in ("valid_from", "recorded_at", "last_accessed_at", "last_confirmed_at"):
        if row.get(key) is not None:
            metadata[key] = row[key].astimezone(timezone.utc).isoformat()
    metadata["access_count"] = int(row.get("access_count") or 0)
    metadata["pinned"] = bool(row.get("pinned"))
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
