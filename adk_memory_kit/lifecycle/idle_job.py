"""IdleIngestJob: ingest every session that went idle and changed since its last ingestion.

Guarantees (documented in docs/lifecycle.md):

* a session is ingested only when its ``last_update_time`` is at least ``idle_after`` old
  and newer than its watermark, so an unchanged session is never ingested twice;
* the watermark advances in the claim's transaction, after the memory write (and the
  ``after_ingest`` hook) succeeded; a failure leaves it where it was and the next run
  retries the session;
* several workers may run at once: each session is claimed with
  ``SELECT ... FOR UPDATE SKIP LOCKED`` on its watermark row and re-checked under the lock;
* the memory service writes in its own transaction, so a crash after the memory commit and
  before the watermark commit re-ingests that session once on the next run. Ingestion is an
  upsert, so that costs time, never a duplicate, and nothing is ever lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Literal

from google.adk.memory.base_memory_service import BaseMemoryService
from google.adk.sessions.base_session_service import BaseSessionService
from google.adk.sessions.session import Session
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.lifecycle._engine import postgres_session_engine, resolve_engine
from adk_memory_kit.lifecycle.schema import FORGET_LOG, WATERMARKS, to_datetime
from adk_memory_kit.lifecycle.watermarks import SessionKey, WatermarkStore

logger = logging.getLogger(__name__)

AfterIngest = Callable[[Session], Awaitable[None]]
Outcome = Literal["ingested", "unchanged", "busy", "not_idle", "missing", "forgetting", "failed"]

# Candidates straight from ADK's DatabaseSessionService tables (same database only): idle,
# changed since the watermark, user not being forgotten. ADK stores naive UTC timestamps.
_SQL_CANDIDATES = text(
    f"""
SELECT s.user_id, s.id AS session_id
FROM sessions s
LEFT JOIN {WATERMARKS} w
  ON w.app_name = s.app_name AND w.user_id = s.user_id AND w.session_id = s.id
WHERE s.app_name = :app
  AND s.update_time <= :cutoff
  AND (w.session_update_time IS NULL
       OR (s.update_time AT TIME ZONE 'UTC') > w.session_update_time)
  AND NOT EXISTS (SELECT 1 FROM {FORGET_LOG} f
                  WHERE f.app_name = s.app_name AND f.user_id = s.user_id
                    AND f.completed_at IS NULL)
ORDER BY s.update_time, s.user_id, s.id
LIMIT :lim
"""
)


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


class IdleIngestJob:
    """Ingest idle, changed sessions of one app into long-term memory.

    Args:
        session_service: any ``BaseSessionService``. Sessions are listed with
            ``list_sessions(app_name=..., user_id=None)`` (all users) and each candidate is
            reloaded with ``get_session`` before ingestion. With a ``DatabaseSessionService``
            on the same Postgres as the watermarks, candidates come from one SQL query.
        memory_service: where sessions are ingested (should upsert, as
            ``PgVectorMemoryService`` does).
        app_name: the app whose sessions are ingested.
        idle_after: how long a session must be untouched before it is ingested.
        after_ingest: optional ``async (session) -> None`` run after the memory write and
            before the watermark advances (e.g. a sleep-time fact extractor). If it raises,
            the watermark stays and the session is retried on the next run, memory write
            included, so it must tolerate seeing a session again.
        db_url / engine: the Postgres for the watermarks; default: the memory service's
            (``PgVectorMemoryService``), else the session service's, else the embedded one.
        use_sql_listing: force (True) or forbid (False) the SQL candidate query; ``None``
            uses it when the session service is a ``DatabaseSessionService`` on the same
            database.
        batch_size: at most this many sessions per run (``None``: all).
        clock: returns the current aware UTC time (tests move it forward).
        progress: called with each session's key and outcome (``"ingested"``,
            ``"unchanged"``, ``"busy"``, ``"failed"``...).
    """

    def __init__(
        self,
        session_service: BaseSessionService,
        memory_service: BaseMemoryService,
        *,
        app_name: str,
        idle_after: timedelta = timedelta(minutes=30),
        after_ingest: AfterIngest | None = None,
        db_url: str | None = None,
        engine: AsyncEngine | None = None,
        use_sql_listing: bool | None = None,
        batch_size: int | None = None,
        clock: Callable[[], datetime] | None = None,
        progress: Callable[[SessionKey, Outcome], None] | None = None,
    ) -> None:
        if not app_name:
            raise InvalidInputError("app_name is required: the idle job works on one app")
        if memory_service is None:
            raise InvalidInputError("IdleIngestJob needs a memory service to ingest into")
        if idle_after < timedelta(0):
            raise InvalidInputError(f"idle_after must not be negative, got {idle_after}")
        if batch_size is not None and batch_size < 1:
            raise InvalidInputError(f"batch_size must be positive, got {batch_size}")
        self.session_service = session_service
        self.memory_service = memory_service
        self.app_name = app_name
        self.idle_after = idle_after
        self.after_ingest = after_ingest
        self.batch_size = batch_size
        self._db_url = db_url
        self._engine = engine
        self._owns_engine = False
        self._use_sql = use_sql_listing
        self._clock = clock or (lambda: datetime.now(timezone.utc))
        self._progress = progress
        self._store: WatermarkStore | None = None

    # ------------------------------------------------------------------ plumbing
    async def _ready(self) -> WatermarkStore:
        if self._store is None:
            engine, owned = await resolve_engine(
                engine=self._engine,
                db_url=self._db_url,
                memory_service=self.memory_service,
                session_service=self.session_service,
            )
            self._engine, self._owns_engine = engine, owned
            store = WatermarkStore(engine)
            await store.ready()
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

    async def watermark(self, user_id: str, session_id: str) -> datetime | None:
        """The last ingested update time of a session (``None``: never ingested)."""
        store = await self._ready()
        return await store.get(SessionKey(self.app_name, user_id, session_id))

    async def close(self) -> None:
        """Dispose of the engine if this job created it."""
        if self._engine is not None and self._owns_engine:
            await self._engine.dispose()

    # ------------------------------------------------------------------ running
    async def run_once(self) -> IdleRunReport:
        """One pass: ingest every idle, changed session; returns what it did."""
        store = await self._ready()
        now = self._clock()
        cutoff = now - self.idle_after
        candidates = await self._candidates(store, cutoff)
        await store.ensure_rows(candidates)
        report = IdleRunReport(started_at=now, considered=len(candidates))
        for key in candidates:
            try:
                outcome = await self._ingest_one(store, key, cutoff)
            except Exception as exc:
                logger.warning("idle ingestion of %s failed: %r", key, exc, exc_info=True)
                report.failed.append((key, f"{type(exc).__name__}: {exc}"))
                outcome = "failed"
            else:
                if outcome == "ingested":
                    report.ingested.append(key)
                else:
                    report.skipped[outcome] = report.skipped.get(outcome, 0) + 1
            if self._progress is not None:
                self._progress(key, outcome)
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
            except Exception:
                logger.exception("idle ingestion pass for %s failed", self.app_name)
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
    async def _candidates(self, store: WatermarkStore, cutoff: datetime) -> list[SessionKey]:
        if self._use_sql:
            await self.session_service.prepare_tables()  # type: ignore[attr-defined]
            async with store.engine.connect() as conn:
                rows = await conn.execute(
                    _SQL_CANDIDATES,
                    {
                        "app": self.app_name,
                        "cutoff": cutoff.astimezone(timezone.utc).replace(tzinfo=None),
                        "lim": self.batch_size,
                    },
                )
                return [SessionKey(self.app_name, r.user_id, r.session_id) for r in rows]
        listed = await self.session_service.list_sessions(app_name=self.app_name, user_id=None)
        marks = await store.for_app(self.app_name)
        forgetting = await store.users_being_forgotten(self.app_name)
        found: list[tuple[datetime, SessionKey]] = []
        for s in listed.sessions:
            updated = to_datetime(s.last_update_time)
            mark = marks.get((s.user_id, s.id))
            if updated > cutoff or s.user_id in forgetting:
                continue
            if mark is not None and updated <= mark:
                continue
            found.append((updated, SessionKey(self.app_name, s.user_id, s.id)))
        found.sort()
        keys = [k for _, k in found]
        return keys if self.batch_size is None else keys[: self.batch_size]

    async def _ingest_one(self, store: WatermarkStore, key: SessionKey, cutoff: datetime) -> str:
        async with store.claim(key) as claim:
            if claim is None:
                return "busy"
            if claim.forgetting:
                return "forgetting"
            session = await self.session_service.get_session(
                app_name=key.app_name, user_id=key.user_id, session_id=key.session_id
            )
            if session is None:
                await claim.drop()
                return "missing"
            updated = to_datetime(session.last_update_time)
            if updated > cutoff:
                return "not_idle"
            if claim.watermark is not None and updated <= claim.watermark:
                return "unchanged"
            await self.memory_service.add_session_to_memory(session)
            if self.after_ingest is not None:
                await self.after_ingest(session)
            await claim.advance(updated)
        return "ingested"
