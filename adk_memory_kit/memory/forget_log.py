"""The forget log (``adk_memory_kit_forget_log``): the only module with SQL on that table.

One row per ``forget_user`` run (``forget_id``), never overwritten by a later run. A row is
open (``completed_at IS NULL``) while the run is in progress, after it was interrupted
(``status`` 'running' or 'failed'), or when data was still left after it ('unverified'). A
verified run closes its own row ('completed') and every older open row of the same user
('superseded', ``finished_by`` = its id).

Every function takes an open :class:`AsyncConnection` and runs in the caller's transaction,
so the orchestration (``lifecycle.forget``) decides where transactions begin and end. Every
per-user statement carries ``app_name`` and ``user_id`` equality (the sharding key).

Other modules that must skip users being forgotten embed :func:`not_forgetting_sql` (a
``NOT EXISTS`` fragment on this table) in their own statements instead of writing it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

from adk_memory_kit.db.migrations import Step

FORGET_LOG = "adk_memory_kit_forget_log"

# Schema steps, in the order the lifecycle component runs them (see memory/lifecycle_schema.py,
# which interleaves them with the watermark steps).
CREATE_V1 = Step(
    f"""
    CREATE TABLE IF NOT EXISTS {FORGET_LOG} (
        app_name     text        NOT NULL,
        user_id      text        NOT NULL,
        requested_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        report       jsonb,
        PRIMARY KEY (app_name, user_id)
    )"""
)
# Version 2: one row per run. Existing rows are kept: a closed row of a user becomes that
# user's 'completed' run, an open one an interrupted ('running') run. Every statement also
# holds on a database whose first step already had this shape (a development snapshot).
UPGRADE_TO_RUNS: tuple[Step, ...] = (
    Step(
        f"""
        ALTER TABLE {FORGET_LOG}
            ADD COLUMN IF NOT EXISTS forget_id   bigint GENERATED ALWAYS AS IDENTITY,
            ADD COLUMN IF NOT EXISTS status      text   NOT NULL DEFAULT 'running',
            ADD COLUMN IF NOT EXISTS finished_by bigint"""
    ),
    Step(
        f"UPDATE {FORGET_LOG} SET status = 'completed'"
        " WHERE completed_at IS NOT NULL AND status = 'running'"
    ),
    Step(f"ALTER TABLE {FORGET_LOG} DROP CONSTRAINT IF EXISTS {FORGET_LOG}_pkey"),
    Step(f"ALTER TABLE {FORGET_LOG} ADD CONSTRAINT {FORGET_LOG}_pkey PRIMARY KEY (forget_id)"),
    Step(
        f"CREATE INDEX IF NOT EXISTS {FORGET_LOG}_user_idx"
        f" ON {FORGET_LOG} (app_name, user_id, forget_id)"
    ),
    Step(
        f"CREATE INDEX IF NOT EXISTS {FORGET_LOG}_open_idx ON {FORGET_LOG} (app_name, user_id)"
        " WHERE completed_at IS NULL"
    ),
)
# The log holds per-user rows (the deletion audit record): marked like every kit home.


def not_forgetting_sql(app: str = ":app", user: str = ":user") -> str:
    """SQL fragment, true when the user has NO open forget run.

    ``app`` and ``user`` are SQL expressions (a bind parameter such as ``:app`` or a column
    such as ``src.user_id``) supplied by the embedding statement.
    """
    return (
        f"NOT EXISTS (SELECT 1 FROM {FORGET_LOG} f WHERE f.app_name = {app}"
        f" AND f.user_id = {user} AND f.completed_at IS NULL)"
    )


def report_json(report: dict[str, Any]) -> str:
    """``report`` as the JSON stored in the ``report`` column (non-JSON values as text)."""
    return json.dumps(report, default=str)


_OPEN_RUN = text(
    f"INSERT INTO {FORGET_LOG} (app_name, user_id) VALUES (:app, :user)"
    " RETURNING forget_id, requested_at"
)
_CLOSE_RUN = text(
    f"UPDATE {FORGET_LOG} SET completed_at = :done, status = 'completed',"
    " report = CAST(:r AS jsonb)"
    " WHERE app_name = :app AND user_id = :user AND forget_id = :id"
)
_SUPERSEDE_OLDER = text(
    f"UPDATE {FORGET_LOG} SET completed_at = :done, status = 'superseded', finished_by = :id"
    " WHERE app_name = :app AND user_id = :user AND completed_at IS NULL AND forget_id < :id"
)
_LOCK_RUN = text(
    f"SELECT completed_at, status, finished_by FROM {FORGET_LOG}"
    " WHERE app_name = :app AND user_id = :user AND forget_id = :id FOR UPDATE"
)
_RECORD_OUTCOME = text(
    f"UPDATE {FORGET_LOG} SET report = CAST(:r AS jsonb),"
    " status = CASE WHEN completed_at IS NULL THEN :status ELSE status END"
    " WHERE app_name = :app AND user_id = :user AND forget_id = :id"
)
_MARK_FAILED = text(
    f"UPDATE {FORGET_LOG} SET status = 'failed', report = CAST(:r AS jsonb)"
    " WHERE app_name = :app AND user_id = :user AND forget_id = :id AND completed_at IS NULL"
)
_PENDING = text(
    "SELECT DISTINCT ON (app_name, user_id) app_name, user_id, forget_id, status, report,"
    " min(requested_at) OVER (PARTITION BY app_name, user_id) AS first_at,"
    " count(*) OVER (PARTITION BY app_name, user_id) AS runs"
    f" FROM {FORGET_LOG}"
    " WHERE completed_at IS NULL AND (CAST(:app AS text) IS NULL OR app_name = :app)"
    " ORDER BY app_name, user_id, forget_id DESC"
)
_USER_SUMMARY = text(
    "SELECT count(*) AS runs, count(*) FILTER (WHERE completed_at IS NULL) AS open_runs,"
    f" max(completed_at) AS last_completed FROM {FORGET_LOG}"
    " WHERE app_name = :app AND user_id = :user AND status <> 'memories_deleted'"
)
_USERS_BEING_FORGOTTEN = text(
    f"SELECT DISTINCT user_id FROM {FORGET_LOG} WHERE app_name = :app AND completed_at IS NULL"
)
_IS_FORGETTING = text(f"SELECT NOT {not_forgetting_sql()}")
#: ``status`` of a row that records memories deleted one by one (a forget request said in the
#: conversation, issue 29): closed at once, so it never fences writes nor counts as open.
MEMORIES_DELETED = "memories_deleted"
_RECORD_DELETES = text(
    f"INSERT INTO {FORGET_LOG} (app_name, user_id, completed_at, status, report)"
    " VALUES (:app, :user, now(), :status, CAST(:r AS jsonb)) RETURNING forget_id"
)


@dataclass(frozen=True)
class RunState:
    """One run's row as :func:`lock_run` reads it."""

    completed_at: datetime | None
    status: str
    finished_by: int | None


@dataclass(frozen=True)
class OpenUser:
    """A user with open runs (:func:`pending`): the latest open run and the earliest start."""

    app_name: str
    user_id: str
    forget_id: int
    status: str
    report: dict[str, Any] | None
    first_requested_at: datetime
    open_runs: int


@dataclass(frozen=True)
class UserSummary:
    """A user's runs (:func:`user_summary`): all, still open, and the last completion."""

    runs: int
    open_runs: int
    last_completed: datetime | None


async def open_run(conn: AsyncConnection, *, app_name: str, user_id: str) -> tuple[int, datetime]:
    """Insert an open row ('running') for a new run; returns ``(forget_id, requested_at)``.

    Commit it before deleting anything, so the idle job sees the user as being forgotten.
    """
    row = (await conn.execute(_OPEN_RUN, {"app": app_name, "user": user_id})).one()
    return row.forget_id, row.requested_at


async def close_run(
    conn: AsyncConnection,
    *,
    app_name: str,
    user_id: str,
    forget_id: int,
    report: dict[str, Any],
) -> datetime:
    """Close run ``forget_id`` as 'completed' with ``report``, and every older open run of the
    user as 'superseded' by it. Returns the completion time (the database's ``now()``).
    """
    done = await conn.scalar(text("SELECT now()"))
    params = {"app": app_name, "user": user_id, "id": forget_id, "done": done}
    await conn.execute(_CLOSE_RUN, {**params, "r": report_json({**report, "completed_at": done})})
    await conn.execute(_SUPERSEDE_OLDER, params)
    return done


async def lock_run(
    conn: AsyncConnection, *, app_name: str, user_id: str, forget_id: int
) -> RunState | None:
    """Lock run ``forget_id``'s row for this transaction and return it (``None``: no row)."""
    row = (
        await conn.execute(_LOCK_RUN, {"app": app_name, "user": user_id, "id": forget_id})
    ).first()
    return None if row is None else RunState(row.completed_at, row.status, row.finished_by)


async def record_outcome(
    conn: AsyncConnection,
    *,
    app_name: str,
    user_id: str,
    forget_id: int,
    status: str,
    report: dict[str, Any],
) -> None:
    """Store ``report`` on run ``forget_id``; set ``status`` only while the row is open.

    A row another run already closed ('superseded') keeps its status and completion time.
    """
    await conn.execute(
        _RECORD_OUTCOME,
        {
            "app": app_name,
            "user": user_id,
            "id": forget_id,
            "status": status,
            "r": report_json(report),
        },
    )


async def mark_failed(
    conn: AsyncConnection,
    *,
    app_name: str,
    user_id: str,
    forget_id: int,
    report: dict[str, Any],
) -> None:
    """Mark open run ``forget_id`` 'failed' with ``report`` (a closed row is left alone).

    ``report`` should carry an ``error`` key (type and message, never user text).
    """
    await conn.execute(
        _MARK_FAILED,
        {"app": app_name, "user": user_id, "id": forget_id, "r": report_json(report)},
    )


async def pending(conn: AsyncConnection, app_name: str | None = None) -> list[OpenUser]:
    """Users with open runs (all apps when ``app_name`` is ``None``), one entry per user,
    ordered by app and user.
    """
    rows = await conn.execute(_PENDING, {"app": app_name})
    return [
        OpenUser(r.app_name, r.user_id, r.forget_id, r.status, r.report, r.first_at, int(r.runs))
        for r in rows
    ]


async def user_summary(conn: AsyncConnection, *, app_name: str, user_id: str) -> UserSummary:
    """How many runs the user has, how many are open, and when the last one completed."""
    row = (await conn.execute(_USER_SUMMARY, {"app": app_name, "user": user_id})).one()
    return UserSummary(int(row.runs), int(row.open_runs), row.last_completed)


async def users_being_forgotten(conn: AsyncConnection, app_name: str) -> set[str]:
    """Users of ``app_name`` with an open run (the idle job leaves them alone)."""
    return {r.user_id for r in await conn.execute(_USERS_BEING_FORGOTTEN, {"app": app_name})}


async def is_forgetting(conn: AsyncConnection, *, app_name: str, user_id: str) -> bool:
    """Whether the user has an open run."""
    return bool(await conn.scalar(_IS_FORGETTING, {"app": app_name, "user": user_id}))


async def record_memory_deletes(
    conn: AsyncConnection,
    *,
    app_name: str,
    user_id: str,
    memory_ids: list[str],
    homes: list[str],
    deleted: int,
    source: str = "conversation",
) -> int:
    """Record memories deleted one by one (ids and counts only, never their text) as a
    closed row with status :data:`MEMORIES_DELETED`; returns its ``forget_id``.

    The row is closed when written, so :func:`not_forgetting_sql` and the write fence (which
    reads 'completed' runs only) are unaffected.
    """
    report = {
        "kind": MEMORIES_DELETED,
        "source": source,
        "deleted": deleted,
        "memory_ids": sorted(memory_ids),
        "homes": sorted(homes),
    }
    row = await conn.execute(
        _RECORD_DELETES,
        {"app": app_name, "user": user_id, "status": MEMORIES_DELETED, "r": report_json(report)},
    )
    return int(row.scalar_one())
