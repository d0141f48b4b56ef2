"""``EpisodicLog.close`` stops the background writer in every state it can be in.

Regression: the writer used to wait with ``asyncio.wait_for(wake.wait(), interval)`` and
``close`` cancelled it. On Python < 3.12 ``wait_for`` swallows a cancellation that arrives
while its inner wait has just finished (the wake event set by a full batch), so the writer
kept running and ``close`` waited forever; that stalled the crash-and-resume test whenever
the timing lined up. The hang guard below fails fast instead of hanging the suite.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest

from adk_memory_kit.episodic.store import EpisodicLog, PendingEntry

pytestmark = pytest.mark.slow

APP = "episodic_shutdown"
HANG_GUARD_S = 20


def _entry(user_id: str, n: int) -> PendingEntry:
    return PendingEntry(APP, user_id, "s1", f"inv-{n}", "agent", "tool_call", "tool", payload={})


async def _close_or_fail(log: EpisodicLog) -> None:
    task = asyncio.ensure_future(log.close())
    done, _ = await asyncio.wait({task}, timeout=HANG_GUARD_S)
    if not done:
        task.cancel()
        pytest.fail(f"EpisodicLog.close() did not return within {HANG_GUARD_S} s")
    task.result()


async def test_close_while_the_writer_is_waking_up_returns_and_stops_it(db_url):
    user_id = f"u-{uuid.uuid4().hex[:8]}"
    log = EpisodicLog(db_url, batch_size=1)
    log.append(_entry(user_id, 1))
    await log.flush()  # the writer now idles on its wake event
    writer = log._flusher
    assert writer is not None and not writer.done()
    # Exactly the racy moment: the wake event is set (as a full batch sets it) and close
    # runs before the writer has stepped again.
    log._wake.set()
    await _close_or_fail(log)
    assert writer.done() and not writer.cancelled()


async def test_close_writes_every_queued_entry_then_stops_the_writer(db_url):
    user_id = f"u-{uuid.uuid4().hex[:8]}"
    log = EpisodicLog(db_url, batch_size=1)
    for n in range(25):  # each append wakes the writer; close lands at every phase of it
        log.append(_entry(user_id, n))
        if n % 5 == 0:
            await asyncio.sleep(0)
    writer = log._flusher
    await _close_or_fail(log)
    assert writer is not None and writer.done()
    assert log.pending == 0 and log.failed_writes == 0
    reader = EpisodicLog(db_url)
    try:
        trace = await reader.trace(APP, user_id, "s1")
    finally:
        await reader.close()
    assert [e.invocation_id for e in trace] == [f"inv-{n}" for n in range(25)]
    assert [e.seq for e in trace] == list(range(1, 26))


async def test_a_cancelled_close_propagates_and_the_writer_still_finishes(db_url):
    user_id = f"u-{uuid.uuid4().hex[:8]}"
    log = EpisodicLog(db_url, batch_size=1)
    log.append(_entry(user_id, 1))
    await log.flush()
    writer = log._flusher
    log.append(_entry(user_id, 2))
    closing = asyncio.ensure_future(log.close())
    await asyncio.sleep(0)
    closing.cancel()
    with pytest.raises(asyncio.CancelledError):
        await closing
    done, _ = await asyncio.wait({writer}, timeout=HANG_GUARD_S)
    assert done, "the writer kept running after close was cancelled"
    await log.engine.dispose()  # the cancelled close did not get that far
    count = EpisodicLog(db_url)
    try:
        assert await count.count_for_user(APP, user_id) == 2
    finally:
        await count.close()
