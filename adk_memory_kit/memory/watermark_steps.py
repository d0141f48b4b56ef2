"""The watermark table's schema steps (its SQL lives in :mod:`.watermarks`).

Kept apart so that :mod:`.schema` orders them without importing the store that needs it.
"""

from __future__ import annotations

from adk_memory_kit.db.catalog import home_comment_step
from adk_memory_kit.db.migrations import Step

WATERMARKS = "adk_memory_kit_ingest_watermarks"

# Schema steps (ordered with the forget log's in memory/lifecycle_schema.py). One row per session
# the idle job has seen: ``session_update_time`` is the last ingested ``last_update_time``;
# ``failures`` / ``last_attempt_at`` / ``last_error`` / ``retry_after`` record failed attempts
# (reset by a success); ``claimed_by`` / ``claimed_until`` are a batch lease, so workers with
# a batch size take disjoint batches.
CREATE_V1 = Step(
    f"""
    CREATE TABLE IF NOT EXISTS {WATERMARKS} (
        app_name            text        NOT NULL,
        user_id             text        NOT NULL,
        session_id          text        NOT NULL,
        session_update_time timestamptz,
        ingested_at         timestamptz,
        PRIMARY KEY (app_name, user_id, session_id)
    )"""
)
ADD_ATTEMPTS_AND_LEASES = Step(
    f"""
    ALTER TABLE {WATERMARKS}
        ADD COLUMN IF NOT EXISTS failures        integer NOT NULL DEFAULT 0,
        ADD COLUMN IF NOT EXISTS last_attempt_at timestamptz,
        ADD COLUMN IF NOT EXISTS last_error      text,
        ADD COLUMN IF NOT EXISTS retry_after     timestamptz,
        ADD COLUMN IF NOT EXISTS claimed_by      text,
        ADD COLUMN IF NOT EXISTS claimed_until   timestamptz"""
)
MARK_HOME = home_comment_step(WATERMARKS, "idle_watermarks")
