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
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.lifecycle._engine import postgres_session_engine, resolve_engine
from adk_memory_kit.lifecycle.schema import FORGET_LOG, WATERMARKS, to_datetime
from adk_memory_kit.lifecycle.watermarks import SessionKey, WatermarkState, WatermarkStore

logger = logging.getLogger(__name__)

AfterIngest = Callable[[Session], Awaitable[None]]
Outcome = Literal[
    "ingested", "unchanged", "busy", "not_idle", "missing", "forgetting", "backoff", "failed"
]

# Where candidates come from. SQL listing: ADK's DatabaseSessionService tables in the same
# database (ADK stores naive UTC timestamps). Public API: the (user, session, update time)
# triples of the sessions the job listed, idle and changed, as arrays.
_SQL_SOURCE = """
src AS (
  SELECT s.user_id, s.id AS session_id, (s.update_time AT TIME ZONE 'UTC') AS update_time
  FROM sessions s
  WHERE s.app_name = :app AND s.update_time <= :cutoff
)"""
_LISTED_SOURCE = """
src AS (
  SELECT * FROM unnest(CAST(:users AS text[]), CAST(:sids AS text[]),
                       CAST(:times AS timestamptz[])) AS t(user_id, session_id, update_time)
)"""
_NOT_FORGETTING = f"""NOT EXISTS (SELECT 1 FROM {FORGET_LOG} f
                  WHERE f.app_name = :app AND f.user_id = {{user}} AND f.completed_at IS NULL)"""

# Watermark rows for changed sessions that have none yet (committed at once, so claims never
# wait on an insert); none for a user whose forget is open.
_INSERT_MISSING = f"""
INSERT INTO {WATERMARKS} (app_name, user_id, session_id)
SELECT :app, src.user_id, src.session_id FROM src
WHERE NOT EXISTS (SELECT 1 FROM {WATERMARKS} w
                  WHERE w.app_name = :app AND w.user_id = src.user_id
                    AND w.session_id = src.session_id)
  AND {_NOT_FORGETTING.format(user="src.user_id")}
ON CONFLICT DO NOTHING"""

# Changed, not backing off, not leased by another worker, user not being forgotten; rows
# another worker holds right now are skipped. Longest waiting first: a session waits since
# its change (``update_time``), a failed one since its retry became due (``retry_after``,
# reset by a success); whether or when a session was ingested before does not matter.
_ORDER = "waiting_since, user_id, session_id"
_PICK = f"""
SELECT w.user_id, w.session_id, GREATEST(src.update_time, w.retry_after) AS waiting_since
FROM {WATERMARKS} w
JOIN src ON w.app_name = :app AND w.user_id = src.user_id AND w.session_id = src.session_id
WHERE w.session_update_time IS DISTINCT FROM src.update_time
  AND (w.retry_after IS NULL OR w.retry_after <= :now)
  AND (w.claimed_until IS NULL OR w.claimed_until <= now() OR w.claimed_by = :me)
  AND {_NOT_FORGETTING.format(user="w.user_id")}
ORDER BY GREATEST(src.update_time, w.retry_after), w.user_id, w.session_id
LIMIT :lim
FOR UPDATE OF w SKIP LOCKED"""
# The same, leasing the picked rows to this worker for ``claim_ttl`` (batch mode).
_PICK_AND_LEASE = f""",
picked AS ({_PICK}),
leased AS (
  UPDATE {WATERMARKS} w
  SET claimed_by = :me, claimed_until = now() + make_interval(secs => CAST(:ttl AS float8))
  FROM picked p
  WHERE w.app_name = :app AND w.user_id = p.user_id AND w.session_id = p.session_id
  RETURNING w.user_id, w.session_id
)
SELECT p.user_id, p.session_id, p.waiting_since
FROM picked p JOIN leased l ON l.user_id = p.user_id AND l.session_id = p.session_id
ORDER BY {_ORDER}"""


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
            the watermark stays and the session is retried, memory write included, so it
            must tolerate seeing a session again.
        db_url / engine: the Postgres for the watermarks; default: the memory service's
            (``PgVectorMemoryService``), else the session service's, else the embedded one.
        use_sql_listing: force (True) or forbid (False) the SQL candidate query; ``None``
            uses it when the session service is a ``DatabaseSessionService`` on the same
            database.
        batch_size: at most this many sessions per run (``None``: all). Each worker leases
            its batch for ``claim_ttl``, so concurrent workers take disjoint batches.
        retry_backoff / max_retry_backoff: a failed session is retried on the next pass;
            after its n-th consecutive failure (n >= 2) it waits
            ``min(retry_backoff * 2 ** (n - 2), max_retry_backoff)``.
        claim_ttl: how long a batch lease lasts if the worker dies before releasing it.
        clock: returns the current aware UTC time (tests move it forward).
        progress: called with each session's key and outcome (``"ingested"``,
            ``"unchanged"``, ``"busy"``, ``"backoff"``, ``"failed"``...).
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
        retry_backoff: timedelta = timedelta(minutes=1),
        max_retry_backoff: timedelta = timedelta(hours=1),
        claim_ttl: timedelta = timedelta(minutes=15),
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
        if retry_backoff < timedelta(0) or max_retry_backoff < retry_backoff:
            raise InvalidInputError(
                "need 0 <= retry_backoff <= max_retry_backoff, got "
                f"{retry_backoff} and {max_retry_backoff}"
            )
        if claim_ttl <= timedelta(0):
            raise InvalidInputError(f"claim_ttl must be positive, got {claim_ttl}")
        self.session_service = session_service
        self.memory_service = memory_service
        self.app_name = app_name
        self.idle_after = idle_after
        self.after_ingest = after_ingest
        self.batch_size = batch_size
        self.retry_backoff = retry_backoff
        self.max_retry_backoff = max_retry_backoff
        self.claim_ttl = claim_ttl
        self.worker_id = f"idle-{uuid.uuid4().hex[:12]}"
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

    async def state(self, user_id: str, session_id: str) -> WatermarkState | None:
        """A session's watermark row, failures included (``None``: never seen)."""
        store = await self._ready()
        return await store.state(SessionKey(self.app_name, user_id, session_id))

    def retry_delay(self, failures: int) -> timedelta:
        """How long a session waits after its ``failures``-th consecutive failure."""
        if failures <= 1:
            return timedelta(0)
        backoff = self.retry_backoff * 2 ** min(failures - 2, 32)
        return min(backoff, self.max_retry_backoff)

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
        try:
            candidates = await self._candidates(store, cutoff, now)
            report = IdleRunReport(started_at=now, considered=len(candidates))
            for key in candidates:
                try:
                    outcome = await self._ingest_one(store, key, cutoff, now)
                except Exception as exc:
                    logger.warning("idle ingestion of %s failed: %r", key, exc, exc_info=True)
                    report.failed.append((key, _describe(exc)))
                    outcome = "failed"
                else:
                    if outcome == "ingested":
                        report.ingested.append(key)
                    else:
                        report.skipped[outcome] = report.skipped.get(outcome, 0) + 1
                if self._progress is not None:
                    self._progress(key, outcome)
        finally:
            if self.batch_size is not None:
                try:
                    await store.release_leases(self.app_name, self.worker_id)
                except Exception:  # the leases expire after claim_ttl anyway
                    logger.warning("could not release the idle job's leases", exc_info=True)
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
    async def _candidates(
        self, store: WatermarkStore, cutoff: datetime, now: datetime
    ) -> list[SessionKey]:
        params: dict[str, Any] = {"app": self.app_name}
        if self._use_sql:
            await self.session_service.prepare_tables()  # type: ignore[attr-defined]
            source = _SQL_SOURCE
            params["cutoff"] = cutoff.astimezone(timezone.utc).replace(tzinfo=None)
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
            source = _LISTED_SOURCE
            params["users"] = [f[0] for f in found]
            params["sids"] = [f[1] for f in found]
            params["times"] = [f[2] for f in found]
        async with store.engine.begin() as conn:
            await conn.execute(text(f"WITH {source} {_INSERT_MISSING}"), params)
        pick = f"WITH {source}" + (_PICK_AND_LEASE if self.batch_size is not None else f" {_PICK}")
        params.update(
            now=now, lim=self.batch_size, me=self.worker_id, ttl=self.claim_ttl.total_seconds()
        )
        async with store.engine.begin() as conn:
            rows = (await conn.execute(text(pick), params)).all()
        return [SessionKey(self.app_name, r.user_id, r.session_id) for r in rows]

    async def _ingest_one(
        self, store: WatermarkStore, key: SessionKey, cutoff: datetime, now: datetime
    ) -> Outcome:
        async with store.claim(key) as claim:
            if claim is None:
                return "busy"
            if claim.forgetting:
                return "forgetting"
            if claim.retry_after is not None and claim.retry_after > now:
                return "backoff"  # another worker failed it since this one listed it
            try:
                session = await self.session_service.get_session(
                    app_name=key.app_name, user_id=key.user_id, session_id=key.session_id
                )
                if session is None:
                    await claim.drop()
                    return "missing"
                updated = to_datetime(session.last_update_time)
                if updated > cutoff:
                    return "not_idle"
                if claim.watermark == updated:
                    return "unchanged"
                await self.memory_service.add_session_to_memory(session)
                if self.after_ingest is not None:
                    await self.after_ingest(session)
            except Exception as exc:
                failed = exc
                failures = claim.failures + 1
                await claim.record_failure(
                    _describe(exc), at=now, retry_after=now + self.retry_delay(failures)
                )
            else:
                await claim.advance(updated, at=now)
                return "ingested"
        raise failed  # after the failure record committed with the claim


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"
