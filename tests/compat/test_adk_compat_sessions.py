"""Pins what the idle job relies on in ADK's ``sessions`` table (``_adk_compat``'s
idle-job section), against the real ``DatabaseSessionService`` on the embedded Postgres.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest
from google.adk.events.event import Event
from google.adk.sessions import DatabaseSessionService
from google.genai import types
from sqlalchemy import text

from adk_memory_kit import _adk_compat as compat
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.memory.lifecycle_schema import to_datetime

pytestmark = pytest.mark.slow  # Postgres-heavy

WHEN = datetime(2026, 3, 4, 5, 6, 7, 891234, tzinfo=timezone.utc)


async def _session_with_event(service: DatabaseSessionService, app: str, user: str):
    session = await service.create_session(app_name=app, user_id=user)
    await service.append_event(
        session,
        Event(
            author="user",
            invocation_id="inv-1",
            content=types.Content(role="user", parts=[types.Part(text="hello")]),
            timestamp=WHEN.timestamp(),
        ),
    )
    return await service.get_session(app_name=app, user_id=user, session_id=session.id)


async def _listed(service: DatabaseSessionService, app: str, cutoff: datetime) -> list:
    select, params = compat.idle_sessions_source(cutoff)
    async with operator_connect(service.db_engine) as conn:
        result = await conn.execute(text(select), {**params, "app": app})
        return list(result)


@pytest.fixture
async def service(db_url):
    svc = DatabaseSessionService(db_url=db_url)
    yield svc
    await svc.close()


async def test_the_sessions_table_lists_idle_sessions_with_adks_update_time(service):
    """``sessions`` has (app_name, user_id, id, update_time); the listed update time is the
    session's ``last_update_time`` to the microsecond, as an aware UTC time."""
    app = f"compat_{uuid.uuid4().hex[:8]}"
    session = await _session_with_event(service, app, "u1")
    await _session_with_event(service, f"{app}_other", "u1")  # another app: never listed

    rows = await _listed(service, app, WHEN + timedelta(seconds=1))

    assert [(r.user_id, r.session_id) for r in rows] == [("u1", session.id)]
    assert rows[0].update_time == to_datetime(session.last_update_time)
    assert rows[0].update_time.utcoffset() == timedelta(0)


async def test_a_session_updated_after_the_cutoff_is_not_listed(service):
    """The cutoff compares with ADK's naive-UTC ``update_time`` (inclusive)."""
    app = f"compat_{uuid.uuid4().hex[:8]}"
    session = await _session_with_event(service, app, "u1")
    updated = to_datetime(session.last_update_time)

    assert await _listed(service, app, updated - timedelta(microseconds=1)) == []
    assert len(await _listed(service, app, updated)) == 1
