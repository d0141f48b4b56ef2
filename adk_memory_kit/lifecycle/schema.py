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

# Step N brings the schema from version N-1 to N. Append, never edit: a database records
# only how many steps ran, so an edited step never reaches a database that already ran it.
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
    # 1: watermarks and a forget log with one row per user (as first committed)
    f"""
    CREATE TABLE IF NOT EXISTS {WATERMARKS} (
        app_name            text        NOT NULL,
        user_id             text        NOT NULL,
        session_id          text        NOT NULL,
        session_update_time timestamptz,
        ingested_at         timestamptz,
        PRIMARY KEY (app_name, user_id, session_id)
    );
    CREATE TABLE IF NOT EXISTS {FORGET_LOG} (
        app_name     text        NOT NULL,
        user_id      text        NOT NULL,
        requested_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        report       jsonb,
        PRIMARY KEY (app_name, user_id)
    )
    """,
    # 2: watermark failure records and batch leases; a forget log with one row per run.
    # Every statement also holds on a version-1 database created by the development
    # snapshot whose step 1 already had this shape (hence IF NOT EXISTS throughout, and the
    # primary key dropped and re-created). Existing rows are kept: a closed row of a user
    # becomes that user's 'completed' run, an open one an interrupted ('running') run.
    f"""
    ALTER TABLE {WATERMARKS}
        ADD COLUMN IF NOT EXISTS failures        integer NOT NULL DEFAULT 0,
        ADD COLUMN IF NOT EXISTS last_attempt_at timestamptz,
        ADD COLUMN IF NOT EXISTS last_error      text,
        ADD COLUMN IF NOT EXISTS retry_after     timestamptz,
        ADD COLUMN IF NOT EXISTS claimed_by      text,
        ADD COLUMN IF NOT EXISTS claimed_until   timestamptz;
    ALTER TABLE {FORGET_LOG}
        ADD COLUMN IF NOT EXISTS forget_id   bigint GENERATED ALWAYS AS IDENTITY,
        ADD COLUMN IF NOT EXISTS status      text   NOT NULL DEFAULT 'running',
        ADD COLUMN IF NOT EXISTS finished_by bigint;
    UPDATE {FORGET_LOG} SET status = 'completed'
        WHERE completed_at IS NOT NULL AND status = 'running';
    ALTER TABLE {FORGET_LOG} DROP CONSTRAINT IF EXISTS {FORGET_LOG}_pkey;
    ALTER TABLE {FORGET_LOG} ADD CONSTRAINT {FORGET_LOG}_pkey PRIMARY KEY (forget_id);
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
