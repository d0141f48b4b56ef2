"""Errors of the closer and the idle job: classified, one line each, no user text."""

from __future__ import annotations

import logging
import secrets
import time
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from google.adk.events.event import Event
from google.genai import types
from sqlalchemy.exc import OperationalError

from adk_memory_kit.errors import DatabaseUnavailableError, InvalidInputError
from adk_memory_kit.lifecycle.closer import SessionCloser
from adk_memory_kit.lifecycle.idle_job import IdleIngestJob
from adk_memory_kit.lifecycle.watermarks import WatermarkStore

pytestmark = pytest.mark.slow

SECRET = "qxsecret-" + uuid.uuid4().hex[:8]


def _event(text: str, event_id: str | None = None) -> Event:
    kw = {"id": event_id} if event_id else {}
    return Event(
        author="user",
        invocation_id="inv",
        timestamp=time.time() - 7200,
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        **kw,
    )


async def _session(sessions, app: str, user: str, text: str, event_id: str | None = None):
    s = await sessions.create_session(app_name=app, user_id=user)
    await sessions.append_event(s, _event(text, event_id))
    return s


async def test_a_value_too_large_for_an_index_is_a_permanent_error_never_retried(memory, caplog):
    from google.adk.sessions.in_memory_session_service import InMemorySessionService

    store = InMemorySessionService()  # ADK's SQL stores refuse such an event id themselves
    app = f"err_{uuid.uuid4().hex[:8]}"
    s = await _session(store, app, "u", f"note {SECRET}", event_id="e" * 3000)
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    closer = SessionCloser(store, memory, attempts=3, sleep=sleep)
    with pytest.raises(InvalidInputError) as raised:
        await closer.close(app, "u", s.id)
    assert waits == []  # permanent: one attempt
    assert not raised.value.transient and "limit is 256" in str(raised.value)
    assert SECRET not in str(raised.value) and SECRET not in caplog.text

    # a value only the database refuses (a subject too large for its index): the same
    from google.adk.memory.memory_entry import MemoryEntry

    subject = secrets.token_urlsafe(4000)  # incompressible: the index row cannot hold it
    fact = MemoryEntry(content=types.Content(parts=[types.Part(text=f"fact {SECRET}")]))
    with pytest.raises(InvalidInputError) as raised:
        await memory.add_memory(
            app_name=app, user_id="u", memories=[fact], custom_metadata={"subject": subject}
        )
    assert "SQLSTATE 54000" in str(raised.value) and not raised.value.transient
    assert SECRET not in str(raised.value) and subject[:20] not in str(raised.value)
    # the store is still usable
    ok = await _session(store, app, "u", "a normal note")
    assert (await closer.close(app, "u", ok.id)).ok


async def test_failed_sessions_log_one_line_each_and_store_no_user_text(sessions, memory, caplog):
    caplog.set_level(logging.INFO, logger="adk_memory_kit")
    app = f"err_{uuid.uuid4().hex[:8]}"
    for user in ("a", "b", "c"):
        await _session(sessions, app, user, f"{user} says {SECRET}")

    async def hook(session) -> None:
        raise RuntimeError(f"cannot parse {session.events[0].content.parts[0].text}")

    later = lambda: datetime.now(timezone.utc) + timedelta(hours=1)  # noqa: E731
    job = IdleIngestJob(
        sessions, memory, app_name=app, idle_after=timedelta(0), after_ingest=hook, clock=later
    )
    report = await job.run_once()
    assert len(report.failed) == 3
    lines = [r for r in caplog.records if r.name.startswith("adk_memory_kit.lifecycle")]
    assert len(lines) == 4  # one per failed session, one summary
    assert all(r.exc_info is None for r in lines)
    assert SECRET not in caplog.text
    for key, error in report.failed:
        assert SECRET not in error
        state = await job.state(key.user_id, key.session_id)
        assert state.failures == 1 and state.last_error.startswith("RuntimeError")
        assert SECRET not in state.last_error


async def test_leases_kept_by_a_failed_release_are_released_by_the_next_pass(
    sessions, memory, monkeypatch
):
    app = f"err_{uuid.uuid4().hex[:8]}"
    later = lambda: datetime.now(timezone.utc) + timedelta(hours=1)  # noqa: E731
    job = IdleIngestJob(
        sessions, memory, app_name=app, idle_after=timedelta(0), batch_size=5, clock=later
    )
    s = await _session(sessions, app, "u", "hello")
    down = OperationalError("UPDATE ...", {}, ConnectionError("server went away"))
    real_release = WatermarkStore.release_leases
    real_ingest = job._ingest_one

    async def failing_release(self, app_name: str, worker: str) -> None:
        raise down

    async def failing_ingest(*args, **kwargs):
        raise down

    monkeypatch.setattr(WatermarkStore, "release_leases", failing_release)
    monkeypatch.setattr(job, "_ingest_one", failing_ingest)
    with pytest.raises(DatabaseUnavailableError):
        await job.run_once()  # the database "fails" with the session leased
    assert (await job.state("u", s.id)).claimed_by == job.worker_id

    monkeypatch.setattr(WatermarkStore, "release_leases", real_release)
    monkeypatch.setattr(job, "_ingest_one", real_ingest)
    other = IdleIngestJob(sessions, memory, app_name=app, idle_after=timedelta(0), clock=later)
    assert (await other.run_once()).considered == 0  # still leased to the first worker
    assert [k.session_id for k in (await job.run_once()).ingested] == [s.id]
    state = await job.state("u", s.id)
    assert state.claimed_by is None and state.session_update_time is not None
