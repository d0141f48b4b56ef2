"""WritePipeline: the one way into the memory tables.

Every write passes the same stages, in order: the write policy (sessions: which sentences
are stored), verification (explicit entries: ``min_importance`` and the verifier), the
documents (text cleaned and redacted by ``IndexingOptions.redactor``; the store redacts
again), consolidation (explicit facts, with a consolidator), then the write (supersession
by subject, embeddings reused for unchanged text, one transaction). The service's
``add_*`` methods, the sleep-time distiller, ``MemoryToolset``, ``reindex`` and the
curator's corrections all call it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from google.adk.events.event import Event
from google.adk.memory.memory_entry import MemoryEntry
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.core.db_errors import db_doors
from adk_memory_kit.core.ids import legacy_text_fact_key, memory_row_id
from adk_memory_kit.core.memory_scopes import (
    AGENT_PREFIX,
    USER,
    is_shared,
    owner_of,
    parse_scope,
)
from adk_memory_kit.core.session_policy import SessionSelector
from adk_memory_kit.core.validation import (
    MAX_SCOPE_CHARS,
    check_identifier,
    check_mapping,
    check_scope,
)
from adk_memory_kit.embedders.base import checked_embed
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory import items_sql
from adk_memory_kit.memory.config import MemoryConfig
from adk_memory_kit.memory.consolidation import Consolidator
from adk_memory_kit.memory.documents import (
    MemoryDocument,
    as_events,
    documents_from_entries,
    documents_from_events,
    newest_event_time,
)
from adk_memory_kit.memory.hygiene import Hygiene, pop_hygiene
from adk_memory_kit.memory.reports import EntryOutcome, MemoryMetrics, SessionWrite, WriteReport
from adk_memory_kit.memory.store import MemoryStore
from adk_memory_kit.memory.write_stages import consolidate, verify

if TYPE_CHECKING:
    from google.adk.sessions.session import Session

logger = logging.getLogger(__name__)
Hook = Callable[[AsyncConnection], Awaitable[None]]


@db_doors
class WritePipeline:
    """Policy, verification, documents (redaction), consolidation, write: for every writer.

    Args:
        store: the tables written.
        config: the service's configuration (indexing, gate, consolidator).
        metrics: counters shared with the service (written, rejected, consolidation).
        selector: what of a session is stored (the write policy, as the service resolved it).
    """

    def __init__(
        self,
        store: MemoryStore,
        config: MemoryConfig,
        metrics: MemoryMetrics,
        selector: SessionSelector,
    ) -> None:
        self.store = store
        self.config = config
        self.metrics = metrics
        self.selector = selector

    # ------------------------------------------------------------------ sessions
    async def write_session(self, session: Session) -> SessionWrite:
        """Upsert the text events of ``session`` the write policy selects; drop other rows.

        Each event is first reduced to the sentences the selector stores (under
        ``WritePolicy.ROUTED``, the router's choice); an event left with nothing is not stored,
        and its row from an earlier ingestion is deleted as if the event were gone.
        ``FULL_TRANSCRIPT`` stores every text event.

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
        call for the changed texts, then one transaction. Returns a :class:`SessionWrite`.
        """
        docs, newest = await self._policy_documents(session)
        if newest is None:
            return SessionWrite(session.id, 0, status="empty")
        engine = await self.store.ready()
        with self.store.writing(session.app_name, session.user_id):
            return await self._write_session(engine, session, docs, newest)

    async def _write_session(
        self, engine: AsyncEngine, session: Session, docs: list[MemoryDocument], newest: datetime
    ) -> SessionWrite:
        app, user, sid = session.app_name, session.user_id, session.id
        async with engine.connect() as conn:
            async with conn.begin():
                if await items_sql.newer_snapshot_stored(conn, app, user, sid, newest):
                    held = await items_sql.count_session_events(conn, app, user, sid)
                    return SessionWrite(sid, held, status="older_snapshot")
                stored = await items_sql.read_by_ids(
                    conn, app, user, ((d.id, d.source_hash) for d in docs), same_too=False
                )
            changed = [
                d for d in docs if d.id not in stored or stored[d.id].source_hash != d.source_hash
            ]
            vectors = await self._vectors(changed, stored)
            gate = items_sql.batch_gate()
            rows = [
                items_sql.row(app, user, doc, vectors[doc.id], Hygiene(), None, gate)
                for doc in sorted(changed, key=lambda d: d.id)
            ]
            async with conn.begin():
                await items_sql.lock_user(conn, app, user, exclusive=False)
                await items_sql.lock_session(conn, app, user, sid)
                if await items_sql.newer_snapshot_stored(conn, app, user, sid, newest):
                    logger.debug("skipped an older snapshot of session %s", sid)
                    held = await items_sql.count_session_events(conn, app, user, sid)
                    return SessionWrite(sid, held, status="older_snapshot")
                await items_sql.mark_snapshot(conn, app, user, sid, newest)
                await items_sql.upsert(conn, rows, session=True)
                await items_sql.delete_missing_events(
                    conn, app, user, sid, newest, [d.id for d in docs]
                )
            if rows:
                await self.store.note_write(conn, app, user)
        return SessionWrite(sid, len({d.id for d in docs}), len(rows))

    async def _policy_documents(
        self, session: Session
    ) -> tuple[list[MemoryDocument], datetime | None]:
        """The documents the write policy keeps of ``session`` and its newest event time
        (``None``: no events); checks the session's scope and id first."""
        check_scope(session.app_name, session.user_id)
        check_identifier("session.id", session.id)
        events = as_events(session.events)  # duck-typed events as ADK's services take them
        # write-policy hook: only what the policy selects is stored (newest stays the session's)
        selected = await self.selector.select(session, events, index_context=True)
        return await asyncio.to_thread(self._session_documents, session, events, selected)

    async def session_row_delta(self, session: Session) -> int:
        """How many rows :meth:`write_session` would add (negative: remove) for this user,
        computed without writing anything (``reindex --dry-run``).

        Counts rows, not texts: a row the policy keeps with other text is not counted. A
        snapshot older than the stored one changes nothing (0)."""
        docs, newest = await self._policy_documents(session)
        if newest is None:
            return 0
        app, user, sid = session.app_name, session.user_id, session.id
        engine = await self.store.ready()
        async with engine.connect() as conn:
            if await items_sql.newer_snapshot_stored(conn, app, user, sid, newest):
                return 0
            added, deleted = await items_sql.session_row_changes(
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
            self.config.indexing,
        )
        return docs, newest_event_time(events)

    # ------------------------------------------------------------------ explicit writes
    async def write_events(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Upsert a delta of events (nothing else of the session is touched); hygiene keys
        of ``custom_metadata`` apply to every event and replace the stored values."""
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
            self.config.indexing,
            metadata,
        )
        if not docs:
            return
        engine = await self.store.ready()
        async with engine.connect() as conn:
            async with conn.begin():
                stored = await items_sql.read_by_ids(
                    conn, app_name, user_id, ((d.id, d.source_hash) for d in docs), same_too=True
                )
            await self._write(conn, app_name, user_id, [(d, hygiene) for d in docs], stored)

    async def write_entries(
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
        consolidator: Consolidator | None = None,
        scope: str = USER,
    ) -> WriteReport:
        """Store explicit memories (dated facts). Re-adding the same id or text updates it.

        ``scope`` (issue 47, docs/scopes.md): ``user`` (the default), ``agent:<name>`` (rows
        private to one agent of ``user_id``), or a shared scope (``app``, ``group:<name>``),
        whose rows are stored under its reserved owner id, which ``user_id`` must then be
        (:func:`~adk_memory_kit.core.memory_scopes.owner_of`). Shared writes are an operator's
        (the service's ``add_shared_memory``, the CLI); no conversation path passes a scope.

        ``MemoryEntry.id`` is either the id of a row ``search_memory`` returned (that row is
        updated in place) or the caller's own stable key (scoped by
        ``custom_metadata["session_id"]`` when given); without an id the entry is keyed by its
        normalized text (:func:`adk_memory_kit.core.ids.fact_key`). The keys ``search_memory``
        adds to returned metadata (``score``, ``scores``, ``event_id``, ``ingested_at``,
        ``superseded_at``) are not stored. Call-wide and per-entry metadata may carry the
        hygiene keys (:mod:`adk_memory_kit.memory.hygiene`) and ``memory_type``, ``tags``,
        ``valid_from``; an entry whose subject has a newer-dated current fact is stored
        already superseded. One read, one embedding call, one transaction (all or nothing);
        of entries with the same key the last one wins.

        Entries below ``min_importance`` or refused by the ``verifier`` are not stored; with a
        consolidator (``consolidator`` here, else the configured one) each fact is compared
        with the user's nearby facts first (ADD, UPDATE, NOOP, CONFLICT). Returns a
        :class:`WriteReport` with every entry's outcome, also counted in :attr:`metrics`.
        """
        scope = parse_scope(scope)
        if is_shared(scope):
            check_identifier("app_name", app_name, max_chars=MAX_SCOPE_CHARS)
            if user_id != owner_of(scope):
                raise InvalidInputError("a shared scope's rows are written under its owner id")
        else:
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
        if scope.startswith(AGENT_PREFIX) and any(h.subject for h in hygienes):
            # a subject supersedes by (user, subject), across the user's own rows
            raise InvalidInputError("an agent's private memories take no subject")
        report = WriteReport()
        if not prepared:
            return report
        passed = await verify(
            prepared,
            hygienes,
            report,
            min_importance=self.config.min_importance,
            verifier=self.config.verifier,
            metrics=self.metrics,
        )
        if not passed:
            report.outcomes.sort(key=lambda o: o.index)
            return report
        engine = await self.store.ready()
        async with engine.connect() as conn:
            entries = [prepared[i] for i in passed]
            items, stored = await self._prepare(
                conn, app_name, user_id, entries, [hygienes[i] for i in passed]
            )
            indexed = [(passed[j], d, h) for j, d, h in items]
            consolidator = consolidator or self.config.consolidator
            if scope.startswith(AGENT_PREFIX):
                consolidator = None  # its neighbours would be the user's and other agents' rows
            if consolidator is None:
                await self._write(
                    conn, app_name, user_id, [(d, h) for _, d, h in indexed], stored, scope=scope
                )
                report.outcomes += [EntryOutcome(i, "WRITTEN", d.id) for i, d, _ in indexed]
            else:
                kept, vectors, after = await consolidate(
                    conn,
                    app_name,
                    user_id,
                    indexed,
                    stored,
                    report,
                    consolidator=consolidator,
                    vectors_of=self._vectors,
                    metrics=self.metrics,
                )
                await self._write(
                    conn, app_name, user_id, kept, stored, vectors=vectors, after=after, scope=scope
                )
        self.metrics.written += sum(o.outcome != "REJECTED" for o in report.outcomes)
        report.outcomes.sort(key=lambda o: o.index)
        return report

    async def write_replacement(
        self, *, app_name: str, user_id: str, entry: MemoryEntry, before: Hook
    ) -> str:
        """Write one entry (a correction) with ``before`` run first in the same transaction
        (the retraction of the old row); not gated or consolidated. Returns the new row id."""
        check_scope(app_name, user_id)
        engine = await self.store.ready()
        async with engine.connect() as conn:
            items, stored = await self._prepare(conn, app_name, user_id, [entry])
            pairs = [(d, h) for _, d, h in items]
            await self._write(conn, app_name, user_id, pairs, stored, before=before)
        return pairs[0][0].id

    async def _prepare(
        self,
        conn: AsyncConnection,
        app_name: str,
        user_id: str,
        prepared: list[MemoryEntry],
        hygienes: list[Hygiene] | None = None,
    ) -> tuple[list[Any], Mapping[str, items_sql.StoredRow]]:
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
            documents_from_entries, app_name, user_id, prepared, self.config.indexing, {}
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
            stored = await items_sql.read_by_ids(
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
                self.config.indexing,
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
        stored: Mapping[str, items_sql.StoredRow],
        *,
        vectors: Mapping[str, Any] | None = None,
        before: Callable[[AsyncConnection], Awaitable[None]] | None = None,
        after: Callable[[AsyncConnection], Awaitable[None]] | None = None,
        scope: str = USER,
    ) -> None:
        """Upsert explicitly added items (their text, metadata and hygiene values as given) in
        one transaction on ``conn``; ``stored`` is what the caller read for their ids.
        ``before``/``after`` run in the same transaction (corrections, consolidation). While
        it runs, no background fold of the user's pending rows starts (memory/ann.py)."""
        with self.store.writing(app_name, user_id):
            await self._write_rows(
                conn,
                app_name,
                user_id,
                items,
                stored,
                vectors=vectors,
                before=before,
                after=after,
                scope=scope,
            )

    async def _write_rows(
        self,
        conn: AsyncConnection,
        app_name: str,
        user_id: str,
        items: list[tuple[MemoryDocument, Hygiene]],
        stored: Mapping[str, items_sql.StoredRow],
        *,
        vectors: Mapping[str, Any] | None,
        before: Callable[[AsyncConnection], Awaitable[None]] | None,
        after: Callable[[AsyncConnection], Awaitable[None]] | None,
        scope: str,
    ) -> None:
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
        # the rows (redaction: CPU work) before the transaction; only their supersession
        # (valid_to) is decided under the locks
        gate = items_sql.batch_gate()
        rows = [
            items_sql.row(app_name, user_id, d, vectors[d.id], h, None, gate, scope)
            for d, h in sorted(changed, key=lambda item: item[0].id)
        ]
        async with conn.begin():
            await items_sql.lock_user(conn, app_name, user_id, exclusive=False)
            if before is not None:
                await before(conn)
            for session_id in sorted({d.session_id for d, _ in items}):
                await items_sql.lock_session(conn, app_name, user_id, session_id)
            valid_to: dict[str, datetime | None] = {}
            for subject in sorted({h.subject for _, h in items if h.subject}):
                same = [(d, h.valid_from or d.event_time) for d, h in items if h.subject == subject]
                valid_to |= await self._supersede(conn, app_name, user_id, subject, same)
            for r in rows:
                r["valid_to"] = valid_to.get(r["id"])
            await items_sql.upsert(conn, rows, session=False)
            if after is not None:
                await after(conn)
        await self.store.note_write(conn, app_name, user_id)

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
        await items_sql.lock_subject(conn, app, user, subject)
        keep = [d.id for d, _ in dated]
        current = await items_sql.current_subject_times(conn, app, user, subject, keep)
        valid_to: dict[str, datetime | None] = {}
        for i, (doc, when) in enumerate(dated):
            newer = [t for t in current if t > when]
            newer += [
                other_when
                for j, (other, other_when) in enumerate(dated)
                if other.id != doc.id and (other_when > when or (other_when == when and j > i))
            ]
            valid_to[doc.id] = min(newer) if newer else None
        await items_sql.supersede(conn, app, user, subject, [w for _, w in dated], keep)
        return valid_to

    async def _vectors(
        self, changed: list[MemoryDocument], stored: Mapping[str, items_sql.StoredRow]
    ) -> dict[str, Any]:
        """Embeddings for ``changed``: stored ones where the embedded text is unchanged, the
        rest from ONE embedder call."""
        kept = {
            d.id: stored[d.id].embedding
            for d in changed
            if d.id in stored and stored[d.id].embedding is not None
        }
        to_embed = [d for d in changed if d.id not in kept]
        fresh = await checked_embed(self.store.embedder, [d.embed_text for d in to_embed])
        return {**kept, **{d.id: v for d, v in zip(to_embed, fresh, strict=True)}}

    # ------------------------------------------------------------------ reads


def _as_uuid(value: str) -> str | None:
    """``value`` as a canonical row id, or ``None`` if it is not a UUID (a caller's key)."""
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None
