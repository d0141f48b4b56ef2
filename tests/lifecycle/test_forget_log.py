"""memory/forget_log.py, the forget log's only SQL owner, against the real Postgres."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from adk_memory_kit.memory import forget_log
from adk_memory_kit.memory.lifecycle_schema import ensure_lifecycle_schema

pytestmark = pytest.mark.slow  # Postgres-heavy


@pytest.fixture
async def engine(db_url):
    eng = create_async_engine(db_url)
    await ensure_lifecycle_schema(eng)
    yield eng
    await eng.dispose()


def new_app() -> str:
    return f"fl_{uuid.uuid4().hex[:8]}"


async def test_a_verified_run_closes_itself_and_supersedes_older_open_runs(engine):
    app = new_app()
    async with engine.begin() as conn:
        first, _ = await forget_log.open_run(conn, app_name=app, user_id="ann")
        second, _ = await forget_log.open_run(conn, app_name=app, user_id="ann")
        other, _ = await forget_log.open_run(conn, app_name=app, user_id="bob")
    async with engine.connect() as conn:
        assert await forget_log.is_forgetting(conn, app_name=app, user_id="ann")
        assert await forget_log.users_being_forgotten(conn, app) == {"ann", "bob"}
    async with engine.begin() as conn:
        done = await forget_log.close_run(
            conn, app_name=app, user_id="ann", forget_id=second, report={"verified": True}
        )
    async with engine.connect() as conn:
        rows = (
            await conn.execute(
                text(
                    f"SELECT forget_id, status, finished_by, completed_at, report"
                    f" FROM {forget_log.FORGET_LOG} WHERE app_name = :a ORDER BY forget_id"
                ),
                {"a": app},
            )
        ).all()
        assert [(r.forget_id, r.status, r.finished_by) for r in rows] == [
            (first, "superseded", second),
            (second, "completed", None),
            (other, "running", None),
        ]
        assert rows[0].completed_at == rows[1].completed_at == done
        assert rows[1].report["verified"] is True
        assert not await forget_log.is_forgetting(conn, app_name=app, user_id="ann")
        summary = await forget_log.user_summary(conn, app_name=app, user_id="ann")
        assert (summary.runs, summary.open_runs, summary.last_completed) == (2, 0, done)
        assert [p.user_id for p in await forget_log.pending(conn, app)] == ["bob"]


async def test_an_outcome_on_a_closed_run_keeps_its_status(engine):
    app = new_app()
    async with engine.begin() as conn:
        old, _ = await forget_log.open_run(conn, app_name=app, user_id="ann")
        new, _ = await forget_log.open_run(conn, app_name=app, user_id="ann")
        await forget_log.close_run(conn, app_name=app, user_id="ann", forget_id=new, report={})
    async with engine.begin() as conn:
        state = await forget_log.lock_run(conn, app_name=app, user_id="ann", forget_id=old)
        assert state.status == "superseded" and state.finished_by == new
        await forget_log.record_outcome(
            conn,
            app_name=app,
            user_id="ann",
            forget_id=old,
            status="unverified",
            report={"notes": ["left: 1 session(s)"]},
        )
        await forget_log.mark_failed(
            conn, app_name=app, user_id="ann", forget_id=old, report={"error": "X: y"}
        )
        again = await forget_log.lock_run(conn, app_name=app, user_id="ann", forget_id=old)
        assert again.status == "superseded"
        assert await forget_log.lock_run(conn, app_name=app, user_id="zed", forget_id=old) is None


async def test_failed_and_unverified_runs_stay_pending_with_their_report(engine):
    app = new_app()
    async with engine.begin() as conn:
        failed, _ = await forget_log.open_run(conn, app_name=app, user_id="ann")
        await forget_log.mark_failed(
            conn, app_name=app, user_id="ann", forget_id=failed, report={"error": "Boom: x"}
        )
        left, _ = await forget_log.open_run(conn, app_name=app, user_id="bob")
        await forget_log.record_outcome(
            conn, app_name=app, user_id="bob", forget_id=left, status="unverified", report={}
        )
    async with engine.connect() as conn:
        pending = await forget_log.pending(conn, app)
    assert [(p.user_id, p.status, p.open_runs) for p in pending] == [
        ("ann", "failed", 1),
        ("bob", "unverified", 1),
    ]
    assert pending[0].report == {"error": "Boom: x"}


def test_the_not_forgetting_fragment_takes_the_callers_expressions():
    sql = forget_log.not_forgetting_sql(":app", "w.user_id")
    assert sql.startswith("NOT EXISTS") and "f.user_id = w.user_id" in sql
    assert "f.app_name = :app" in sql and "completed_at IS NULL" in sql


async def test_watermarks_are_a_kit_home_and_the_forget_log_is_not(engine):
    """Watermarks are found and emptied by forget; the forget log is the audit of forgets,
    so it must not be a home (forget would erase its own record)."""
    async with engine.connect() as conn:
        marks = await conn.execute(
            text(
                "SELECT obj_description(CAST(t AS regclass)) FROM unnest(ARRAY["
                "'adk_memory_kit_ingest_watermarks', 'adk_memory_kit_forget_log']) AS t"
            )
        )
        assert [m[0] for m in marks] == ["adk_memory_kit home: idle_watermarks", None]
