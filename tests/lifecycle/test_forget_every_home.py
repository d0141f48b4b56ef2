"""Forget means forgotten: every home the kit writes is emptied, found from the database.

Seeds every home for two users (sessions and ``user:`` state through ADK's
``DatabaseSessionService``; memory items and snapshots through an idle pass and
``add_memory``; watermarks through the idle pass; the review queue; and an extra table made
here with the kit-home comment, standing in for later homes such as the episodic log), then
forgets one user exactly as ``samples/forget_user.py`` does (no homes passed) and scans every
column of every table of the database for the user's id and words: only the forget log's
``user_id`` may still name the user; the other user's rows are all still there.
"""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from google.adk.events.event import Event
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.genai import types
from sqlalchemy import text

from adk_memory_kit.db.rls import operator_begin, operator_connect
from adk_memory_kit.lifecycle.forget import data_map, forget_user
from adk_memory_kit.lifecycle.idle_job import IdleIngestJob
from adk_memory_kit.memory.forget_log import FORGET_LOG
from adk_memory_kit.routing.review_queue import ReviewQueue

pytestmark = pytest.mark.slow

_SCANNED_TYPES = ("text", "character varying", "character", "json", "jsonb", "tsvector", "ARRAY")


async def _hits(engine, needle: str) -> dict[str, int]:
    """``{"table.column": rows}`` for every column of every user table holding ``needle``."""
    async with operator_connect(engine) as conn:
        columns = (
            await conn.execute(
                text(
                    "SELECT c.table_schema, c.table_name, c.column_name, c.data_type"
                    " FROM information_schema.columns c"
                    " JOIN information_schema.tables t ON t.table_schema = c.table_schema"
                    " AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'"
                    " WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema')"
                )
            )
        ).all()
        found: dict[str, int] = {}
        for schema, table, column, kind in columns:
            where = f'"{schema}"."{table}"'
            if kind in _SCANNED_TYPES:
                cond = f'position(:n in CAST("{column}" AS text)) > 0'
            elif kind == "bytea":
                cond = f"position(convert_to(:n, 'UTF8') in \"{column}\") > 0"
            else:
                continue
            n = await conn.scalar(text(f"SELECT count(*) FROM {where} WHERE {cond}"), {"n": needle})
            if n:
                found[f"{table}.{column}"] = n
        return found


def _event(sentence: str, t: float) -> Event:
    return Event(
        author="user",
        invocation_id="inv",
        timestamp=t,
        content=types.Content(role="user", parts=[types.Part(text=sentence)]),
    )


async def _seed(sessions, memory, queue, engine, app: str, user: str, word: str, extra: str):
    for i in range(2):
        session = await sessions.create_session(
            app_name=app, user_id=user, state={f"user:pet_{word}": f"{word} the cat"}
        )
        await sessions.append_event(
            session, _event(f"{user} says the {word} plan is set, part {i}", time.time() - 7200)
        )
    later = lambda: datetime.now(timezone.utc) + timedelta(hours=1)  # noqa: E731
    job = IdleIngestJob(sessions, memory, app_name=app, idle_after=timedelta(0), clock=later)
    assert len((await job.run_once()).ingested) == 2  # memory items, snapshots, watermarks
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[MemoryEntry(content=types.Content(parts=[types.Part(text=f"{word} fact")]))],
    )
    await queue.submit(app_name=app, user_id=user, text=f"always call me {word}")
    async with operator_begin(engine) as conn:
        await conn.execute(
            text(f"INSERT INTO {extra} (app_name, user_id, entry) VALUES (:a, :u, :e)"),
            {"a": app, "u": user, "e": f"{word} episode"},
        )


async def test_forget_empties_every_home_of_the_database(db_url, memory):
    app = f"every_{uuid.uuid4().hex[:8]}"
    ann, ann_word = f"ann-{uuid.uuid4().hex[:10]}", f"qx{uuid.uuid4().hex[:10]}"
    bob, bob_word = f"bob-{uuid.uuid4().hex[:10]}", f"qx{uuid.uuid4().hex[:10]}"
    extra = f"test_extra_home_{uuid.uuid4().hex[:8]}"
    engine = memory.engine
    async with operator_begin(engine) as conn:
        await conn.execute(
            text(
                f"CREATE TABLE {extra} (app_name text NOT NULL, user_id text NOT NULL, entry text)"
            )
        )
        await conn.execute(text(f"COMMENT ON TABLE {extra} IS 'adk_memory_kit home: {extra}'"))
    sessions = DatabaseSessionService(db_url=db_url, hide_parameters=True)
    queue = ReviewQueue(engine=engine)
    try:
        for user, word in ((ann, ann_word), (bob, bob_word)):
            await _seed(sessions, memory, queue, engine, app, user, word, extra)
        before = await data_map(app, ann, session_service=sessions, memory_service=memory)
        counts = {loc.kind: loc.count for loc in before.locations}
        for home in (
            "sessions",
            "user_state",
            "memory_items",
            "session_snapshots",
            "idle_watermarks",
            "review_queue",
            extra,
        ):
            assert counts.get(home), f"{home} not seeded or not listed: {counts}"
        assert any("artifacts" in n for n in before.not_covered)
        assert any("app: state" in n for n in before.not_covered)
        ann_before = await _hits(engine, ann_word)
        bob_before = await _hits(engine, bob_word)
        assert f"{extra}.entry" in ann_before and "adk_memory_kit_review_queue.text" in ann_before

        # exactly as samples/forget_user.py calls it: no homes passed
        report = await forget_user(app, ann, session_service=sessions, memory_service=memory)

        assert report.verified and report.status == "completed"
        assert report.homes_deleted[extra] == 1 and report.homes_deleted["review_queue"] == 1
        assert report.homes_deleted["session_snapshots"] == 2
        assert await _hits(engine, ann_word) == {}, "the user's words are still stored"
        left = await _hits(engine, ann)
        assert left == {f"{FORGET_LOG}.user_id": 1}, f"the user id is still stored: {left}"
        assert await _hits(engine, bob_word) == bob_before  # the other user is untouched
        after = await data_map(app, ann, session_service=sessions, memory_service=memory)
        assert not after.holds_user_data
        async with operator_connect(engine) as conn:
            audit = (
                await conn.execute(
                    text(f"SELECT report FROM {FORGET_LOG} WHERE app_name = :a AND user_id = :u"),
                    {"a": app, "u": ann},
                )
            ).scalar_one()
        assert ann_word not in str(audit)  # no user: key names, no text
        assert all(sid not in str(audit) for sid in report.sessions_deleted)  # no session ids
    finally:
        async with operator_begin(engine) as conn:
            await conn.execute(text(f"DROP TABLE IF EXISTS {extra}"))
        await sessions.close()
