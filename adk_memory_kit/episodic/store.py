"""``EpisodicLog``: the append-only log table, its batched writer and its readers.

This module owns every SQL statement on the log table. Writes are queued in memory by
:meth:`EpisodicLog.append` (no I/O, no await) and written in batches by a background task,
when ``batch_size`` entries are waiting or every ``flush_interval`` seconds, and on
:meth:`EpisodicLog.flush` / :meth:`EpisodicLog.close`. A failed write is logged (entry count
and exception class only) and dropped; it is never raised into the agent's turn.

Per-session sequence numbers are assigned at write time, under a transaction-scoped advisory
lock per session, so they are gapless and strictly increasing even with several processes
writing the same session. Entries still queued when the process dies are lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time as _time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import RowMapping, text
from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit.core.db_errors import db_doors
from adk_memory_kit.core.scope import app_wide_unless, operator_scope
from adk_memory_kit.db import make_engine
from adk_memory_kit.db.fence import Fence, fences_of
from adk_memory_kit.db.rls import protect_tables
from adk_memory_kit.episodic.config import EpisodicLogConfig
from adk_memory_kit.episodic.entry import FAILURE_KINDS, MODEL_CALL, LogEntry
from adk_memory_kit.episodic.payload import prepare_payload
from adk_memory_kit.episodic.pricing import ModelPrice, PriceTable
from adk_memory_kit.errors import DatabaseUnavailableError, InvalidInputError

logger = logging.getLogger(__name__)

TABLE = "adk_episodic_log"
HOME_NAME = "episodic log"

_DDL = (
    f"""
    CREATE TABLE IF NOT EXISTS {TABLE} (
        app_name      text             NOT NULL,
        user_id       text             NOT NULL,
        session_id    text             NOT NULL,
        seq           bigint           NOT NULL,
        invocation_id text             NOT NULL DEFAULT '',
        agent         text             NOT NULL DEFAULT '',
        time          timestamptz      NOT NULL,
        kind          text             NOT NULL,
        name          text             NOT NULL DEFAULT '',
        input_tokens  integer,
        output_tokens integer,
        tokens_estimated boolean       NOT NULL DEFAULT false,
        cost_usd      double precision,
        latency_ms    double precision,
        payload       jsonb            NOT NULL DEFAULT '{{}}'::jsonb,
        error_type    text,
        error_code    text,
        PRIMARY KEY (app_name, user_id, session_id, seq)
    )
    """,
    f"CREATE INDEX IF NOT EXISTS {TABLE}_user_time_idx ON {TABLE} (app_name, user_id, time)",
    f"CREATE INDEX IF NOT EXISTS {TABLE}_time_idx ON {TABLE} (time)",
    f"COMMENT ON TABLE {TABLE} IS 'adk_memory_kit home: {HOME_NAME}'",
)

_COLUMNS = (
    "app_name, user_id, session_id, seq, invocation_id, agent, time, kind, name, input_tokens, "
    "output_tokens, tokens_estimated, cost_usd, latency_ms, payload, error_type, error_code"
)

# Named statements: every one on per-user rows filters app_name AND user_id, except the
# operator-wide ones marked ``scale-lint:`` (checked by tests/memory/test_sql_user_scope.py).
_SQL = {
    # A lock wait (DDL behind an open transaction, a session's advisory lock) fails after
    # this instead of hanging a writer or a reader forever.
    "lock_timeout": text("SET LOCAL lock_timeout = '10s'"),
    "schema_ready": text(
        f"SELECT obj_description(to_regclass('{TABLE}'), 'pg_class') = "
        f"'adk_memory_kit home: {HOME_NAME}' AND to_regclass('{TABLE}_time_idx') IS NOT NULL"
    ),
    "lock_schema": text("SELECT pg_advisory_xact_lock(hashtextextended('adk_episodic_log', 0))"),
    "lock_session": text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))"),
    "max_seq": text(
        f"SELECT COALESCE(MAX(seq), 0) FROM {TABLE} "
        "WHERE app_name = :app_name AND user_id = :user_id AND session_id = :session_id"
    ),
    "insert": text(
        f"INSERT INTO {TABLE} ({_COLUMNS}) VALUES (:app_name, :user_id, :session_id, :seq, "
        ":invocation_id, :agent, :time, :kind, :name, :input_tokens, :output_tokens, "
        ":tokens_estimated, :cost_usd, :latency_ms, CAST(:payload AS jsonb), :error_type, "
        ":error_code)"
    ),
    "trace": text(
        f"SELECT {_COLUMNS} FROM {TABLE} WHERE app_name = :app_name AND user_id = :user_id "
        "AND session_id = :session_id ORDER BY seq"
    ),
    "first_failure": text(
        f"SELECT {_COLUMNS} FROM {TABLE} WHERE app_name = :app_name AND user_id = :user_id "
        "AND session_id = :session_id "
        "AND (CAST(:invocation_id AS text) IS NULL OR invocation_id = :invocation_id) "
        "AND (kind = ANY(:failure_kinds) OR (kind = :model_call AND error_code IS NOT NULL)) "
        "ORDER BY seq LIMIT 1"
    ),
    "forget_user": text(f"DELETE FROM {TABLE} WHERE app_name = :app_name AND user_id = :user_id"),
    "count_for_user": text(
        f"SELECT count(*) FROM {TABLE} WHERE app_name = :app_name AND user_id = :user_id"
    ),
    # Operator lookup for the CLI's ``trace`` without --user: which users own this session id.
    # scale-lint: operator lookup across the app's users (CLI only), at most 10 rows
    "users_of_session": text(
        f"SELECT DISTINCT user_id FROM {TABLE} WHERE app_name = :app_name "
        "AND session_id = :session_id ORDER BY user_id LIMIT 10"
    ),
    # Retention is an operator job across every user, like the memory table's expiry sweep.
    # scale-lint: retention sweep across all users (operator job, indexed by time)
    "purge_expired": text(f"DELETE FROM {TABLE} WHERE time < :cutoff"),
    # Cost summary: one scan, grouped five ways at once. Model rows group by model name;
    # tool rows count as tool calls of their session, user and agent.
    # scale-lint: user_id is optional: without it this is an app-wide operator report
    "cost_summary": text(
        f"""
        SELECT GROUPING(session_id) AS g_session, GROUPING(user_id) AS g_user,
               GROUPING(agent) AS g_agent, GROUPING(model) AS g_model,
               session_id, user_id, agent, model,
               count(*) FILTER (WHERE kind = :model_call) AS model_calls,
               count(*) FILTER (WHERE kind <> :model_call) AS tool_calls,
               COALESCE(sum(input_tokens), 0) AS input_tokens,
               COALESCE(sum(output_tokens), 0) AS output_tokens,
               count(*) FILTER (WHERE kind = :model_call AND tokens_estimated) AS estimated_calls,
               sum(cost_usd) AS cost_usd,
               count(*) FILTER (WHERE kind = :model_call AND cost_usd IS NULL) AS unpriced_calls
        FROM (
            SELECT session_id, user_id, agent, kind, input_tokens, output_tokens,
                   tokens_estimated, cost_usd,
                   CASE WHEN kind = :model_call THEN name END AS model
            FROM {TABLE}
            WHERE app_name = :app_name
              AND (CAST(:user_id AS text) IS NULL OR user_id = :user_id)
              AND (CAST(:session_id AS text) IS NULL OR session_id = :session_id)
              AND (CAST(:since AS timestamptz) IS NULL OR time >= :since)
              AND (CAST(:until AS timestamptz) IS NULL OR time < :until)
              AND kind IN (:model_call, 'tool_call', 'tool_error')
        ) AS calls
        GROUP BY GROUPING SETS ((), (session_id), (user_id), (agent), (model))
        """
    ),
    # scale-lint: user_id is optional: without it this exports the whole app (operator job)
    "export": text(
        f"SELECT {_COLUMNS} FROM {TABLE} WHERE app_name = :app_name "
        "AND (CAST(:user_id AS text) IS NULL OR user_id = :user_id) "
        "AND (CAST(:since AS timestamptz) IS NULL OR time >= :since) "
        "AND (CAST(:until AS timestamptz) IS NULL OR time < :until) "
        "ORDER BY user_id, session_id, seq"
    ),
}


@dataclass(slots=True)
class PendingEntry:
    """An entry as the plugin records it on the hot path; finished by the writer.

    ``payload`` may be any JSON-able data (redacted and capped when written). When
    ``request`` is set and token counts are missing, the writer estimates them.
    """

    app_name: str
    user_id: str
    session_id: str
    invocation_id: str
    agent: str
    kind: str
    name: str
    time: float = field(default_factory=_time.time)
    input_tokens: int | None = None
    output_tokens: int | None = None
    tokens_estimated: bool = False
    latency_ms: float | None = None
    payload: Any = None
    error_type: str | None = None
    error_code: str | None = None
    request: Any = None
    response_content: Any = None


class _FencedMeanwhile(Exception):
    """A forget started while a batch was being written: roll back, write ``kept``."""

    def __init__(self, kept: list[PendingEntry]) -> None:
        super().__init__("fenced meanwhile")
        self.kept = kept


def _fenced(fences: dict[tuple[str, str], Fence], entry: PendingEntry) -> bool:
    fence = fences.get((entry.app_name, entry.user_id))
    if fence is None:
        return False
    return fence.discards(datetime.fromtimestamp(entry.time, tz=timezone.utc))


@dataclass(frozen=True)
class CostLine:
    """Totals for one group. ``cost_usd`` sums priced calls only (``None`` if none priced);
    ``unpriced_calls`` counts model calls whose cost is unknown."""

    key: str | None
    model_calls: int
    tool_calls: int
    input_tokens: int
    output_tokens: int
    estimated_calls: int
    cost_usd: float | None
    unpriced_calls: int


@dataclass(frozen=True)
class CostSummary:
    """``total`` and the same figures by session, user, agent and model."""

    total: CostLine
    by_session: list[CostLine]
    by_user: list[CostLine]
    by_agent: list[CostLine]
    by_model: list[CostLine]


_GROUP_COLUMNS = {"session": "session_id", "user": "user_id", "agent": "agent", "model": "model"}


def _check_id(name: str, value: Any, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value or "\x00" in value:
        raise InvalidInputError(f"{name} must be a non-empty string without NUL characters")
    return value


def _check_time(name: str, value: Any) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise InvalidInputError(f"{name} must be a datetime (timezone-aware), not {type(value)}")
    return value if value.tzinfo else value.replace(tzinfo=timezone.utc)


def _entry(row: RowMapping) -> LogEntry:
    return LogEntry(**dict(row))


@db_doors
class EpisodicLog:
    """The append-only episodic log in the kit's Postgres (embedded server by default).

    Args:
      db_url: ``postgresql+psycopg://...``; ``None`` uses ``ADK_MEMORY_KIT_DB_URL`` or the
        embedded server, like ``PgVectorMemoryService``.
      prices: a :class:`PriceTable`, or a mapping of model name to :class:`ModelPrice` added
        to the Gemini defaults.
      config: an :class:`~adk_memory_kit.episodic.config.EpisodicLogConfig`
        (``retention_days``, ``batch_size``, ``flush_interval``, ``max_pending``,
        ``max_payload_bytes``), or its fields by keyword
        (``EpisodicLog(url, batch_size=1)``), not both; a wrong value raises
        :class:`~adk_memory_kit.errors.InvalidInputError` naming the field.
    """

    def __init__(
        self,
        db_url: str | None = None,
        *,
        engine: AsyncEngine | None = None,
        prices: PriceTable | Mapping[str, ModelPrice] | None = None,
        config: EpisodicLogConfig | None = None,
        **options: Any,
    ) -> None:
        config = EpisodicLogConfig.given(config, options, options_label="the log's options")
        self.config = config
        if prices is None:
            self.prices = PriceTable()
        elif isinstance(prices, PriceTable):
            self.prices = prices
        else:  # checked before an engine is made (a bad table starts no server)
            self.prices = PriceTable.with_overrides(prices)
        self._engine = engine or make_engine(db_url)
        self._owns_engine = engine is None
        self.retention_days = config.retention_days
        self.batch_size = config.batch_size
        self.flush_interval = config.flush_interval
        self.max_pending = config.max_pending
        self.max_payload_bytes = config.max_payload_bytes
        self.dropped = 0
        """Entries dropped because the queue was full."""
        self.failed_writes = 0
        """Entries lost because a write failed."""
        self.discarded = 0
        """Entries of a user being (or already) forgotten, created before the forget
        completed: discarded, never written after it (the forget fence)."""
        self._queue: asyncio.Queue[PendingEntry] | None = None
        self._wake: asyncio.Event | None = None
        self._flusher: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._write_lock: asyncio.Lock | None = None
        self._schema_ready = False
        self._closed = False
        self._stopping = False

    @property
    def engine(self) -> AsyncEngine:
        return self._engine

    # ------------------------------------------------------------------ schema
    async def ensure_schema(self) -> None:
        """Create the table and its indexes if missing (idempotent, safe concurrently)."""
        if self._schema_ready:
            return
        try:
            with operator_scope():  # DDL and row-level security: the table owner's work
                async with self._engine.begin() as conn:
                    # Skip the DDL (COMMENT ON TABLE takes an exclusive lock) when it is done.
                    if not (await conn.execute(_SQL["schema_ready"])).scalar():
                        await conn.execute(_SQL["lock_timeout"])
                        await conn.execute(_SQL["lock_schema"])
                        for statement in _DDL:
                            await conn.execute(text(statement))
                    await protect_tables(conn)
        except Exception as exc:
            raise DatabaseUnavailableError(
                f"could not create the episodic log table {TABLE} ({type(exc).__name__}); "
                "check --db-url / ADK_MEMORY_KIT_DB_URL and that the role may create tables"
            ) from exc
        self._schema_ready = True

    # ------------------------------------------------------------------ writing
    def _start(self) -> asyncio.Queue[PendingEntry]:
        loop = asyncio.get_running_loop()
        if self._queue is None or self._loop is not loop or self._loop.is_closed():
            self._loop = loop
            self._queue = asyncio.Queue(maxsize=self.max_pending)
            self._wake = asyncio.Event()
            self._write_lock = asyncio.Lock()
            self._flusher = None
        if self._flusher is None or self._flusher.done():
            self._flusher = loop.create_task(self._flush_forever(), name="episodic-log-flusher")
        return self._queue

    def append(self, entry: PendingEntry) -> None:
        """Queue ``entry`` for writing. Never blocks, never raises; call from the event loop."""
        if self._closed:
            return
        try:
            queue = self._start()
            queue.put_nowait(entry)
        except asyncio.QueueFull:
            self.dropped += 1
            if self.dropped in (1, 10, 100) or self.dropped % 1000 == 0:
                logger.warning("episodic log: queue full, %d entries dropped so far", self.dropped)
            return
        except RuntimeError:  # no running loop: nothing can write it
            self.dropped += 1
            return
        if queue.qsize() >= self.batch_size and self._wake is not None:
            self._wake.set()

    @property
    def pending(self) -> int:
        """Entries queued and not yet written."""
        return self._queue.qsize() if self._queue is not None else 0

    async def _flush_forever(self) -> None:
        """Drain on every wake-up (a full batch, ``flush_interval``, or :meth:`close`).

        The interval is a timer that sets the wake event, not ``asyncio.wait_for``: on
        Python < 3.12, ``wait_for`` swallows a cancellation that lands while its inner wait
        has just finished, which kept this loop running forever. The loop ends on its own
        once ``close`` asks it to stop, after a last drain; it never needs cancelling.
        """
        wake, loop = self._wake, self._loop
        assert wake is not None and loop is not None
        while True:
            timer = loop.call_later(self.flush_interval, wake.set)
            try:
                await wake.wait()
            finally:
                timer.cancel()
            wake.clear()
            await self._drain()
            if self._stopping:
                return

    async def _drain(self) -> None:
        queue, lock = self._queue, self._write_lock
        if queue is None or lock is None:
            return
        async with lock:
            while not queue.empty():
                batch = [queue.get_nowait() for _ in range(min(self.batch_size, queue.qsize()))]
                await self._write(batch)

    async def flush(self) -> None:
        """Write everything queued so far (in this event loop), then return."""
        if self._queue is not None and self._loop is asyncio.get_running_loop():
            await self._drain()

    async def _write(self, batch: list[PendingEntry]) -> None:
        """Insert ``batch``; on failure log the count and exception class, never raise."""
        try:
            await self.ensure_schema()
            for _ in range(3):  # a fence raised during the transaction: again without them
                try:
                    await self._insert(batch)
                    return
                except _FencedMeanwhile as fenced:
                    batch = fenced.kept
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never into the turn; no row content in the log line
            self.failed_writes += len(batch)
            logger.warning(
                "episodic log: could not write %d entries (%s); they are dropped",
                len(batch),
                type(exc).__name__,
            )

    async def _insert(self, batch: list[PendingEntry]) -> None:
        """One transaction: the fence check, sequence numbers, the insert, the fence check
        again before commit (a forget that started meanwhile rolls the batch back). A batch
        holds several users' entries (each queued by its user's call): operator mode."""
        with operator_scope():
            await self._insert_batch(batch)

    async def _insert_batch(self, batch: list[PendingEntry]) -> None:
        async with self._engine.begin() as conn:
            await conn.execute(_SQL["lock_timeout"])
            fences = await fences_of(conn, {(e.app_name, e.user_id) for e in batch})
            kept = [e for e in batch if not _fenced(fences, e)]
            if len(kept) < len(batch):
                self.discarded += len(batch) - len(kept)
                logger.info(
                    "episodic log: %d entries of users being forgotten discarded",
                    len(batch) - len(kept),
                )
            if not kept:
                return
            rows = [self._row(entry) for entry in kept]
            sessions = sorted({(r["app_name"], r["user_id"], r["session_id"]) for r in rows})
            next_seq = {}
            for app_name, user_id, session_id in sessions:
                lock_key = json.dumps([app_name, user_id, session_id])
                await conn.execute(_SQL["lock_session"], {"key": lock_key})
                found = await conn.execute(
                    _SQL["max_seq"],
                    {"app_name": app_name, "user_id": user_id, "session_id": session_id},
                )
                next_seq[(app_name, user_id, session_id)] = found.scalar_one()
            for row in rows:
                key = (row["app_name"], row["user_id"], row["session_id"])
                next_seq[key] += 1
                row["seq"] = next_seq[key]
            await conn.execute(_SQL["insert"], rows)
            again = await fences_of(conn, {(e.app_name, e.user_id) for e in kept})
            if any(_fenced(again, e) for e in kept):
                still = [e for e in kept if not _fenced(again, e)]
                self.discarded += len(kept) - len(still)
                raise _FencedMeanwhile(still)

    def _row(self, entry: PendingEntry) -> dict[str, Any]:
        """Finish an entry off the hot path: estimates, cost, redaction, cap."""
        input_tokens, output_tokens = entry.input_tokens, entry.output_tokens
        estimated = entry.tokens_estimated
        if entry.kind == MODEL_CALL and (input_tokens is None or output_tokens is None):
            from adk_memory_kit.pruning.tokens import (
                estimate_content_tokens,
                estimate_request_tokens,
            )

            if input_tokens is None and entry.request is not None:
                input_tokens, estimated = estimate_request_tokens(entry.request), True
            if output_tokens is None:
                content = entry.response_content
                output_tokens = estimate_content_tokens(content) if content is not None else 0
                estimated = True
        cost = None
        if entry.kind == MODEL_CALL:
            cost = self.prices.cost(entry.name, input_tokens, output_tokens)
        return {
            "app_name": entry.app_name,
            "user_id": entry.user_id,
            "session_id": entry.session_id,
            "seq": 0,
            "invocation_id": entry.invocation_id or "",
            "agent": entry.agent or "",
            "time": datetime.fromtimestamp(entry.time, tz=timezone.utc),
            "kind": entry.kind,
            "name": entry.name or "",
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "tokens_estimated": estimated,
            "cost_usd": cost,
            "latency_ms": entry.latency_ms,
            "payload": prepare_payload(entry.payload, self.max_payload_bytes),
            "error_type": entry.error_type,
            "error_code": entry.error_code,
        }

    async def close(self) -> None:
        """Write what is queued, stop the writer and dispose of an engine the log created.

        The writer is stopped by asking it (it drains once more and returns), never by
        cancelling it, so ``close`` returns as soon as the last batch is written. A writer
        left on another, finished event loop cannot run again; its queue is abandoned.
        A cancellation of the caller propagates; the writer still finishes its last drain.
        """
        if self._closed:
            return
        self._closed = True
        flusher, wake = self._flusher, self._wake
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if flusher is not None and not flusher.done() and self._loop is running:
            self._stopping = True
            assert wake is not None
            wake.set()
            await asyncio.wait({flusher})  # not cancelled with the caller: it finishes the drain
        elif running is not None:
            await self.flush()
        if self._owns_engine:
            await self._engine.dispose()

    # ------------------------------------------------------------------ reading
    async def trace(self, app_name: str, user_id: str, session_id: str) -> list[LogEntry]:
        """Every entry of one session, in sequence order."""
        params = {
            "app_name": _check_id("app_name", app_name),
            "user_id": _check_id("user_id", user_id),
            "session_id": _check_id("session_id", session_id),
        }
        await self.ensure_schema()
        async with self._engine.connect() as conn:
            result = await conn.execute(_SQL["trace"], params)
            return [_entry(row) for row in result.mappings()]

    async def users_of_session(self, app_name: str, session_id: str) -> list[str]:
        """Users with entries under ``session_id`` (an operator lookup; at most 10)."""
        params = {
            "app_name": _check_id("app_name", app_name),
            "session_id": _check_id("session_id", session_id),
        }
        await self.ensure_schema()
        with operator_scope():
            async with self._engine.connect() as conn:
                return list((await conn.execute(_SQL["users_of_session"], params)).scalars())

    async def first_failure(
        self,
        app_name: str,
        user_id: str,
        session_id: str,
        invocation_id: str | None = None,
    ) -> LogEntry | None:
        """The first tool error, unhandled error or failed model call of the session (or of
        one invocation), or ``None`` when nothing failed."""
        params = {
            "app_name": _check_id("app_name", app_name),
            "user_id": _check_id("user_id", user_id),
            "session_id": _check_id("session_id", session_id),
            "invocation_id": _check_id("invocation_id", invocation_id, optional=True),
            "failure_kinds": list(FAILURE_KINDS),
            "model_call": MODEL_CALL,
        }
        await self.ensure_schema()
        async with self._engine.connect() as conn:
            row = (await conn.execute(_SQL["first_failure"], params)).mappings().first()
        return _entry(row) if row is not None else None

    async def cost_summary(
        self,
        app_name: str,
        user_id: str | None = None,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> CostSummary:
        """Model calls, tool calls, tokens and cost, in total and by session, user, agent and
        model, for entries with ``since <= time < until``.

        Without ``user_id`` this sums the whole app (an operator report across users).
        """
        if session_id is not None and user_id is None:
            raise InvalidInputError("session_id needs user_id: sessions belong to one user")
        params = {
            "app_name": _check_id("app_name", app_name),
            "user_id": _check_id("user_id", user_id, optional=True),
            "session_id": _check_id("session_id", session_id, optional=True),
            "since": _check_time("since", since),
            "until": _check_time("until", until),
            "model_call": MODEL_CALL,
        }
        await self.ensure_schema()
        with app_wide_unless(user_id):
            async with self._engine.connect() as conn:
                rows = list((await conn.execute(_SQL["cost_summary"], params)).mappings())
        groups: dict[str, list[CostLine]] = {"session": [], "user": [], "agent": [], "model": []}
        total = CostLine(None, 0, 0, 0, 0, 0, None, 0)
        for row in rows:
            flags = {k: row[f"g_{k}"] for k in ("session", "user", "agent", "model")}
            open_groups = [k for k, grouped in flags.items() if not grouped]
            line = CostLine(
                key=row[_GROUP_COLUMNS[open_groups[0]]] if open_groups else None,
                model_calls=row["model_calls"],
                tool_calls=row["tool_calls"],
                input_tokens=int(row["input_tokens"]),
                output_tokens=int(row["output_tokens"]),
                estimated_calls=row["estimated_calls"],
                cost_usd=float(row["cost_usd"]) if row["cost_usd"] is not None else None,
                unpriced_calls=row["unpriced_calls"],
            )
            if not open_groups:
                total = line
            elif open_groups[0] == "model":
                if line.key is not None:  # tool rows have no model
                    groups["model"].append(line)
            else:
                groups[open_groups[0]].append(line)
        for lines in groups.values():
            lines.sort(key=lambda line: (-(line.cost_usd or 0.0), str(line.key)))
        return CostSummary(
            total, groups["session"], groups["user"], groups["agent"], groups["model"]
        )

    async def iter_entries(
        self,
        app_name: str,
        *,
        user_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> AsyncIterator[LogEntry]:
        """Entries of an app (or one user) ordered by user, session and sequence, streamed."""
        params = {
            "app_name": _check_id("app_name", app_name),
            "user_id": _check_id("user_id", user_id, optional=True),
            "since": _check_time("since", since),
            "until": _check_time("until", until),
        }
        await self.ensure_schema()
        with app_wide_unless(user_id):
            async with self._engine.connect() as conn:
                result = await conn.stream(_SQL["export"], params)
                async for row in result.mappings():
                    yield _entry(row)

    async def export_trajectories(
        self,
        app_name: str,
        path: str | Path,
        *,
        user_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> int:
        """Write successful invocations as JSONL to ``path``; return how many were written.

        See :mod:`adk_memory_kit.episodic.trajectories` for what counts as success.
        """
        from adk_memory_kit.episodic.trajectories import write_trajectories

        if not isinstance(path, (str, Path)) or not str(path):
            raise InvalidInputError("path must be a file path for the JSONL output")
        target = Path(path)
        if target.is_dir():
            raise InvalidInputError("path names a directory; give a file path for the JSONL output")
        if not target.parent.is_dir():
            raise InvalidInputError("path's folder does not exist; create it first")
        entries = self.iter_entries(app_name, user_id=user_id, since=since, until=until)
        return await write_trajectories(entries, Path(path))

    # ------------------------------------------------------------------ lifecycle
    async def forget_user(self, app_name: str, user_id: str) -> int:
        """Delete every entry of one user of one app; return how many were deleted.

        Entries of this user still queued are written first, so none survive the call.
        """
        params = {
            "app_name": _check_id("app_name", app_name),
            "user_id": _check_id("user_id", user_id),
        }
        with contextlib.suppress(RuntimeError):
            await self.flush()
        await self.ensure_schema()
        async with self._engine.begin() as conn:
            return (await conn.execute(_SQL["forget_user"], params)).rowcount

    async def count_for_user(self, app_name: str, user_id: str) -> int:
        """How many entries one user of one app has (for ``data_map``)."""
        params = {
            "app_name": _check_id("app_name", app_name),
            "user_id": _check_id("user_id", user_id),
        }
        await self.ensure_schema()
        async with self._engine.connect() as conn:
            return (await conn.execute(_SQL["count_for_user"], params)).scalar_one()

    async def purge_expired(
        self, retention_days: float | None = None, *, now: datetime | None = None
    ) -> int:
        """Delete entries older than ``retention_days`` (default: the log's setting)."""
        days = self.retention_days if retention_days is None else retention_days
        if days is None:
            raise InvalidInputError(
                "retention_days is not set: pass it, or create EpisodicLog(retention_days=N)"
            )
        if isinstance(days, bool) or not isinstance(days, (int, float)) or days <= 0:
            raise InvalidInputError("retention_days must be a positive number of days")
        cutoff = (_check_time("now", now) or datetime.now(timezone.utc)) - timedelta(days=days)
        await self.ensure_schema()
        with operator_scope():  # the retention sweep over every user
            async with self._engine.begin() as conn:
                return (await conn.execute(_SQL["purge_expired"], {"cutoff": cutoff})).rowcount
