"""SessionCloser and IdleIngestJob on the embedded Postgres with ADK's DatabaseSessionService."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from datetime import datetime, timedelta, timezone

import pytest
from google.adk.events.event import Event
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.adk.sessions.in_memory_session_service import InMemorySessionService
from google.adk.sessions.session import Session
from google.genai import types
from sqlalchemy import text as sql

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.db.rls import operator_begin
from adk_memory_kit.errors import DatabaseUnavailableError, InvalidInputError
from adk_memory_kit.lifecycle import (
    IdleIngestJob,
    SessionCloser,
    SessionCloserConfig,
    SessionKey,
    WatermarkStore,
    is_transient,
)
from adk_memory_kit.memory import SessionWrite
from adk_memory_kit.memory.lifecycle_schema import WATERMARKS, to_datetime

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it

NOW = datetime.now(timezone.utc)
HOUR = timedelta(hours=1)


def new_app() -> str:
    return f"lc_{uuid.uuid4().hex[:10]}"


class CountingMemory(PgVectorMemoryService):
    """Counts add_session_to_memory calls per session; can fail on purpose."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.calls: Counter[str] = Counter()
        self.fail_before: int = 0  # raise this many times before writing
        self.fail_after: int = 0  # raise this many times after a committed write
        self.error: type[Exception] = ConnectionError

    async def add_session_to_memory(self, session: Session) -> SessionWrite:
        self.calls[session.id] += 1
        await asyncio.sleep(0)  # let a concurrent worker interleave
        if self.fail_before:
            self.fail_before -= 1
            raise self.error("injected failure before the write")
        written = await super().add_session_to_memory(session)
        if self.fail_after:
            self.fail_after -= 1
            raise self.error("injected failure after the write (lost acknowledgement)")
        return written


@pytest.fixture(scope="module")
async def sessions(db_url):
    service = DatabaseSessionService(db_url=db_url)
    yield service
    await service.close()


@pytest.fixture
async def memory(db_url, embedder):
    # whole transcripts: these tests count what each path wrote, event by event
    service = CountingMemory.from_url(db_url, embedder=embedder, write_policy="full_transcript")
    yield service
    await service.close()


async def add_events(sessions, session: Session, texts: list[str], at: datetime) -> Session:
    """Append text events stamped ``at`` (+1 s each); returns the reloaded session."""
    fresh = await sessions.get_session(
        app_name=session.app_name, user_id=session.user_id, session_id=session.id
    )
    for i, text in enumerate(texts):
        role = "user" if i % 2 == 0 else "model"
        await sessions.append_event(
            fresh,
            Event(
                author="user" if role == "user" else "assistant",
                invocation_id=f"inv-{uuid.uuid4().hex[:8]}",
                content=types.Content(role=role, parts=[types.Part(text=text)]),
                timestamp=(at + timedelta(seconds=i)).timestamp(),
            ),
        )
    return fresh


async def make_session(sessions, app, user, texts, at) -> Session:
    session = await sessions.create_session(app_name=app, user_id=user)
    return await add_events(sessions, session, texts, at)


async def memory_count(memory, app, user) -> int:
    return sum((await memory.count_memories(app_name=app, user_id=user)).values())


def no_sleep_recorder(delays: list[float]):
    async def _sleep(seconds: float) -> None:
        delays.append(seconds)

    return _sleep


# --------------------------------------------------------------------------- closer
async def test_closer_retries_after_transient_failure_and_leaves_one_copy(sessions, memory):
    app = new_app()
    texts = ["My shelf label is Q-7731", "Noted, Q-7731.", "Thanks!"]
    s = await make_session(sessions, app, "u1", texts, NOW - HOUR)
    memory.fail_after = 1  # the first write commits, then the caller sees an error
    delays: list[float] = []
    closer = SessionCloser(sessions, memory, backoff=0.25, sleep=no_sleep_recorder(delays))

    result = await closer.close(app, "u1", s.id)

    assert result.ok and result.attempts == 2 and result.events == 3 and result.rows_stored == 3
    assert memory.calls[s.id] == 2 and delays == [0.25]
    assert await memory_count(memory, app, "u1") == 3
    hits = await memory.search_memory(app_name=app, user_id="u1", query="shelf label Q-7731")
    texts_found = [m.content.parts[0].text for m in hits.memories]
    assert texts_found.count("My shelf label is Q-7731") == 1


async def test_closer_ingests_the_latest_events(sessions, memory):
    app = new_app()
    s = await make_session(sessions, app, "u1", ["first"], NOW - HOUR)
    await add_events(sessions, s, ["second, added after the caller loaded the session"], NOW)
    await SessionCloser(sessions, memory).close(app, "u1", s.id)
    assert await memory_count(memory, app, "u1") == 2


async def test_closer_reports_a_missing_session(sessions, memory):
    result = await SessionCloser(sessions, memory).close(new_app(), "u1", "no-such-session")
    assert result.status == "missing" and not result.ok
    assert sum(memory.calls.values()) == 0


async def test_closer_gives_up_after_its_attempts(sessions, memory):
    app = new_app()
    s = await make_session(sessions, app, "u1", ["hello"], NOW - HOUR)
    memory.fail_before = 10
    delays: list[float] = []
    closer = SessionCloser(sessions, memory, attempts=3, sleep=no_sleep_recorder(delays))
    with pytest.raises(DatabaseUnavailableError) as raised:  # a kit error, cause chained
        await closer.close(app, "u1", s.id)
    assert isinstance(raised.value.__cause__, ConnectionError) and raised.value.transient
    assert memory.calls[s.id] == 3 and delays == [0.5, 1.0]


async def test_closer_does_not_retry_a_permanent_error(sessions, memory):
    app = new_app()
    s = await make_session(sessions, app, "u1", ["hello"], NOW - HOUR)
    memory.fail_before, memory.error = 1, InvalidInputError
    with pytest.raises(InvalidInputError):
        await SessionCloser(sessions, memory, sleep=no_sleep_recorder([])).close(app, "u1", s.id)
    assert memory.calls[s.id] == 1


def test_is_transient_classification():
    from sqlalchemy.exc import OperationalError

    assert is_transient(ConnectionResetError())
    assert is_transient(OperationalError("SELECT 1", {}, Exception("server closed")))
    assert not is_transient(ValueError("bad input"))
    assert not is_transient(InvalidInputError("bad id"))


def test_closer_needs_a_memory_service():
    with pytest.raises(InvalidInputError, match="memory service"):
        SessionCloser(InMemorySessionService(), None)


def test_closer_options_are_one_config_model():
    from google.adk.memory.in_memory_memory_service import InMemoryMemoryService

    sessions, memory = InMemorySessionService(), InMemoryMemoryService()
    config = SessionCloserConfig(attempts=5, backoff=0)
    closer = SessionCloser(sessions, memory, config=config)
    assert closer.config is config and (closer.attempts, closer.backoff) == (5, 0)
    assert SessionCloser(sessions, memory, attempts=5, backoff=0).config == config
    assert SessionCloser(sessions, memory).config == SessionCloserConfig(attempts=3, backoff=0.5)
    for bad, field in [
        ({"attempts": 0}, "attempts"),
        ({"attempts": True}, "attempts"),
        ({"attempts": float("nan")}, "attempts"),
        ({"backoff": float("inf")}, "backoff"),
        ({"backoff": -1}, "backoff"),
        ({"backof": 1}, "backof"),
    ]:
        with pytest.raises(InvalidInputError, match=rf"SessionCloserConfig\.{field}\b"):
            SessionCloser(sessions, memory, **bad)
    with pytest.raises(InvalidInputError, match="not both"):
        SessionCloser(sessions, memory, config=config, attempts=2)
    with pytest.raises(InvalidInputError, match="config must be a SessionCloserConfig"):
        SessionCloser(sessions, memory, config={"attempts": 2})


# --------------------------------------------------------------------------- idle job
@pytest.mark.parametrize("sql_listing", [None, False], ids=["sql-listing", "public-api"])
async def test_idle_job_ingests_only_idle_and_changed_sessions(sessions, memory, sql_listing):
    app = new_app()
    idle_u1 = await make_session(sessions, app, "u1", ["idle one", "ok"], NOW - 2 * HOUR)
    idle_u2 = await make_session(sessions, app, "u2", ["idle two"], NOW - 3 * HOUR)
    active = await make_session(sessions, app, "u1", ["still talking"], NOW)
    clock = [NOW + timedelta(minutes=1)]
    job = IdleIngestJob(
        sessions, memory, app_name=app, use_sql_listing=sql_listing, clock=lambda: clock[0]
    )

    first = await job.run_once()
    assert job.uses_sql_listing is (sql_listing is None)
    assert first.ingested == [SessionKey(app, "u2", idle_u2.id), SessionKey(app, "u1", idle_u1.id)]
    assert not first.failed
    assert await memory_count(memory, app, "u1") == 2 and await memory_count(memory, app, "u2") == 1
    assert await job.watermark("u1", idle_u1.id) == to_datetime(idle_u1.last_update_time)
    assert await job.watermark("u1", active.id) is None

    second = await job.run_once()
    assert second.ingested == [] and not second.failed

    # a change to an idle session (still idle) and to the active one
    await add_events(sessions, idle_u1, ["one more thing"], NOW - 90 * timedelta(minutes=1))
    await add_events(sessions, active, ["and another"], NOW)
    third = await job.run_once()
    assert third.ingested == [SessionKey(app, "u1", idle_u1.id)]
    assert await memory_count(memory, app, "u1") == 3

    clock[0] = NOW + HOUR  # the active session is now idle too
    fourth = await job.run_once()
    assert fourth.ingested == [SessionKey(app, "u1", active.id)]
    assert (await job.run_once()).ingested == []
    assert memory.calls == Counter({idle_u1.id: 2, idle_u2.id: 1, active.id: 1})


async def test_idle_job_with_a_non_database_session_service(memory):
    app = new_app()
    store = InMemorySessionService()
    s = await store.create_session(app_name=app, user_id="u1")
    await store.append_event(
        s,
        Event(
            author="user",
            content=types.Content(role="user", parts=[types.Part(text="remember the blue door")]),
        ),
    )
    clock = [datetime.now(timezone.utc) + HOUR]
    job = IdleIngestJob(store, memory, app_name=app, clock=lambda: clock[0])
    assert [k.session_id for k in (await job.run_once()).ingested] == [s.id]
    assert job.uses_sql_listing is False
    assert (await job.run_once()).ingested == []
    assert await memory_count(memory, app, "u1") == 1


async def test_watermark_not_advanced_when_the_memory_write_fails(sessions, memory):
    app = new_app()
    s = await make_session(sessions, app, "u1", ["deliver to gate 4"], NOW - HOUR)
    job = IdleIngestJob(sessions, memory, app_name=app)
    memory.fail_before = 1

    failed = await job.run_once()
    assert failed.ingested == [] and [k for k, _ in failed.failed] == [SessionKey(app, "u1", s.id)]
    assert "injected failure" in failed.failed[0][1]
    assert await job.watermark("u1", s.id) is None
    assert await memory_count(memory, app, "u1") == 0

    retried = await job.run_once()
    assert retried.ingested == [SessionKey(app, "u1", s.id)]
    assert await job.watermark("u1", s.id) is not None
    assert await memory_count(memory, app, "u1") == 1


async def test_after_ingest_hook_runs_before_the_watermark_advances(sessions, memory):
    app = new_app()
    s = await make_session(sessions, app, "u1", ["a", "b", "c"], NOW - HOUR)
    seen: list[int] = []
    fail = [True]

    async def extractor(session: Session) -> None:
        seen.append(len(session.events))
        assert await memory_count(memory, app, "u1") == 3  # memory already written
        if fail[0]:
            fail[0] = False
            raise RuntimeError("extractor crashed")

    job = IdleIngestJob(sessions, memory, app_name=app, after_ingest=extractor)
    first = await job.run_once()
    assert first.ingested == [] and len(first.failed) == 1
    assert await job.watermark("u1", s.id) is None
    second = await job.run_once()
    assert second.ingested == [SessionKey(app, "u1", s.id)]
    assert seen == [3, 3]
    assert (await job.run_once()).ingested == [] and seen == [3, 3]


async def test_two_concurrent_jobs_ingest_each_session_exactly_once(sessions, memory, db_url):
    app = new_app()
    made = [
        await make_session(sessions, app, f"u{i % 3}", [f"fact number {i}"], NOW - HOUR)
        for i in range(8)
    ]
    # separate engines: two workers as two processes would have
    a = IdleIngestJob(sessions, memory, app_name=app, db_url=db_url)
    b = IdleIngestJob(sessions, memory, app_name=app, db_url=db_url, use_sql_listing=False)
    try:
        ra, rb = await asyncio.gather(a.run_once(), b.run_once())
        assert not ra.failed and not rb.failed
        assert sorted(ra.ingested + rb.ingested) == sorted(
            SessionKey(app, s.user_id, s.id) for s in made
        )
        assert memory.calls == Counter({s.id: 1 for s in made})
        again = await asyncio.gather(a.run_once(), b.run_once())
        assert [r.ingested for r in again] == [[], []]
        assert memory.calls == Counter({s.id: 1 for s in made})
    finally:
        await a.close()
        await b.close()


async def test_a_claimed_session_is_skipped_by_another_worker(sessions, memory, db_url):
    app = new_app()
    s = await make_session(sessions, app, "u1", ["slow one"], NOW - HOUR)
    entered, release = asyncio.Event(), asyncio.Event()

    async def slow_hook(session: Session) -> None:
        entered.set()
        await release.wait()

    a = IdleIngestJob(sessions, memory, app_name=app, db_url=db_url, after_ingest=slow_hook)
    b = IdleIngestJob(sessions, memory, app_name=app, db_url=db_url)
    try:
        task = asyncio.create_task(a.run_once())
        await asyncio.wait_for(entered.wait(), 60)
        rb = await b.run_once()  # A holds the claim, its watermark not yet advanced
        # B's candidate selection skips the row A holds (SKIP LOCKED), so B does not even
        # consider it; a direct claim of it finds it busy.
        assert rb.considered == 0 and rb.ingested == [] and rb.skipped == {}
        async with WatermarkStore(b._engine).claim(SessionKey(app, "u1", s.id)) as claim:
            assert claim is None
        release.set()
        ra = await task
        assert ra.ingested == [SessionKey(app, "u1", s.id)]
        assert memory.calls[s.id] == 1
        assert (await b.run_once()).considered == 0
    finally:
        release.set()
        await a.close()
        await b.close()


async def test_run_forever_loops_until_stopped(sessions, memory):
    app = new_app()
    await make_session(sessions, app, "u1", ["x"], NOW - HOUR)
    job = IdleIngestJob(sessions, memory, app_name=app)
    reports = []
    stop = asyncio.Event()

    def on_report(report) -> None:
        reports.append(report)
        if len(reports) == 2:
            stop.set()

    await asyncio.wait_for(job.run_forever(0, stop=stop, on_report=on_report), 120)
    assert [len(r.ingested) for r in reports] == [1, 0]


def test_idle_job_validates_its_arguments(memory):
    with pytest.raises(InvalidInputError):
        IdleIngestJob(InMemorySessionService(), memory, app_name="")
    with pytest.raises(InvalidInputError):
        IdleIngestJob(InMemorySessionService(), memory, app_name="a", idle_after=-HOUR)


# ------------------------------------------------------------ failures, batches, skew
async def test_a_failing_session_backs_off_and_does_not_starve_the_others(sessions, memory):
    app = new_app()
    bad = await make_session(sessions, app, "u1", ["the hook chokes on this"], NOW - 3 * HOUR)
    good = await make_session(sessions, app, "u2", ["a fine session"], NOW - 2 * HOUR)
    broken = [True]

    async def hook(session: Session) -> None:
        if broken[0] and session.id == bad.id:
            raise RuntimeError("extractor cannot parse this session")

    clock = [NOW + timedelta(minutes=1)]
    job = IdleIngestJob(
        sessions, memory, app_name=app, after_ingest=hook, batch_size=1, clock=lambda: clock[0]
    )
    bad_key, good_key = SessionKey(app, "u1", bad.id), SessionKey(app, "u2", good.id)

    first = await job.run_once()  # the oldest change first: the bad session
    assert [k for k, _ in first.failed] == [bad_key] and first.ingested == []
    state = await job.state("u1", bad.id)
    assert state.failures == 1 and state.last_attempt_at == clock[0]
    assert state.last_error.startswith("RuntimeError")  # its message may quote user text
    assert "cannot parse" not in state.last_error
    assert state.session_update_time is None  # the watermark did not move

    # the session never attempted goes first, although the failed one changed earlier
    second = await job.run_once()
    assert second.ingested == [good_key] and not second.failed

    third = await job.run_once()  # one retry right away, then exponential backoff
    assert [k for k, _ in third.failed] == [bad_key]
    state = await job.state("u1", bad.id)
    assert state.failures == 2 and state.retry_after == clock[0] + timedelta(minutes=1)
    assert (await job.run_once()).considered == 0  # backing off

    clock[0] += timedelta(minutes=1)
    assert [k for k, _ in (await job.run_once()).failed] == [bad_key]
    state = await job.state("u1", bad.id)
    assert state.failures == 3 and state.retry_after == clock[0] + timedelta(minutes=2)
    assert job.retry_delay(20) == timedelta(hours=1)  # capped

    broken[0] = False
    clock[0] += timedelta(minutes=1)
    assert (await job.run_once()).considered == 0  # still backing off
    clock[0] += timedelta(minutes=1)
    assert (await job.run_once()).ingested == [bad_key]
    state = await job.state("u1", bad.id)
    assert state.failures == 0 and state.last_error is None and state.retry_after is None
    assert state.session_update_time == to_datetime(bad.last_update_time)
    assert state.claimed_by is None  # the batch lease was released
    assert (await job.run_once()).considered == 0
    assert memory.calls == Counter({bad.id: 4, good.id: 1})


@pytest.mark.parametrize("sql_listing", [None, False], ids=["sql-listing", "public-api"])
async def test_new_sessions_do_not_starve_a_session_that_changed_again(
    sessions, memory, sql_listing
):
    """Oldest change first: being ingested before does not send a session to the back."""
    app = new_app()
    regular = await make_session(
        sessions, app, "u0", ["my usual hotel is the Ritz"], NOW - 9 * HOUR
    )
    job = IdleIngestJob(sessions, memory, app_name=app, batch_size=1, use_sql_listing=sql_listing)
    regular_key = SessionKey(app, "u0", regular.id)
    assert (await job.run_once()).ingested == [regular_key]
    await add_events(sessions, regular, ["now I prefer the Hilton"], NOW - 8 * HOUR)

    # a steady flow of sessions never ingested, each changed after the regular one
    picked = []
    for i in range(3):
        await make_session(sessions, app, f"n{i}", [f"new user {i}"], NOW - (7 - i) * HOUR)
        picked += (await job.run_once()).ingested
    assert picked[0] == regular_key
    assert memory.calls[regular.id] == 2
    assert (await job.state("u0", regular.id)).session_update_time == to_datetime(
        (
            await sessions.get_session(app_name=app, user_id="u0", session_id=regular.id)
        ).last_update_time
    )
    # the new ones follow, oldest change first, and nothing is left behind
    assert [k.user_id for k in picked[1:]] == ["n0", "n1"]
    assert [k.user_id for k in (await job.run_once()).ingested] == ["n2"]
    assert (await job.run_once()).considered == 0


async def test_workers_with_a_batch_size_take_disjoint_batches(sessions, memory, db_url):
    app = new_app()
    made = [
        await make_session(sessions, app, f"u{i}", [f"batch fact {i}"], NOW - HOUR)
        for i in range(6)
    ]
    a = IdleIngestJob(sessions, memory, app_name=app, db_url=db_url, batch_size=3)
    b = IdleIngestJob(
        sessions, memory, app_name=app, db_url=db_url, batch_size=3, use_sql_listing=False
    )
    try:
        ra, rb = await asyncio.gather(a.run_once(), b.run_once())
        assert not ra.failed and not rb.failed
        assert len(ra.ingested) == 3 and len(rb.ingested) == 3
        assert sorted(ra.ingested + rb.ingested) == sorted(
            SessionKey(app, s.user_id, s.id) for s in made
        )
        assert memory.calls == Counter({s.id: 1 for s in made})
        assert [r.considered for r in await asyncio.gather(a.run_once(), b.run_once())] == [0, 0]
    finally:
        await a.close()
        await b.close()


async def test_a_batch_lease_of_a_dead_worker_is_honoured_until_it_expires(sessions, memory):
    app = new_app()
    s = await make_session(sessions, app, "u1", ["leased one"], NOW - HOUR)
    job = IdleIngestJob(sessions, memory, app_name=app, batch_size=5)
    assert (await job.run_once()).ingested == [SessionKey(app, "u1", s.id)]
    await add_events(sessions, s, ["changed later"], NOW - HOUR / 2)

    async def lease(until: str) -> None:
        async with operator_begin(memory.engine) as conn:
            await conn.execute(
                sql(
                    f"UPDATE {WATERMARKS} SET claimed_by = 'dead-worker',"
                    f" claimed_until = now() + interval '{until}' WHERE app_name = :app"
                ),
                {"app": app},
            )

    await lease("1 hour")  # a worker that leased its batch and died
    for sql_listing in (None, False):
        other = IdleIngestJob(
            sessions, memory, app_name=app, batch_size=5, use_sql_listing=sql_listing
        )
        assert (await other.run_once()).considered == 0
    await lease("-1 second")  # expired
    assert (await job.run_once()).ingested == [SessionKey(app, "u1", s.id)]
    assert memory.calls[s.id] == 2


@pytest.mark.parametrize("sql_listing", [None, False], ids=["sql-listing", "public-api"])
async def test_a_change_stamped_before_the_watermark_is_still_ingested(
    sessions, memory, sql_listing
):
    app = new_app()
    s = await make_session(sessions, app, "u1", ["first words"], NOW - HOUR)
    job = IdleIngestJob(sessions, memory, app_name=app, use_sql_listing=sql_listing)
    assert len((await job.run_once()).ingested) == 1
    # another app server with a clock two hours behind appends an event
    await add_events(sessions, s, ["written by a server with a slow clock"], NOW - 3 * HOUR)
    assert (await job.run_once()).ingested == [SessionKey(app, "u1", s.id)]
    assert await memory_count(memory, app, "u1") == 2
    assert (await job.run_once()).ingested == []
