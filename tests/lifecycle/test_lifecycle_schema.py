"""Lifecycle schema migrations: a database already at version 1 reaches the current shape.

Each case creates a fresh database on the embedded server (the table names are fixed), lays
down a version-1 schema exactly as an earlier adk-memory-kit left it, with rows in it,
records version 1, and then lets the current code migrate it.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest
from google.adk.events.event import Event
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.genai import types
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from adk_memory_kit.db.migrations import VERSION_TABLE
from adk_memory_kit.lifecycle import IdleIngestJob, SessionKey, forget_user, pending_forgets
from adk_memory_kit.lifecycle.schema import (
    COMPONENT,
    FORGET_LOG,
    STEPS,
    WATERMARKS,
    ensure_lifecycle_schema,
)
from adk_memory_kit.memory.service import PgVectorMemoryService

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it

# Step 1 as commit f8f0998 created it (the table names spelled out).
V1_ORIGINAL = """
    CREATE TABLE IF NOT EXISTS adk_memory_kit_ingest_watermarks (
        app_name            text        NOT NULL,
        user_id             text        NOT NULL,
        session_id          text        NOT NULL,
        session_update_time timestamptz,
        ingested_at         timestamptz,
        PRIMARY KEY (app_name, user_id, session_id)
    );
    CREATE TABLE IF NOT EXISTS adk_memory_kit_forget_log (
        app_name     text        NOT NULL,
        user_id      text        NOT NULL,
        requested_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        report       jsonb,
        PRIMARY KEY (app_name, user_id)
    )
    """

# Step 1 as commit 25414c0 had edited it in place (databases created by that snapshot).
V1_EDITED = """
    CREATE TABLE IF NOT EXISTS adk_memory_kit_ingest_watermarks (
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
    CREATE TABLE IF NOT EXISTS adk_memory_kit_forget_log (
        forget_id    bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        app_name     text        NOT NULL,
        user_id      text        NOT NULL,
        requested_at timestamptz NOT NULL DEFAULT now(),
        completed_at timestamptz,
        status       text        NOT NULL DEFAULT 'running',
        finished_by  bigint,
        report       jsonb
    );
    CREATE INDEX IF NOT EXISTS adk_memory_kit_forget_log_user_idx
        ON adk_memory_kit_forget_log (app_name, user_id, forget_id);
    CREATE INDEX IF NOT EXISTS adk_memory_kit_forget_log_open_idx
        ON adk_memory_kit_forget_log (app_name, user_id) WHERE completed_at IS NULL
    """

PAST = datetime.now(timezone.utc) - timedelta(hours=2)
APP = "migrated_app"


def _squash(sql: str) -> str:
    return " ".join(sql.split())


def test_step_one_is_the_released_step_one():
    """Released steps are never edited: the steps up to the end of old version 1 are, one
    statement each, what f8f0998 created as its step 1.
    """
    end = next(i for i, step in enumerate(STEPS) if step.legacy == 1)
    assert _squash(";".join(step.sql for step in STEPS[: end + 1])) == _squash(V1_ORIGINAL)
    assert [step.legacy for step in STEPS if step.legacy] == [1, 2]


@pytest.fixture
async def fresh_db(db_url):
    """A new, empty database on the embedded server; dropped afterwards."""
    name = f"lc_mig_{uuid.uuid4().hex[:10]}"
    admin = create_async_engine(db_url, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield make_url(db_url).set(database=name).render_as_string(hide_password=False)
        async with admin.connect() as conn:
            await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await admin.dispose()


async def _run(url: str, sql: str, params: dict | None = None) -> list:
    engine = create_async_engine(url)
    try:
        async with engine.begin() as conn:
            result = None
            for statement in filter(str.strip, sql.split(";")):
                result = await conn.execute(text(statement), params or {})
            return result.all() if result is not None and result.returns_rows else []
    finally:
        await engine.dispose()


async def _shape(url: str) -> dict:
    """Columns, primary keys and indexes of the lifecycle tables."""
    tables = [WATERMARKS, FORGET_LOG]
    columns = await _run(
        url,
        "SELECT table_name, column_name, data_type, is_nullable, is_identity,"
        " column_default FROM information_schema.columns"
        " WHERE table_name = ANY(:t) ORDER BY table_name, column_name",
        {"t": tables},
    )
    keys = await _run(
        url,
        "SELECT tc.table_name, kcu.column_name FROM information_schema.table_constraints tc"
        " JOIN information_schema.key_column_usage kcu"
        " ON kcu.constraint_name = tc.constraint_name AND kcu.table_name = tc.table_name"
        " WHERE tc.constraint_type = 'PRIMARY KEY' AND tc.table_name = ANY(:t)"
        " ORDER BY tc.table_name, kcu.ordinal_position",
        {"t": tables},
    )
    indexes = await _run(
        url,
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ANY(:t) ORDER BY 1",
        {"t": tables},
    )
    return {
        "columns": [tuple(r) for r in columns],
        "keys": [tuple(r) for r in keys],
        "indexes": [tuple(r) for r in indexes],
    }


async def _make_v1(url: str, step_one: str, seed: str) -> None:
    await _run(
        url,
        f"CREATE TABLE IF NOT EXISTS {VERSION_TABLE} ("
        " component text PRIMARY KEY, version int NOT NULL,"
        " embedding_model text, embedding_dim int,"
        " updated_at timestamptz NOT NULL DEFAULT now())",
    )
    await _run(url, step_one)
    await _run(url, seed, {"app": APP, "past": PAST})
    await _run(
        url,
        f"INSERT INTO {VERSION_TABLE} (component, version) VALUES (:c, 1)",
        {"c": COMPONENT},
    )


# Rows the original version 1 could hold: a watermark, a finished forget of "gone" and an
# interrupted one of "stuck" (one row per user, no ids, no status).
SEED_ORIGINAL = f"""
    INSERT INTO {WATERMARKS} (app_name, user_id, session_id, session_update_time, ingested_at)
        VALUES (:app, 'carol', 'old-session', :past, :past);
    INSERT INTO {FORGET_LOG} (app_name, user_id, requested_at, completed_at, report)
        VALUES (:app, 'gone', :past, :past, CAST('{{"verified": true}}' AS jsonb));
    INSERT INTO {FORGET_LOG} (app_name, user_id, requested_at) VALUES (:app, 'stuck', :past)
    """

# The same story on the edited version 1, plus a run superseded by a later one.
SEED_EDITED = f"""
    INSERT INTO {WATERMARKS} (app_name, user_id, session_id, session_update_time, ingested_at,
                              failures, last_error)
        VALUES (:app, 'carol', 'old-session', :past, :past, 2, 'boom');
    INSERT INTO {FORGET_LOG} (app_name, user_id, requested_at, completed_at, status,
                              finished_by)
        VALUES (:app, 'gone', :past, :past, 'superseded', 2);
    INSERT INTO {FORGET_LOG} (app_name, user_id, requested_at, completed_at, status, report)
        VALUES (:app, 'gone', :past, :past, 'completed', CAST('{{"verified": true}}' AS jsonb));
    INSERT INTO {FORGET_LOG} (app_name, user_id, requested_at, status)
        VALUES (:app, 'stuck', :past, 'failed')
    """


async def _add_session(sessions, user: str, said: str):
    session = await sessions.create_session(app_name=APP, user_id=user)
    await sessions.append_event(
        session,
        Event(
            author="user",
            invocation_id=f"inv-{uuid.uuid4().hex[:8]}",
            content=types.Content(role="user", parts=[types.Part(text=said)]),
            timestamp=PAST.timestamp(),
        ),
    )
    return session


@pytest.mark.parametrize(
    ("step_one", "seed", "carol_failures", "gone_statuses"),
    [
        (V1_ORIGINAL, SEED_ORIGINAL, 0, ["completed"]),
        (V1_EDITED, SEED_EDITED, 2, ["superseded", "completed"]),
    ],
    ids=["v1-as-first-committed", "v1-edited-in-place"],
)
async def test_a_version_1_database_is_migrated_and_works(
    db_url, fresh_db, embedder, step_one, seed, carol_failures, gone_statuses
):
    await _make_v1(fresh_db, step_one, seed)
    before = await _run(
        fresh_db,
        f"SELECT user_id, requested_at, completed_at, report FROM {FORGET_LOG}"
        " ORDER BY user_id, completed_at NULLS LAST",
    )

    sessions = DatabaseSessionService(db_url=fresh_db)
    memory = PgVectorMemoryService(fresh_db, embedder=embedder)
    try:
        # the idle job (batch leases and failure columns included) runs on the migrated tables
        s = await _add_session(sessions, "alice", "alice's favourite airport is Lisbon")
        job = IdleIngestJob(sessions, memory, app_name=APP, batch_size=1)
        assert (await job.run_once()).ingested == [SessionKey(APP, "alice", s.id)]
        state = await job.state("alice", s.id)
        assert state.failures == 0 and state.claimed_by is None
        assert state.session_update_time is not None
        old = await job.state("carol", "old-session")  # an existing watermark survived
        assert old is not None and old.session_update_time == PAST
        assert old.failures == carol_failures

        # the existing forget-log rows are kept; the interrupted forget is still pending
        assert (
            await _run(
                fresh_db,
                f"SELECT user_id, requested_at, completed_at, report FROM {FORGET_LOG}"
                " ORDER BY user_id, completed_at NULLS LAST",
            )
            == before
        )
        pending = await pending_forgets(APP, memory_service=memory)
        assert [p.user_id for p in pending] == ["stuck"]
        closed = await _run(
            fresh_db,
            f"SELECT status FROM {FORGET_LOG} WHERE user_id = 'gone' ORDER BY forget_id",
        )
        assert [r.status for r in closed] == gone_statuses

        # forget works: a new run per user, an open run of the same user is superseded
        report = await forget_user(APP, "alice", session_service=sessions, memory_service=memory)
        assert report.status == "completed" and report.forget_id is not None
        retry = await forget_user(APP, "stuck", session_service=sessions, memory_service=memory)
        assert retry.status == "completed"
        assert await pending_forgets(APP, memory_service=memory) == []
        rows = await _run(
            fresh_db,
            f"SELECT forget_id, status, finished_by FROM {FORGET_LOG}"
            " WHERE user_id = 'stuck' ORDER BY forget_id",
        )
        assert [(r.status, r.finished_by) for r in rows] == [
            ("superseded", retry.forget_id),
            ("completed", None),
        ]
        assert rows[0].forget_id < rows[1].forget_id
        again = await forget_user(APP, "alice", session_service=sessions, memory_service=memory)
        assert again.forget_id > report.forget_id  # one row per run, never overwritten
    finally:
        await memory.close()
        await sessions.close()

    version = await _run(
        fresh_db,
        f"SELECT step, version FROM {VERSION_TABLE} WHERE component = :c",
        {"c": COMPONENT},
    )
    # the old number 1 was translated, then every step ran; ``version`` keeps the old
    # numbering (2) for older releases
    assert (version[0].step, version[0].version) == (len(STEPS), 2)
    # the same shape as a database created from scratch (the shared test database)
    shared = create_async_engine(db_url)
    try:
        await ensure_lifecycle_schema(shared)
    finally:
        await shared.dispose()
    assert await _shape(fresh_db) == await _shape(db_url)
