"""IdleIngestJob: ingest every session that went idle and changed since its last ingestion.

Guarantees (documented in docs/lifecycle.md):

* a session is ingested only when its ``last_update_time`` is at least ``idle_after`` old
  and differs from its watermark, so an unchanged session is never ingested twice;
* the watermark advances in the claim's transaction, after the memory write (and the
  ``after_ingest`` hook) succeeded; a failure leaves it where it was, is recorded in the
  row (count, time, error) and the session is retried: on the next pass after its first
  failure, then with an exponential, capped backoff;
* several workers may run at once: each session is claimed with
  ``SELECT ... FOR UPDATE SKIP LOCKED`` on its watermark row and re-checked under the lock.
  Candidate selection skips rows locked by another worker, and with ``batch_size`` each
  worker leases its batch, so workers take disjoint batches;
* candidates are ordered by how long they have been waiting: the oldest change first (a
  session ingested before and changed again queues by the date of its new change, like a
  session never ingested), a failed session as of the time its retry became due, so
  neither new sessions nor a failing one can starve the others;
* the memory service writes in its own transaction, so a crash after the memory commit and
  before the watermark commit re-ingests that session once on the next run. Ingestion is an
  upsert, so that costs time, never a duplicate, and nothing is ever lost.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Literal

from google.adk.memory.base_memory_service import BaseMemoryService
from google.adk.sessions.base_session_service import BaseSessionService
from google.adk.sessions.session import Session
from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit._adk_compat import idle_sessions_source
from adk_memory_kit.core.db_errors import (
    db_doors,
    db_errors,
    describe,
    translate,
    translates_db_errors,
)
from adk_memory_kit.core.scope import operator_wide
from adk_memory_kit.errors import (
    DatabaseUnavailableError,
    InvalidInputError,
    MemoryKitError,
    SchemaMismatchError,
)
from adk_memory_kit.lifecycle._engine import postgres_session_engine, resolve_engine
from adk_memory_kit.lifecycle.config import IdleJobConfig
from adk_memory_kit.lifecycle.watermarks import (
    CandidateSource,
    SessionKey,
    WatermarkState,
    WatermarkStore,
)
from adk_memory_kit.memory.lifecycle_schema import to_datetime

logger = logging.getLogger(__name__)

AfterIngest = Callable[[Session], Awaitable[None]]
Outcome = Literal[
    "ingested", "unchanged", "busy", "not_idle", "missing", "forgetting", "backoff", "failed"
]


@dataclass
class IdleRunReport:
    """What one :meth:`IdleIngestJob.run_once` did."""

    started_at: datetime
    considered: int = 0
    ingested: list[SessionKey] = field(default_factory=list)
    failed: list[tuple[SessionKey, str]] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        """One line for logs and the command line."""
        extra = "".join(f", {n} {k}" for k, n in sorted(self.skipped.items()) if n)
        return (
            f"considered {self.considered}, ingested {len(self.ingested)}, "
            f"failed {len(self.failed)}{extra}"
        )


@db_doors
class IdleIngestJob:
    """Ingest idle, changed sessions of one app into long-term memory.

    Args:
        session_service: any ``BaseSessionService``. Sessions are listed with
            ``list_sessions(app_name=..., user_id=None)`` (all users) and each candidate is
            reloaded with ``get_session`` before ingestion. With a ``DatabaseSessionService``
            on the same Postgres as the watermarks, candidates come from one SQL query.
        memory_service: where sessions are ingested (should upsert, as
            ``PgVectorMemoryService`` does).
        config: an :class:`IdleJobConfig`; or give its fields as keyword arguments
            (``app_name=...``, ``idle_after=...``, ``batch_size=...``), not both.
        after_ingest: optional ``async (session) -> None`` run after the memory write and
            before the watermark advances (e.g. a sleep-time fact extractor). If it raises,
            the watermark stays and the session is retried, memory write included, so it
            must tolerate seeing a session again.
        engine: an existing ``AsyncEngine`` for the watermarks (instead of ``db_url``).
        clock: returns the current aware UTC time (tests move it forward).
        progress: called with each session's key and outcome (``"ingested"``,
            ``"unchanged"``, ``"busy"``, ``"backoff"``, ``"failed"``...).
    """

    def __init__(
        self,
        session_service: BaseSessionService,
        memory_service: BaseMemoryService,
        config: IdleJobConfig | None = None,
        *,
        after_ingest: AfterIngest | None = None,
        engine: AsyncEngine | None = None,
        clock: Callable[[], datetime] | None = None,
        progress: Callable[[SessionKey, Outcome], None] | None = None,
        **settings: Any,
    ) -> None:
        if config is not None and settings:
            raise InvalidInputError(
                f"give an IdleJobConfig or its fields as keywords, not both ({sorted(settings)})"
            )
        if memory_service is None:
            raise InvalidInputError("IdleIngestJob needs a memory service to ingest into")
        self.config = config if config is not None else IdleJobConfig(**settings)
        self.session_service = session_service
        self.memory_service = memory_service
        self.after_ingest = after_ingest
        self.worker_id = f"idle-{uuid.uuid4().hex[:12]}"
        self._engine = engine
        self._owns_engine = False
        self._use_sql = self.config.use_sql_listing
        self._clock = clock or (lambda: datetime.now(timezone.utc))
        self._progress = progress
        self._store: WatermarkStore | None = None
        self._leases_pending = False
        self._fatal: MemoryKitError | None = None

    @property
    def app_name(self) -> str:
        """The app whose sessions are ingested."""
        return self.config.app_name

    @property
    def idle_after(self) -> timedelta:
        """How long a session must be untouched before it is ingested."""
        return self.config.idle_after

    @property
    def batch_size(self) -> int | None:
        """At most this many sessions per run (``None``: all)."""
        return self.config.batch_size

    # ------------------------------------------------------------------ plumbing
    async def _ready(self) -> WatermarkStore:
        if self._store is None:
            engine, owned = await resolve_engine(
                engine=self._engine,
                db_url=self.config.db_url,
                memory_service=self.memory_service,
                session_service=self.session_service,
            )
            self._engine, self._owns_engine = engine, owned
            store = WatermarkStore(engine)
            await store.ready()
            from adk_memory_kit.assembly import PgVectorMemoryService

            if isinstance(self.memory_service, PgVectorMemoryService):
                await self.memory_service.ready()  # no pgvector, wrong embedder: fail now
            session_engine = postgres_session_engine(self.session_service)
            same_db = session_engine is not None and session_engine.url == engine.url
            if self._use_sql is None:
                self._use_sql = same_db
            elif self._use_sql and not same_db:
                raise InvalidInputError(
                    "use_sql_listing=True needs a DatabaseSessionService on the same "
                    "PostgreSQL database as the watermarks (pass the same db_url to both)"
                )
            self._store = store
        return self._store

    @property
    def uses_sql_listing(self) -> bool | None:
        """Whether candidates come from SQL (``None`` until the first run)."""
        return self._use_sql if self._store is not None else None

    @translates_db_errors("IdleIngestJob.watermark")
    async def watermark(self, user_id: str, session_id: str) -> datetime | None:
        """The last ingested update time of a session (``None``: never ingested)."""
        store = await self._ready()
        return await store.get(SessionKey(self.app_name, user_id, session_id))

    @translates_db_errors("IdleIngestJob.state")
    async def state(self, user_id: str, session_id: str) -> WatermarkState | None:
        """A session's watermark row, failures included (``None``: never seen)."""
        store = await self._ready()
        return await store.state(SessionKey(self.app_name, user_id, session_id))

    def retry_delay(self, failures: int) -> timedelta:
        """How long a session waits after its ``failures``-th consecutive failure."""
        if failures <= 1:
            return timedelta(0)
        backoff = self.config.retry_backoff * 2 ** min(failures - 2, 32)
        return min(backoff, self.config.max_retry_backoff)

    async def close(self) -> None:
        """Dispose of the engine if this job created it."""
        if self._engine is not None and self._owns_engine:
            await self._engine.dispose()

    # ------------------------------------------------------------------ running
    async def run_once(self) -> IdleRunReport:
        """One pass: ingest every idle, changed session; returns what it did.

        A session that fails is logged in one line (its key and the kit error, never a
        traceback or its text), recorded in its watermark row and retried later; the pass
        goes on. A failure of the database itself (unreachable, no pgvector, a schema the
        kit cannot use) ends the pass: its leases are released (at the start of the next
        pass if the database is still down), one summary line is logged, and the kit error
        (:class:`DatabaseUnavailableError`, :class:`SchemaMismatchError`) is raised.
        """
        async with db_errors(f"idle ingestion pass of app {self.app_name!r}"):
            return await self._run_once()

    @operator_wide  # over every user of the app; each ingest runs as its session's user
    async def _run_once(self) -> IdleRunReport:
        store = await self._ready()
        if self._leases_pending:  # left by a pass that ended while the database was down
            await store.release_leases(self.app_name, self.worker_id)
            self._leases_pending = False
        now = self._clock()
        cutoff = now - self.idle_after
        report = IdleRunReport(started_at=now)
        try:
            candidates = await self._candidates(store, cutoff, now)
            report.considered = len(candidates)
            for key in candidates:
                # an error raised here is the watermark store's (the database): ends the pass
                outcome, failure = await self._ingest_one(store, key, cutoff, now)
                if failure is not None:
                    logger.warning("idle ingestion of %s failed: %s", key, failure)
                    report.failed.append((key, failure))
                elif outcome == "ingested":
                    report.ingested.append(key)
                else:
                    report.skipped[outcome] = report.skipped.get(outcome, 0) + 1
                if self._progress is not None:
                    self._progress(key, outcome)
                if self._fatal is not None:  # the database cannot serve any session
                    fatal, self._fatal = self._fatal, None
                    raise fatal
        except Exception as exc:
            logger.warning(
                "idle ingestion of %s: pass ended early (%s): %s",
                self.app_name,
                describe(exc),
                report.summary(),
            )
            raise
        finally:
            if self.batch_size is not None:
                try:
                    await store.release_leases(self.app_name, self.worker_id)
                except Exception as exc:  # released at the start of the next pass
                    self._leases_pending = True
                    logger.warning(
                        "could not release the idle job's leases now (%s); the next pass "
                        "releases them",
                        describe(exc),
                    )
        logger.info("idle ingestion of %s: %s", self.app_name, report.summary())
        return report

    async def run_forever(
        self,
        interval: timedelta | float = timedelta(minutes=1),
        *,
        stop: asyncio.Event | None = None,
        on_report: Callable[[IdleRunReport], None] | None = None,
    ) -> None:
        """Call :meth:`run_once` every ``interval`` until ``stop`` is set (or cancelled).

        A failing pass (database down...) is logged and retried on the next tick.
        """
        seconds = interval.total_seconds() if isinstance(interval, timedelta) else interval
        if seconds < 0:
            raise InvalidInputError(f"interval must not be negative, got {interval}")
        while stop is None or not stop.is_set():
            try:
                report = await self.run_once()
            except Exception as exc:  # one line, no traceback: the next tick retries
                logger.error("idle ingestion pass for %s failed: %s", self.app_name, describe(exc))
            else:
                if on_report is not None:
                    on_report(report)
            if stop is None:
                await asyncio.sleep(seconds)
            elif not stop.is_set():
                try:
                    await asyncio.wait_for(stop.wait(), timeout=seconds)
                except asyncio.TimeoutError:
                    pass

    # ------------------------------------------------------------------ internals
    async def _candidates(
        self, store: WatermarkStore, cutoff: datetime, now: datetime
    ) -> list[SessionKey]:
        if self._use_sql:
            await self.session_service.prepare_tables()  # type: ignore[attr-defined]
            source = CandidateSource(*idle_sessions_source(cutoff))
        else:
            listed = await self.session_service.list_sessions(app_name=self.app_name, user_id=None)
            marks = await store.for_app(self.app_name)
            forgetting = await store.users_being_forgotten(self.app_name)
            found: list[tuple[str, str, datetime]] = []
            for s in listed.sessions:
                updated = to_datetime(s.last_update_time)
                if updated > cutoff or s.user_id in forgetting:
                    continue
                if marks.get((s.user_id, s.id)) == updated:
                    continue  # unchanged (the pick below re-checks under a lock)
                found.append((s.user_id, s.id, updated))
            if not found:
                return []
            source = CandidateSource.listed(found)
        lease = self.config.claim_ttl.total_seconds() if self.batch_size is not None else None
        return await store.pick_candidates(
            self.app_name,
            source,
            now=now,
            limit=self.batch_size,
            worker=self.worker_id,
            lease_seconds=lease,
        )

    async def _ingest_one(
        self, store: WatermarkStore, key: SessionKey, cutoff: datetime, now: datetime
    ) -> tuple[Outcome, str | None]:
        """The session's outcome, and for ``"failed"`` the error as stored (no user text).

        A failure of the session (its memory write or ``after_ingest``) is recorded in its
        row and returned; one that means the database cannot serve any session (no
        pgvector, a schema the kit cannot use) is also kept in ``_fatal`` to end the pass.
        Errors of the watermark store itself propagate.
        """
        async with store.claim(key) as claim:
            if claim is None:
                return "busy", None
            if claim.forgetting:
                return "forgetting", None
            if claim.retry_after is not None and claim.retry_after > now:
                return "backoff", None  # another worker failed it since this one listed it
            try:
                session = await self.session_service.get_session(
                    app_name=key.app_name, user_id=key.user_id, session_id=key.session_id
                )
                if session is None:
                    await claim.drop()
                    return "missing", None
                updated = to_datetime(session.last_update_time)
                if updated > cutoff:
                    return "not_idle", None
                if claim.watermark == updated:
                    return "unchanged", None
                await self.memory_service.add_session_to_memory(session)
                if self.after_ingest is not None:
                    await self.after_ingest(session)
            except Exception as exc:
                error = translate(exc, f"idle ingestion of session {key}") or exc
                if isinstance(error, SchemaMismatchError) or (
                    isinstance(error, DatabaseUnavailableError) and not error.transient
                ):
                    self._fatal = error
                    if error is not exc:
                        error.__cause__ = exc
                failure = describe(error)
                failures = claim.failures + 1
                await claim.record_failure(
                    failure, at=now, retry_after=now + self.retry_delay(failures)
                )
                return "failed", failure
            await claim.advance(updated, at=now)
            return "ingested", None
