"""The lifecycle tables: idle-job watermarks and the forget log (a deletion tombstone).

Both live in the same Postgres as the memory table and are versioned with the kit's
migration table under the component name ``lifecycle``.
"""

from __future__ import annotations

import weakref
from datetime import datetime, timezone

from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit.db.migrations import migrate

COMPONENT = "lifecycle"
WATERMARKS = "adk_memory_kit_ingest_watermarks"
FORGET_LOG = "adk_memory_kit_forget_log"

# Step N brings the schema from version N-1 to N. Append, never edit (released versions).
#
# Watermarks: one row per session the idle job has seen. ``session_update_time`` is the
# last ingested ``last_update_time``; ``failures`` / ``last_attempt_at`` / ``last_error`` /
# ``retry_after`` record failed attempts (reset by a success); ``claimed_by`` /
# ``claimed_until`` are a batch lease, so workers with a batch size take disjoint batches.
#
# Forget log: one row per ``forget_user`` run (``forget_id``), never overwritten by a later
# run. A row is open (``completed_at IS NULL``) while the run is in progress, after it was
# interrupted (``status`` 'running' or 'failed'), or when data was still left after it
# (``status`` 'unverified'). A verified run closes its own row ('completed') and every older
# open row of the same user ('superseded', ``finished_by`` = its id).
STEPS: list[str] = [
    f"""
    CREATE TABLE IF NOT EXISTS {WATERMARKS} (
        app_name            text        NOT NULL,
        user_id             text        NOT NULL,
        session_id          text        NOT NULL,
        session_update_time timestamptz,
        ingested_at         timestamptz,
        failures            integer     NOT NULL DEFAULT 0,
        last_attempt_at     timestamptz,
        last_error          text,
        retry_after         timestamptz,
        claimed_by          text,
        claimed_until       timestamptz,
        PRIMARY KEY (app_name, user_id, session_id)
    );
    CREATE TABLE IF NOT EXISTS {FORGET_LOG} (
        forget_id    bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        app_name     text        NOT NULL,
        user_id      text        NOT NULL,
        requested_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        status       text        NOT NULL DEFAULT 'running',
        finished_by  bigint,
        report       jsonb
    );
    CREATE INDEX IF NOT EXISTS {FORGET_LOG}_user_idx ON {FORGET_LOG} (app_name, user_id, forget_id);
    CREATE INDEX IF NOT EXISTS {FORGET_LOG}_open_idx ON {FORGET_LOG} (app_name, user_id)
        WHERE completed_at IS NULL
    """,
]

# SQL fragment: "this (app_name, user_id) has a forget in progress". Params :app, :user.
OPEN_FORGET_SQL = (
    f"EXISTS (SELECT 1 FROM {FORGET_LOG} f WHERE f.app_name = :app AND f.user_id = :user"
    " AND f.completed_at IS NULL)"
)

_ready: weakref.WeakSet[AsyncEngine] = weakref.WeakSet()


async def ensure_lifecycle_schema(engine: AsyncEngine) -> None:
    """Create or migrate the lifecycle tables (once per engine; concurrent calls are safe)."""
    if engine not in _ready:
        await migrate(engine, COMPONENT, STEPS)
        _ready.add(engine)


def to_datetime(timestamp: float) -> datetime:
    """A session's ``last_update_time`` (POSIX seconds) as an aware UTC datetime (µs)."""
    return datetime.fromtimestamp(timestamp, tz=timezone.utc)
