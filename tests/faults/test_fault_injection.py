"""Fault injection: the embedded server is killed (SIGKILL, by pid) in the middle of an
ingestion, an idle pass, a forget and a search.

Each time the same process recovers without a restart (same service objects, same job),
nothing committed is lost, nothing half-written is visible, and every error the caller
sees is a kit error whose message (and cause chain) holds none of the users' words; the
captured logs hold none either, and no traceback.

The server is a dedicated one in a temporary home (never the shared test server), restarted
by the kit itself when found dead (the restart interval is set to 0 here: one restart per
kill).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

import pytest
from google.adk.events.event import Event
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.genai import types

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.db import embedded
from adk_memory_kit.errors import DatabaseUnavailableError, MemoryKitError
from adk_memory_kit.lifecycle.forget import data_map, forget_user, pending_forgets
from adk_memory_kit.lifecycle.idle_job import IdleIngestJob
from tests.support.ids import unique
from tests.support.servers import kill_server, stop_server

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def fault_server(tmp_path_factory):
    """``(url, pgdata)`` of a dedicated embedded server, restarted at once when killed."""
    home = tmp_path_factory.mktemp("fault_home")
    patch = pytest.MonkeyPatch()
    patch.setattr(embedded, "RESTART_INTERVAL_S", 0.0)
    url = embedded.embedded_db_url(home)
    pgdata = home.resolve() / "pgdata"
    yield url, pgdata
    patch.undo()
    stop_server(pgdata)


class KillingEmbedder:
    """The real embedder; kills the server once, after embedding texts ``trigger`` matches."""

    def __init__(self, inner, pgdata) -> None:
        self.inner = inner
        self.pgdata = pgdata
        self.trigger: Callable[[Sequence[str]], bool] | None = None
        self.kills = 0

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = await self.inner.embed(texts)
        if self.trigger is not None and self.trigger(texts):
            self.trigger = None
            kill_server(self.pgdata)
            self.kills += 1
        return vectors

    def kill_on(self, word: str) -> None:
        self.trigger = lambda texts: any(word in t for t in texts)


@contextmanager
def killed_before_statement(engine, pgdata, marker: str) -> Iterator[list[bool]]:
    """Kill the server once, right before the first statement whose SQL holds ``marker``;
    the yielded list holds ``True`` once that happened."""
    from sqlalchemy import event

    killed: list[bool] = []

    def kill(conn, cursor, statement, params, context, executemany):
        if not killed and marker in statement:
            killed.append(True)
            kill_server(pgdata)

    event.listen(engine.sync_engine, "before_cursor_execute", kill)
    try:
        yield killed
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", kill)


def words(n: int = 2) -> list[str]:
    """Distinctive words no other row holds, letters only: a word with digits in it is a value,
    and a message that gives one ("the vault word is zq64259...") may rightly be redacted by
    the gate before it is embedded, and then the fault is never injected."""
    return [unique("zq", "", letters=10) for _ in range(n)]


def text_event(text: str, t: float, author: str = "user") -> Event:
    return Event(
        author=author,
        invocation_id="inv",
        timestamp=t,
        content=types.Content(role="user", parts=[types.Part(text=text)]),
    )


async def seed_session(sessions, app: str, user: str, sentences: list[str]):
    session = await sessions.create_session(app_name=app, user_id=user)
    t = time.time() - 7200
    for i, sentence in enumerate(sentences):
        await sessions.append_event(session, text_event(sentence, t + i))
    return await sessions.get_session(app_name=app, user_id=user, session_id=session.id)


def assert_clean(exc: BaseException, secret: Sequence[str]) -> None:
    """A kit error; neither it nor any exception in its chain quotes a user's word."""
    assert isinstance(exc, MemoryKitError), f"raw error reached the caller: {type(exc)}"
    seen = exc
    while seen is not None:
        for word in secret:
            assert word not in str(seen), f"user text in {type(seen).__name__}"
        seen = seen.__cause__ or seen.__context__


def assert_logs_clean(caplog, secret: Sequence[str]) -> None:
    """No captured log line (message or traceback) quotes a user's word; no tracebacks."""
    for record in caplog.records:
        text = record.getMessage() + (record.exc_text or "")
        if record.exc_info:
            text += "".join(logging.Formatter().formatException(record.exc_info))
        for word in secret:
            assert word not in text, f"user text in log line: {record.name}"
        if record.name.startswith("adk_memory_kit"):
            assert record.exc_info is None, f"traceback logged by {record.name}"


@pytest.fixture
async def services(fault_server, embedder):
    url, pgdata = fault_server
    sessions = DatabaseSessionService(db_url=url, hide_parameters=True, pool_pre_ping=True)
    killer = KillingEmbedder(embedder, pgdata)
    # the fault tests check storage mechanics on every event: the full-transcript policy
    memory = PgVectorMemoryService.from_url(url, embedder=killer, write_policy="full_transcript")
    yield sessions, memory, killer
    await memory.close()
    await sessions.close()


async def session_rows(memory, app: str, user: str) -> dict[str, int]:
    """The user's stored rows per session (read through the public search, every row: the
    relevance floor off for this read)."""
    floor = memory.store.search_options
    memory.store.search_options = floor.model_copy(update={"relevance_floor": False})
    try:
        found = await memory.search_memory(app_name=app, user_id=user, query="anything", limit=1000)
    finally:
        memory.store.search_options = floor
    rows: dict[str, int] = {}
    for m in found.memories:
        sid = m.custom_metadata["session_id"]
        rows[sid] = rows.get(sid, 0) + 1
    return rows


async def test_killed_in_the_middle_of_an_ingestion(services, caplog):
    caplog.set_level(logging.DEBUG, logger="adk_memory_kit")
    sessions, memory, killer = services
    app, secret = f"fi_{uuid.uuid4().hex[:8]}", words(2)
    kept = await seed_session(sessions, app, "ann", [f"my code is {secret[0]}", "thanks"])
    await memory.add_session_to_memory(kept)
    lost = await seed_session(sessions, app, "ann", [f"the vault word is {secret[1]}", "ok"])

    killer.kill_on(secret[1])  # killed after embedding, before the write transaction
    with pytest.raises(MemoryKitError) as raised:
        await memory.add_session_to_memory(lost)
    assert killer.kills == 1
    assert_clean(raised.value, secret)
    assert isinstance(raised.value, DatabaseUnavailableError) and raised.value.transient

    # same process, same service: the committed session is all there, the other not at all
    assert await session_rows(memory, app, "ann") == {kept.id: 2}
    await memory.add_session_to_memory(lost)  # the retry goes through
    assert await session_rows(memory, app, "ann") == {kept.id: 2, lost.id: 2}
    assert_logs_clean(caplog, secret)


async def test_killed_in_the_middle_of_an_idle_pass(services, caplog):
    caplog.set_level(logging.DEBUG, logger="adk_memory_kit")
    sessions, memory, killer = services
    app, secret = f"fi_{uuid.uuid4().hex[:8]}", words(2)
    first = await seed_session(sessions, app, "bea", [f"bea's locker is {secret[0]}"])
    second = await seed_session(sessions, app, "cid", [f"the shelf label is {secret[1]}"])
    later = lambda: datetime.now(timezone.utc) + timedelta(hours=1)  # noqa: E731
    job = IdleIngestJob(
        sessions, memory, app_name=app, idle_after=timedelta(0), batch_size=10, clock=later
    )

    killer.kill_on(secret[1])  # the second session's ingestion dies
    with pytest.raises(MemoryKitError) as raised:
        await job.run_once()
    assert killer.kills == 1
    assert_clean(raised.value, secret)

    # the first session committed with its watermark; the second left no trace
    assert await job.watermark("bea", first.id) is not None
    assert await session_rows(memory, app, "bea") == {first.id: 1}
    assert await job.watermark("cid", second.id) is None
    assert await session_rows(memory, app, "cid") == {}
    for user, sid in (("bea", first.id), ("cid", second.id)):
        state = await job.state(user, sid)
        assert state.claimed_by is None  # the failed pass released its leases
        if state.last_error:
            assert all(w not in state.last_error for w in secret)

    # the same job recovers on its next pass
    report = await job.run_once()
    assert [k.session_id for k in report.ingested] == [second.id]
    assert await session_rows(memory, app, "cid") == {second.id: 1}
    assert_logs_clean(caplog, secret)
    failed_lines = [r for r in caplog.records if "failed" in r.getMessage()]
    assert len(failed_lines) <= 3  # one per failed session, one per pass: no flood


class KillingSessions(DatabaseSessionService):
    """ADK's session service; kills the server after deleting ``kill_after`` sessions."""

    def __init__(self, *args, pgdata, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.pgdata = pgdata
        self.kill_after: int | None = None

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        await super().delete_session(app_name=app_name, user_id=user_id, session_id=session_id)
        if self.kill_after is not None:
            self.kill_after -= 1
            if self.kill_after == 0:
                self.kill_after = None
                kill_server(self.pgdata)


async def test_killed_in_the_middle_of_a_forget(fault_server, services, caplog):
    caplog.set_level(logging.DEBUG, logger="adk_memory_kit")
    url, pgdata = fault_server
    _, memory, killer = services
    sessions = KillingSessions(db_url=url, hide_parameters=True, pool_pre_ping=True, pgdata=pgdata)
    try:
        app, secret = f"fi_{uuid.uuid4().hex[:8]}", words(3)
        for i in range(3):
            s = await seed_session(sessions, app, "dee", [f"dee note {secret[i]}"])
            await memory.add_session_to_memory(s)
        other = await seed_session(sessions, app, "eve", ["eve keeps her notes"])
        await memory.add_session_to_memory(other)
        await memory.add_memory(
            app_name=app,
            user_id="dee",
            memories=[MemoryEntry(content=types.Content(parts=[types.Part(text=secret[0])]))],
        )
        services_ = {"session_service": sessions, "memory_service": memory}

        sessions.kill_after = 2  # dies after the second of three sessions is deleted
        with pytest.raises(MemoryKitError) as raised:
            await forget_user(app, "dee", **services_)
        assert_clean(raised.value, secret)

        # the forget stays open (visible, the idle job keeps away), nothing of eve is touched
        assert [p.user_id for p in await pending_forgets(app, memory_service=memory)] == ["dee"]
        half = await data_map(app, "dee", **services_)
        assert half.locations[-1].detail == "pending"
        assert await session_rows(memory, app, "eve") == {other.id: 1}

        report = await forget_user(app, "dee", **services_)  # the re-run finishes the job
        assert report.verified and report.status == "completed"
        after = await data_map(app, "dee", **services_)
        assert not after.holds_user_data
        assert await pending_forgets(app, memory_service=memory) == []
        assert await session_rows(memory, app, "eve") == {other.id: 1}
        assert_logs_clean(caplog, secret)
    finally:
        await sessions.close()


async def test_killed_in_the_middle_of_a_search(fault_server, services, caplog):
    caplog.set_level(logging.DEBUG, logger="adk_memory_kit")
    _, pgdata = fault_server
    sessions, memory, killer = services
    app, secret = f"fi_{uuid.uuid4().hex[:8]}", words(2)
    s = await seed_session(sessions, app, "fay", [f"fay's shelf label is {secret[0]}"])
    await memory.add_session_to_memory(s)
    expected = [f"fay's shelf label is {secret[0]}"]

    # killed while the search's statement is on its way (connection already checked out): a
    # search only reads, so it runs once more on the restarted server and answers
    with killed_before_statement(memory.engine, pgdata, "adk_memory_items") as killed:
        found = await memory.search_memory(app_name=app, user_id="fay", query=secret[0])
    assert killed
    assert [m.content.parts[0].text for m in found.memories] == expected

    # killed after the query's embedding, before a connection is taken: the same call
    # reconnects (restarting the server) and answers
    killer.kill_on(secret[1])
    found = await memory.search_memory(app_name=app, user_id="fay", query=f"label {secret[1]}")
    assert killer.kills == 1
    assert [m.content.parts[0].text for m in found.memories] == expected
    assert_logs_clean(caplog, secret)


async def test_killed_while_the_plan_is_read_the_same_search_answers(
    fault_server, services, caplog
):
    """The plan is read while the query is embedded; a server killed during that read is
    reconnected and the read repeated, so the call answers (the race CI once lost)."""
    caplog.set_level(logging.DEBUG, logger="adk_memory_kit")
    _, pgdata = fault_server
    sessions, memory, _ = services
    app, secret = f"fi_{uuid.uuid4().hex[:8]}", words(2)
    s = await seed_session(sessions, app, "gus", [f"gus's shelf label is {secret[0]}"])
    await memory.add_session_to_memory(s)
    with killed_before_statement(memory.engine, pgdata, "to_regclass(") as killed:
        found = await memory.search_memory(app_name=app, user_id="gus", query=secret[0])
    assert killed
    assert [m.content.parts[0].text for m in found.memories] == [
        f"gus's shelf label is {secret[0]}"
    ]
    assert_logs_clean(caplog, secret)
