"""Forget as a fence, through real components on the real database: writers hammer one user
(memory writes, review items, episodic entries, recorded accesses) while ``forget_user``
runs; every write acknowledged before the fence is deleted, every later one is refused with
``UserBeingForgottenError``, entries queued before the forget are discarded, not written
after it, and ``verified`` holds. A failed forget keeps the fence until it is lifted.
"""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.core.data_home import FunctionDataHome
from adk_memory_kit.db.fence import FORGET_LOG_TABLE
from adk_memory_kit.episodic import EpisodicLog, PendingEntry
from adk_memory_kit.errors import UserBeingForgottenError
from adk_memory_kit.lifecycle import forget_user, lift_forget_fence, pending_forgets
from adk_memory_kit.memory.forget_log import FORGET_LOG
from adk_memory_kit.routing.review_queue import ReviewQueue

pytestmark = pytest.mark.slow


def fact(text: str) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=text)]))


def entry(app: str, user: str, n: int, at: float | None = None) -> PendingEntry:
    kw = {"time": at} if at is not None else {}
    return PendingEntry(app, user, "s1", f"inv{n}", "agent", "user_message", "user",
                        payload={"text": f"note {n}"}, **kw)  # fmt: skip


@pytest.fixture
async def parts(db_url, memory):
    queue = ReviewQueue(engine=memory.engine)
    log = EpisodicLog(engine=memory.engine, flush_interval=3600)  # flushed by the test only
    yield queue, log
    await log.close()
    await queue.close()


def test_the_fence_reads_the_forget_log_by_its_name():
    assert FORGET_LOG_TABLE == FORGET_LOG


async def test_writes_racing_a_forget_are_refused_or_deleted(memory, sessions, parts):
    queue, log = parts
    app, user, other = f"fence_{uuid.uuid4().hex[:8]}", "una", "vic"
    services = {"session_service": sessions, "memory_service": memory}
    for who in (user, other):
        await memory.add_memory(app_name=app, user_id=who, memories=[fact(f"{who} likes tea")])
        await queue.submit(app_name=app, user_id=who, text=f"{who} wants aisle seats")
        session = await sessions.create_session(app_name=app, user_id=who)
        assert session.id
    found = await memory.search(app_name=app, user_id=user, query="tea")
    assert found.memories  # an access of una is now queued in the recorder
    before = time.time()
    for n in range(5):  # queued in the log's memory before the forget, flushed after it
        log.append(entry(app, user, n, at=before - 1))
    log.append(entry(app, other, 99))

    acknowledged: list[str] = []
    refused: list[str] = []
    acked_at: dict[str, float] = {}
    done = asyncio.Event()

    async def hammer(kind: str) -> None:
        n = 0
        while not done.is_set():
            n += 1
            try:
                if kind == "memory":
                    await memory.add_memory(
                        app_name=app, user_id=user, memories=[fact(f"una note {kind} {n}")]
                    )
                elif kind == "review":
                    await queue.submit(app_name=app, user_id=user, text=f"una asks {n}")
                else:
                    await memory.curator.pin_memory(
                        app_name=app, user_id=user, memory_id=found.memories[0].id, reason="r"
                    )
                acknowledged.append(kind)
                acked_at[f"{kind} {n}"] = time.time()
            except UserBeingForgottenError as exc:
                assert "being forgotten" in str(exc)
                refused.append(kind)
            except Exception as exc:  # the pinned row deleted by the forget: not found
                if kind != "pin":
                    raise
                assert type(exc).__name__ == "MemoryNotFoundError"
            await asyncio.sleep(0.005)

    writers = [asyncio.create_task(hammer(k)) for k in ("memory", "review", "pin")]
    await asyncio.sleep(0.3)  # the writers are running
    report = await forget_user(app, user, **services, extra_homes=[queue.data_home()])
    done.set()
    await asyncio.gather(*writers)

    assert report.verified and report.status == "completed"
    assert acknowledged and refused, (len(acknowledged), len(refused))
    # every write acknowledged before the forget completed was deleted (or refused); only
    # writes acknowledged after it completed (the user served again) may be stored
    completed = report.completed_at.timestamp()
    stored = await memory.search(app_name=app, user_id=user, query="una note", limit=100)
    for m in stored.memories:
        key = m.content.parts[0].text.removeprefix("una note ")
        assert acked_at[key] >= completed, f"{key} was written before the forget completed"
    items = await queue.list(app_name=app, user_id=user, status=None)
    for item in items:
        key = "review " + item.text.removeprefix("una asks ")
        assert acked_at[key] >= completed, f"{key} was written before the forget completed"
    assert any(t < completed for t in acked_at.values())  # writes raced the forget
    # queued episodic entries and accesses of una are discarded, not written after the forget
    await log.flush()
    assert log.discarded == 5
    assert await log.count_for_user(app, user) == 0
    assert await log.count_for_user(app, other) == 1
    await memory.flush_access()
    assert sum((await memory.count_memories(app_name=app, user_id=user)).values()) == len(
        stored.memories
    )
    # vic was never touched; una can be served again after the forget completed
    assert sum((await memory.count_memories(app_name=app, user_id=other)).values()) == 1
    await memory.add_memory(app_name=app, user_id=user, memories=[fact("una is back")])
    log.append(entry(app, user, 100))
    await log.flush()
    assert await log.count_for_user(app, user) == 1


async def test_a_failed_forget_keeps_the_fence_until_it_is_lifted(memory, sessions, parts):
    queue, log = parts
    app, user = f"fence_{uuid.uuid4().hex[:8]}", "wes"
    await memory.add_memory(app_name=app, user_id=user, memories=[fact("wes likes jazz")])

    async def broken(app_name: str, user_id: str) -> int:
        raise RuntimeError("the CRM is down")

    crm = FunctionDataHome("crm", count=broken, delete=broken)
    with pytest.raises(RuntimeError):
        await forget_user(
            app, user, session_service=sessions, memory_service=memory, extra_homes=[crm]
        )
    assert [p.user_id for p in await pending_forgets(app, memory_service=memory)] == [user]
    for write in (
        memory.add_memory(app_name=app, user_id=user, memories=[fact("wes likes blues")]),
        queue.submit(app_name=app, user_id=user, text="wes wants a window"),
    ):
        with pytest.raises(UserBeingForgottenError):
            await write
    log.append(entry(app, user, 1))
    await log.flush()
    assert log.discarded == 1 and await log.count_for_user(app, user) == 0

    assert await lift_forget_fence(app, user, memory_service=memory) is True
    assert await lift_forget_fence(app, user, memory_service=memory) is False
    await memory.add_memory(app_name=app, user_id=user, memories=[fact("wes likes blues")])
    await queue.submit(app_name=app, user_id=user, text="wes wants a window")
    log.append(entry(app, user, 2))
    await log.flush()
    assert await log.count_for_user(app, user) == 1


async def test_episodic_entries_logged_while_a_forget_runs_do_not_survive_it(
    db_url, memory, sessions
):
    """Writers log entries for the user while ``forget_user`` runs; the log's background
    writer (every 50 ms) writes some of them after the forget completed. None of the entries
    logged before it completed may be stored: as memory writes are refused while it runs, the
    log's entries created meanwhile are discarded. Entries logged after it are kept."""
    app, user = f"fence_{uuid.uuid4().hex[:8]}", "xia"
    log = EpisodicLog(engine=memory.engine, flush_interval=0.05, batch_size=1000)
    services = {"session_service": sessions, "memory_service": memory}
    await memory.add_memory(app_name=app, user_id=user, memories=[fact("xia likes tea")])
    logged_at: dict[str, float] = {}
    done = asyncio.Event()

    async def writer(w: int) -> None:
        n = 0
        while not done.is_set():
            n += 1
            e = entry(app, user, n)
            e.invocation_id = f"w{w}-{n}"
            log.append(e)  # the log's acknowledgement: it never refuses
            logged_at[e.invocation_id] = e.time
            await asyncio.sleep(0.003)

    try:
        writers = [asyncio.create_task(writer(w)) for w in range(3)]
        await asyncio.sleep(0.3)  # the writers are running, some entries written already
        report = await forget_user(app, user, **services)
        await asyncio.sleep(0.2)  # more entries, after the forget completed
        done.set()
        await asyncio.gather(*writers)
        await log.flush()

        assert report.verified and report.status == "completed"
        # the forget deleted the entries written before it, and its verification counted
        # the log's table (a kit home) empty
        assert report.homes_deleted.get("episodic log", 0) > 0
        completed = report.completed_at.timestamp()
        during = [k for k, t in logged_at.items() if report.requested_at.timestamp() <= t]
        assert any(logged_at[k] < completed for k in during), "no entry raced the forget"
        stored = {e.invocation_id for e in await log.trace(app, user, "s1")}
        survivors = sorted(k for k in stored if logged_at[k] < completed)
        assert not survivors, f"{len(survivors)} entries logged before the forget completed"
        assert any(logged_at[k] > completed for k in stored)  # the user is served again
        assert log.discarded > 0
    finally:
        await log.close()
