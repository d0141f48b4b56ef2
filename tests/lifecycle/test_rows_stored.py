"""The counts the closer reports are the memory rows stored, under the default write policy."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest
from google.adk.events.event import Event
from google.genai import types

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.session_policy import WritePolicy
from adk_memory_kit.lifecycle import SessionCloser
from adk_memory_kit.memory import SessionWrite

pytestmark = pytest.mark.slow  # Postgres-heavy: `pytest -m 'not slow'` skips it

TEXTS = [
    "My locker code is Q-7731 and I park on level 3.",
    "Noted.",
    "ok",
    "Thanks!",
    "My colleague Anita joins us on Fridays for the budget review.",
    "Sure.",
]


@pytest.fixture
async def routed(db_url, embedder):
    service = PgVectorMemoryService(db_url, embedder=embedder)  # default: the routed policy
    assert service.config.write_policy is WritePolicy.ROUTED
    yield service
    await service.close()


async def session_with(sessions, texts: list[str]):
    app = f"rows_{uuid.uuid4().hex[:8]}"
    session = await sessions.create_session(app_name=app, user_id="u1")
    start = datetime.now(timezone.utc) - timedelta(hours=1)
    for i, text in enumerate(texts):
        role = "user" if i % 2 == 0 else "model"
        await sessions.append_event(
            session,
            Event(
                author="user" if role == "user" else "assistant",
                invocation_id=f"inv-{i}",
                content=types.Content(role=role, parts=[types.Part(text=text)]),
                timestamp=(start + timedelta(seconds=i)).timestamp(),
            ),
        )
    return app, session


async def stored(memory, app: str) -> int:
    return sum((await memory.count_memories(app_name=app, user_id="u1")).values())


async def test_closer_reports_rows_stored_not_events(sessions, routed):
    app, session = await session_with(sessions, TEXTS)
    result = await SessionCloser(sessions, routed).close(app, "u1", session.id)
    assert result.ok and result.events == len(TEXTS)
    # the routed policy keeps the contentful sentences only: fewer rows than events
    assert 0 < result.rows_stored < result.events
    assert result.rows_stored == await stored(routed, app)


async def test_session_write_reports_older_snapshots_and_empty_sessions(sessions, routed):
    app, session = await session_with(sessions, TEXTS)
    newer = await sessions.get_session(app_name=app, user_id="u1", session_id=session.id)
    first = await routed.add_session_to_memory(newer)
    assert isinstance(first, SessionWrite) and first.status == "written"
    assert first.rows_stored == first.rows_written == await stored(routed, app)
    again = await routed.add_session_to_memory(newer)
    assert (again.rows_stored, again.rows_written) == (first.rows_stored, 0)  # an upsert

    older = newer.model_copy(update={"events": newer.events[:1]})
    skipped = await routed.add_session_to_memory(older)
    assert skipped.status == "older_snapshot"
    assert skipped.rows_stored == first.rows_stored == await stored(routed, app)

    _, empty = await session_with(sessions, [])
    nothing = await routed.add_session_to_memory(empty)
    assert (nothing.status, nothing.rows_stored) == ("empty", 0)
