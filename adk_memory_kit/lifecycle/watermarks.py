"""The idle job's watermarks: per session, the last ``last_update_time`` ingested.

A row is also the unit of claiming: a worker locks it with ``FOR UPDATE SKIP LOCKED`` for
the whole ingestion, so concurrent workers never ingest the same session at once, and the
watermark is re-read under that lock, so a session another worker just finished is seen
as unchanged. The row also records failed attempts (count, last attempt, last error, the
time before which the session is not retried) and an optional batch lease
(``claimed_by`` / ``claimed_until``) that keeps other workers' candidate lists disjoint.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from typing_extensions import override

from adk_memory_kit.core.db_errors import db_doors
from adk_memory_kit.core.scope import operator_wide
from adk_memory_kit.memory import forget_log
from adk_memory_kit.memory.lifecycle_schema import ensure_lifecycle_schema
from adk_memory_kit.memory.watermark_steps import WATERMARKS


@dataclass(frozen=True, order=True)
class SessionKey:
    """One session's identity."""

    app_name: str
    user_id: str
    session_id: str

    @override
    def __str__(self) -> str:
        return f"{self.app_name}/{self.user_id}/{self.session_id}"


@dataclass(frozen=True)
class WatermarkState:
    """One session's row: what was ingested, and how ingestion attempts went."""

    session_update_time: datetime | None
    ingested_at: datetime | None
    failures: int
    last_attempt_at: datetime | None
    last_error: str | None
    retry_after: datetime | None
    claimed_by: str | None
    claimed_until: datetime | None


_STATE_COLUMNS = (
    "session_update_time, ingested_at, failures, last_attempt_at, last_error, retry_after,"
    " claimed_by, claimed_until"
)
_KEY_WHERE = "app_name = :app AND user_id = :user AND session_id = :sid"
MAX_ERROR_CHARS = 2000

# Named statements. Per-session ones take :app, :user, :sid.
_ADVANCE = text(
    f"UPDATE {WATERMARKS} SET session_update_time = :t, ingested_at = now(),"
    " failures = 0, last_error = NULL, retry_after = NULL,"
    " last_attempt_at = COALESCE(CAST(:at AS timestamptz), now()),"
    f" claimed_by = NULL, claimed_until = NULL WHERE {_KEY_WHERE}"
)
_RECORD_FAILURE = text(
    f"UPDATE {WATERMARKS} SET failures = failures + 1, last_attempt_at = :at,"
    " last_error = :err, retry_after = :retry,"
    f" claimed_by = NULL, claimed_until = NULL WHERE {_KEY_WHERE}"
)
_DROP = text(f"DELETE FROM {WATERMARKS} WHERE {_KEY_WHERE}")
_GET = text(f"SELECT session_update_time FROM {WATERMARKS} WHERE {_KEY_WHERE}")
_STATE = text(f"SELECT {_STATE_COLUMNS} FROM {WATERMARKS} WHERE {_KEY_WHERE}")
_FOR_APP = text(
    f"SELECT user_id, session_id, session_update_time FROM {WATERMARKS} WHERE app_name = :app"
)
_CLAIM = text(
    f"SELECT session_update_time, failures, retry_after FROM {WATERMARKS}"
    f" WHERE {_KEY_WHERE} FOR UPDATE SKIP LOCKED"
)
_RELEASE_LEASES = text(
    f"UPDATE {WATERMARKS} SET claimed_by = NULL, claimed_until = NULL"
    " WHERE app_name = :app AND claimed_by = :me"
)
_COUNT_USER = text(f"SELECT count(*) FROM {WATERMARKS} WHERE app_name = :app AND user_id = :user")
_DELETE_USER = text(f"DELETE FROM {WATERMARKS} WHERE app_name = :app AND user_id = :user")

# Candidate selection. ``src`` is a CTE of changed-session candidates with columns
# (user_id, session_id, update_time), supplied by a :class:`CandidateSource`.
#
# Watermark rows for candidates that have none yet (committed at once, so claims never wait
# on an insert); none for a user whose forget is open.
_INSERT_MISSING = f"""
INSERT INTO {WATERMARKS} (app_name, user_id, session_id)
SELECT :app, src.user_id, src.session_id FROM src
WHERE NOT EXISTS (SELECT 1 FROM {WATERMARKS} w
                  WHERE w.app_name = :app AND w.user_id = src.user_id
                    AND w.session_id = src.session_id)
  AND {forget_log.not_forgetting_sql(":app", "src.user_id")}
ON CONFLICT DO NOTHING"""
# Changed, not backing off, not leased by another worker, user not being forgotten; rows
# another worker holds right now are skipped. Longest waiting first: a session waits since
# its change (``update_time``), a failed one since its retry became due (``retry_after``,
# reset by a success); whether or when a session was ingested before does not matter.
_PICK = f"""
SELECT w.user_id, w.session_id, GREATEST(src.update_time, w.retry_after) AS waiting_since
FROM {WATERMARKS} w
JOIN src ON w.app_name = :app AND w.user_id = src.user_id AND w.session_id = src.session_id
WHERE w.session_update_time IS DISTINCT FROM src.update_time
  AND (w.retry_after IS NULL OR w.retry_after <= :now)
  AND (w.claimed_until IS NULL OR w.claimed_until <= now() OR w.claimed_by = :me)
  AND {forget_log.not_forgetting_sql(":app", "w.user_id")}
ORDER BY GREATEST(src.update_time, w.retry_after), w.user_id, w.session_id
LIMIT :lim
FOR UPDATE OF w SKIP LOCKED"""
# The same, leasing the picked rows to this worker for ``ttl`` seconds (batch mode).
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
ORDER BY waiting_since, user_id, session_id"""
# Candidates listed through the public session API, passed as three parallel arrays.
_LISTED_SOURCE = """SELECT * FROM unnest(CAST(:src_users AS text[]),
    CAST(:src_sids AS text[]), CAST(:src_times AS timestamptz[]))
    AS t(user_id, session_id, update_time)"""


@dataclass(frozen=True)
class CandidateSource:
    """Where candidate sessions come from: one ``SELECT`` yielding ``(user_id, session_id,
    update_time)`` rows of the app (bound to ``:app``) and its own bind parameters.

    :meth:`listed` builds it from sessions the caller listed; ADK's session tables provide
    another (``adk_memory_kit._adk_compat``).
    """

    select_sql: str
    params: dict[str, Any]

    @classmethod
    def listed(cls, rows: Sequence[tuple[str, str, datetime]]) -> CandidateSource:
        """Candidates from ``(user_id, session_id, update_time)`` triples."""
        return cls(
            _LISTED_SOURCE,
            {
                "src_users": [r[0] for r in rows],
                "src_sids": [r[1] for r in rows],
                "src_times": [r[2] for r in rows],
            },
        )


class Claim:
    """A session claimed by one worker (the watermark row is locked until the claim ends)."""

    def __init__(
        self,
        conn: AsyncConnection,
        key: SessionKey,
        watermark: datetime | None,
        forgetting: bool,
        failures: int = 0,
        retry_after: datetime | None = None,
    ) -> None:
        self._conn = conn
        self.key = key
        self.watermark = watermark
        self.forgetting = forgetting
        self.failures = failures
        self.retry_after = retry_after

    async def advance(self, update_time: datetime, *, at: datetime | None = None) -> None:
        """Record ``update_time`` as ingested (committed when the claim ends cleanly).

        Clears the failure record and the batch lease; ``at`` is the attempt time (default:
        the database's ``now()``).
        """
        await self._conn.execute(_ADVANCE, {"t": update_time, "at": at, **_params(self.key)})

    async def record_failure(
        self, error: str, *, at: datetime, retry_after: datetime | None
    ) -> None:
        """Count a failed attempt (the watermark stays; committed when the claim ends)."""
        await self._conn.execute(
            _RECORD_FAILURE,
            {"at": at, "err": error[:MAX_ERROR_CHARS], "retry": retry_after, **_params(self.key)},
        )
        self.failures += 1

    async def drop(self) -> None:
        """Delete the watermark row (the session no longer exists)."""
        await self._conn.execute(_DROP, _params(self.key))


def _params(key: SessionKey) -> dict[str, Any]:
    return {"app": key.app_name, "user": key.user_id, "sid": key.session_id}


@db_doors
class WatermarkStore:
    """Owns the SQL of ``adk_memory_kit_ingest_watermarks``: reads, candidate selection,
    claims and advances of the idle job's watermarks.
    """

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def ready(self) -> None:
        """Create the lifecycle tables if needed."""
        await ensure_lifecycle_schema(self.engine)

    async def get(self, key: SessionKey) -> datetime | None:
        """The last ingested update time of ``key`` (``None``: never ingested)."""
        await self.ready()
        async with self.engine.connect() as conn:
            return await conn.scalar(_GET, _params(key))

    async def state(self, key: SessionKey) -> WatermarkState | None:
        """``key``'s whole row (``None``: the idle job never saw the session)."""
        await self.ready()
        async with self.engine.connect() as conn:
            row = (await conn.execute(_STATE, _params(key))).first()
        return None if row is None else WatermarkState(**row._asdict())

    @operator_wide
    async def for_app(self, app_name: str) -> dict[tuple[str, str], datetime | None]:
        """Every watermark of ``app_name`` as ``{(user_id, session_id): time}``."""
        await self.ready()
        async with self.engine.connect() as conn:
            rows = await conn.execute(_FOR_APP, {"app": app_name})
            return {(r.user_id, r.session_id): r.session_update_time for r in rows}

    @operator_wide
    async def users_being_forgotten(self, app_name: str) -> set[str]:
        """Users of ``app_name`` with a forget in progress (the idle job leaves them alone)."""
        await self.ready()
        async with self.engine.connect() as conn:
            return await forget_log.users_being_forgotten(conn, app_name)

    @operator_wide
    async def pick_candidates(
        self,
        app_name: str,
        source: CandidateSource,
        *,
        now: datetime,
        limit: int | None,
        worker: str,
        lease_seconds: float | None,
    ) -> list[SessionKey]:
        """The changed sessions of ``source`` to ingest now, longest waiting first.

        First inserts missing watermark rows (own transaction, committed at once). Then picks
        up to ``limit`` rows (``None``: all) that changed, are not backing off at ``now``,
        not leased by another worker and whose user is not being forgotten, skipping rows
        another worker holds. With ``lease_seconds`` the picked rows are leased to
        ``worker``, so concurrent workers take disjoint batches.
        """
        await self.ready()
        cte = f"WITH src AS ({source.select_sql})"
        params = {**source.params, "app": app_name}
        async with self.engine.begin() as conn:
            await conn.execute(text(f"{cte} {_INSERT_MISSING}"), params)
        pick = f"{cte}{_PICK_AND_LEASE}" if lease_seconds is not None else f"{cte} {_PICK}"
        params.update(now=now, lim=limit, me=worker, ttl=lease_seconds)
        async with self.engine.begin() as conn:
            rows = (await conn.execute(text(pick), params)).all()
        return [SessionKey(app_name, r.user_id, r.session_id) for r in rows]

    @asynccontextmanager
    async def claim(self, key: SessionKey) -> AsyncIterator[Claim | None]:
        """Lock ``key``'s row for this transaction; yields ``None`` if another worker holds
        it (or the row is gone). Leaving the block normally commits, an error rolls back.
        """
        await self.ready()
        async with self.engine.connect() as conn, conn.begin():
            row = (await conn.execute(_CLAIM, _params(key))).first()
            if row is None:
                yield None
                return
            forgetting = await forget_log.is_forgetting(
                conn, app_name=key.app_name, user_id=key.user_id
            )
            yield Claim(
                conn, key, row.session_update_time, forgetting, row.failures, row.retry_after
            )

    @operator_wide
    async def release_leases(self, app_name: str, worker: str) -> None:
        """Drop the batch leases ``worker`` still holds in ``app_name``."""
        await self.ready()
        async with self.engine.begin() as conn:
            await conn.execute(_RELEASE_LEASES, {"app": app_name, "me": worker})

    async def count_user(self, app_name: str, user_id: str) -> int:
        """How many watermark rows ``user_id`` has."""
        await self.ready()
        async with self.engine.connect() as conn:
            return int(await conn.scalar(_COUNT_USER, {"app": app_name, "user": user_id}) or 0)

    async def delete_user(self, app_name: str, user_id: str) -> int:
        """Delete ``user_id``'s rows; waits for in-flight claims of them to finish first."""
        await self.ready()
        async with self.engine.begin() as conn:
            result = await conn.execute(_DELETE_USER, {"app": app_name, "user": user_id})
            return result.rowcount or 0
