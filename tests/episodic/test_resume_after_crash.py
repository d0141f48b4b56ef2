"""A worker process dies mid-task; a new Runner resumes from the checkpointed session.

The worker (``episodic_resume_worker.py``) plans three steps in the working-memory ledger,
runs two tools, and is killed with SIGKILL inside the third. The test process then sends
"continue" through a new Runner on the same DatabaseSessionService: the ledger is intact,
the two completed tool calls are not repeated, and the task finishes.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from episodic_resume_worker import APP, CALLS_ENV, CRASH_ENV, run

from adk_memory_kit.episodic import EpisodicLog
from adk_memory_kit.working_memory.ledger import ready_steps
from adk_memory_kit.working_memory.model import Scratchpad

pytestmark = pytest.mark.slow

WORKER = Path(__file__).with_name("episodic_resume_worker.py")


async def test_killed_worker_resumes_without_repeating_completed_tools(
    db_url, sessions, tmp_path, monkeypatch
):
    calls = tmp_path / "calls.txt"
    user_id = f"u-{uuid.uuid4().hex[:8]}"
    session = await sessions.create_session(app_name=APP, user_id=user_id)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path.cwd()), os.environ.get("PYTHONPATH", "")]),
        CALLS_ENV: str(calls),
        CRASH_ENV: "1",
    }
    worker = subprocess.run(
        [sys.executable, str(WORKER), db_url, user_id, session.id],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert worker.returncode == -signal.SIGKILL, worker.stderr[-2000:]
    assert calls.read_text().splitlines() == ["fetch_sales", "fetch_costs", "write_report:start"]

    # What the dead worker left: the ledger checkpointed in session state.
    stored = await sessions.get_session(app_name=APP, user_id=user_id, session_id=session.id)
    pad = Scratchpad.load(stored.state["wm"])
    assert {s.id: s.status for s in pad.plan} == {
        "sales": "done",
        "costs": "done",
        "report": "todo",
    }
    assert [s.id for s in ready_steps(pad)] == ["report"]

    # A new Runner (new process state, same database) picks the task up.
    monkeypatch.setenv(CALLS_ENV, str(calls))
    monkeypatch.delenv(CRASH_ENV, raising=False)
    try:  # a resume that waits forever fails here, with every task's stack
        events = await asyncio.wait_for(run(db_url, user_id, session.id, "continue"), 120)
    except TimeoutError:
        for task in asyncio.all_tasks():
            task.print_stack(file=sys.stderr)
        raise
    final = [e for e in events if e.is_final_response() and e.content and e.content.parts]
    assert final[-1].content.parts[0].text == "The quarterly report is written: profit 40,000 EUR."
    assert calls.read_text().splitlines() == [
        "fetch_sales",
        "fetch_costs",
        "write_report:start",
        "write_report:start",
        "write_report:done",
    ]
    stored = await sessions.get_session(app_name=APP, user_id=user_id, session_id=session.id)
    pad = Scratchpad.load(stored.state["wm"])
    assert all(s.status == "done" for s in pad.plan) and len(pad.plan) == 3

    # The resumed invocation's log: only the unfinished step's tool ran.
    log = EpisodicLog(db_url)
    try:
        trace = await log.trace(APP, user_id, session.id)
    finally:
        await log.close()
    resumed = [e for e in trace if e.invocation_id == trace[-1].invocation_id]
    tools = [e.name for e in resumed if e.kind == "tool_call"]
    assert tools == ["write_report", "update_step"]
    assert resumed[0].kind == "user_message" and resumed[0].payload == {"text": "continue"}
