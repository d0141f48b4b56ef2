"""The idle job's watermarks: per session, the last ``last_update_time`` ingested.

A row is also the unit of claiming: a worker locks it with ``FOR UPDATE SKIP LOCKED`` for
the whole ingestion, so concurrent workers never ingest the same session at once, and the
watermark is re-read under that lock, so a session another worker just finished is seen
as unchanged. The row also records failed attempts (count, last attempt, last error, the
time before which the session is not retried) and an optional batch lease
(``claimed_by`` / ``claimed_until``) that keeps other workers' candidate lists disjoint.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.lifecycle.schema import (
    FORGET_LOG,
    OPEN_FORGET_SQL,
    WATERMARKS,
    ensure_lifecycle_schema,
)


@dataclass(frozen=True, order=True)
class SessionKey:
    """One session's identity."""

    app_name: str
    user_id: str
    session_id: str

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
        await self._conn.execute(
            text(
                f"UPDATE {WATERMARKS} SET session_update_time = :t, ingested_at = now(),"
                " failures = 0, last_error = NULL, retry_after = NULL,"
                " last_attempt_at = COALESCE(CAST(:at AS timestamptz), now()),"
                f" claimed_by = NULL, claimed_until = NULL WHERE {_KEY_WHERE}"
            ),
            {"t": update_time, "at": at, **_params(self.key)},
        )

    async def record_failure(
        self, error: str, *, at: datetime, retry_after: datetime | None
    ) -> None:
        """Count a failed attempt (the watermark stays; committed when the claim ends)."""
        await self._conn.execute(
            text(
                f"UPDATE {WATERMARKS} SET failures = failures + 1, last_attempt_at = :at,"
                " last_error = :err, retry_after = :retry,"
                f" claimed_by = NULL, claimed_until = NULL WHERE {_KEY_WHERE}"
            ),
            {"at": at, "err": error[:MAX_ERROR_CHARS], "retry": retry_after, **_params(self.key)},
        )
        self.failures += 1

    async def drop(self) -> None:
        """Delete the watermark row (the session no longer exists)."""
        await self._conn.execute(
            text(f"DELETE FROM {WATERMARKS} WHERE {_KEY_WHERE}"), _params(self.key)
        )


def _params(key: SessionKey) -> dict[str, Any]:
    return {"app": key.app_name, "user": key.user_id, "sid": key.session_id}


class WatermarkStore:
    """Reads, claims and advances watermarks in ``adk_memory_kit_ingest_watermarks``."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def ready(self) -> None:
        """Create the lifecycle tables if needed."""
        await ensure_lifecycle_schema(self.engine)

    async def get(self, key: SessionKey) -> datetime | None:
        """The last ingested update time of ``key`` (``None``: never ingested)."""
        await self.ready()
        async with self.engine.connect() as conn:
            return await conn.scalar(
                text(
                    f"SELECT session_update_time FROM {WATERMARKS}"
                    " WHERE app_name = :app AND user_id = :user AND session_id = :sid"
                ),
                _params(key),
            )

    async def state(self, key: SessionKey) -> WatermarkState | None:
        """``key``'s whole row (``None``: the idle job never saw the session)."""
        await self.ready()
        async with self.engine.connect() as conn:
            row = (
                await conn.execute(
                    text(f"SELECT {_STATE_COLUMNS} FROM {WATERMARKS} WHERE {_KEY_WHERE}"),
                    _params(key),
                )
            ).first()
        return None if row is None else WatermarkState(**row._asdict())

    async def for_app(self, app_name: str) -> dict[tuple[str, str], datetime | None]:
        """Every watermark of ``app_name`` as ``{(user_id, session_id): time}``."""
        await self.ready()
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                text(
                    f"SELECT user_id, session_id, session_update_time FROM {WATERMARKS}"
                    " WHERE app_name = :app"
                ),
                {"app": app_name},
            )
            return {(r.user_id, r.session_id): r.session_update_time for r in rows}

    async def users_being_forgotten(self, app_name: str) -> set[str]:
        """Users of ``app_name`` with a forget in progress (the idle job leaves them alone)."""
        await self.ready()
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                text(
                    f"SELECT user_id FROM {FORGET_LOG}"
                    " WHERE app_name = :app AND completed_at IS NULL"
                ),
                {"app": app_name},
            )
            return {r.user_id for r in rows}

    async def ensure_rows(self, keys: Iterable[SessionKey]) -> None:
        """Insert missing rows (committed at once, so claims never wait on an insert).

        No row is created for a user whose forget is in progress.
        """
        params = [_params(k) for k in keys]
        if not params:
            return
        await self.ready()
        async with self.engine.begin() as conn:
            await conn.execute(
                text(
                    f"INSERT INTO {WATERMARKS} (app_name, user_id, session_id)"
                    f" SELECT :app, :user, :sid WHERE NOT {OPEN_FORGET_SQL}"
                    " ON CONFLICT DO NOTHING"
                ),
                params,
            )

    @asynccontextmanager
    async def claim(self, key: SessionKey) -> AsyncIterator[Claim | None]:
        """Lock ``key``'s row for this transaction; yields ``None`` if another worker holds
        it (or the row is gone). Leaving the block normally commits, an error rolls back.
        """
        await self.ready()
        async with self.engine.connect() as conn, conn.begin():
            row = (
                await conn.execute(
                    text(
                        f"SELECT session_update_time, failures, retry_after FROM {WATERMARKS}"
                        f" WHERE {_KEY_WHERE} FOR UPDATE SKIP LOCKED"
                    ),
                    _params(key),
                )
            ).first()
            if row is None:
                yield None
                return
            forgetting = bool(
                await conn.scalar(
                    text(f"SELECT {OPEN_FORGET_SQL}"),
                    {"app": key.app_name, "user": key.user_id},
                )
            )
            yield Claim(
                conn, key, row.session_update_time, forgetting, row.failures, row.retry_after
            )

    async def release_leases(self, app_name: str, worker: str) -> None:
        """Drop the batch leases ``worker`` still holds in ``app_name``."""
        await self.ready()
        async with self.engine.begin() as conn:
            await conn.execute(
                text(
                    f"UPDATE {WATERMARKS} SET claimed_by = NULL, claimed_until = NULL"
                    " WHERE app_name = :app AND claimed_by = :me"
                ),
                {"app": app_name, "me": worker},
            )

    async def count_user(self, app_name: str, user_id: str) -> int:
        """How many watermark rows ``user_id`` has."""
        await self.ready()
        async with self.engine.connect() as conn:
            return int(
                await conn.scalar(
                    text(
                        f"SELECT count(*) FROM {WATERMARKS}"
                        " WHERE app_name = :app AND user_id = :user"
                    ),
                    {"app": app_name, "user": user_id},
                )
                or 0
            )

    async def delete_user(self, app_name: str, user_id: str) -> int:
        """Delete ``user_id``'s rows; waits for in-flight claims of them to finish first."""
        await self.ready()
        async with self.engine.begin() as conn:
            result = await conn.execute(
                text(f"DELETE FROM {WATERMARKS} WHERE app_name = :app AND user_id = :user"),
                {"app": app_name, "user": user_id},
            )
            return result.rowcount or 0
