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

# Step N brings the schema from version N-1 to N. Append, never edit.
STEPS: list[str] = [
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
