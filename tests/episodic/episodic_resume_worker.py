"""A task agent with a working-memory ledger, used by the crash-and-resume test.

Run as a script it is the worker process: it starts the task on the session named in the
environment and is killed (SIGKILL, by its own ``write_report`` tool) between two tool calls.
Imported, it gives the test the same agent to resume with.

The scripted model is a pure function of the request: it reads the ``<working_memory>``
view in the system instruction and acts on the first READY step, so it resumes from
whatever state the session holds, like a real model following the ledger.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys

from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import Runner
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.genai import types

from adk_memory_kit.episodic import EpisodicLog, EpisodicLogPlugin
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses
from adk_memory_kit.working_memory import WorkingMemoryToolset, working_memory_instruction

APP = "resume_app"
TASK = "Prepare the quarterly report"
CALLS_ENV = "EPISODIC_TEST_CALLS_FILE"
CRASH_ENV = "EPISODIC_TEST_CRASH_IN_WRITE_REPORT"
STEPS = (
    ("sales", "Fetch sales figures", "fetch_sales", None),
    ("costs", "Fetch cost figures", "fetch_costs", None),
    ("report", "Write the report", "write_report", ["sales", "costs"]),
)


def _record(name: str) -> None:
    with open(os.environ[CALLS_ENV], "a", encoding="utf-8") as out:
        out.write(name + "\n")
        out.flush()
        os.fsync(out.fileno())


def fetch_sales() -> dict:
    """Fetch this quarter's sales figures."""
    _record("fetch_sales")
    return {"sales_eur": 120_000}


def fetch_costs() -> dict:
    """Fetch this quarter's cost figures."""
    _record("fetch_costs")
    return {"costs_eur": 80_000}


def write_report() -> dict:
    """Write the quarterly report from the fetched figures."""
    _record("write_report:start")
    if os.environ.get(CRASH_ENV) == "1":
        os.kill(os.getpid(), signal.SIGKILL)  # the process dies mid-task
    _record("write_report:done")
    return {"report": "Q3: profit 40,000 EUR"}


def _view(request: LlmRequest) -> str:
    instruction = request.config.system_instruction if request.config else None
    text = instruction if isinstance(instruction, str) else ""
    if isinstance(instruction, types.Content):
        text = "".join(p.text or "" for p in instruction.parts or ())
    start = text.find("<working_memory>")
    return text[start:] if start >= 0 else ""


def ledger_responder(request: LlmRequest):
    """Plan the steps, then run the first READY step's tool and mark it done."""
    view = _view(request)
    if "Goal:" not in view:
        return [call("set_goal", goal=TASK)]
    planned = "report: " in view or re.search(r"\d+ steps done", view)
    for step_id, text, _, deps in STEPS:
        if not planned and f"{step_id}: " not in view:
            return [call("update_step", step=text, status="todo", step_id=step_id,
                         depends_on=deps or [])]  # fmt: skip
    ready = re.search(r"- \[todo\] (\w+): .* - READY", view)
    if ready is None:
        return "The quarterly report is written: profit 40,000 EUR."
    step_id = ready.group(1)
    text, tool = next((t, tool) for s, t, tool, _ in STEPS if s == step_id)
    answered = [r.name for r in last_function_responses(request)]
    if tool in answered:
        return [call("update_step", step=text, status="done", step_id=step_id)]
    return [call(tool)]


def build_runner(sessions: DatabaseSessionService, log: EpisodicLog) -> Runner:
    agent = LlmAgent(
        name="analyst",
        model=ScriptedLlm(model="gemini-2.5-flash", responder=ledger_responder),
        instruction="You prepare reports.\n" + working_memory_instruction(),
        tools=[WorkingMemoryToolset(), fetch_sales, fetch_costs, write_report],
    )
    app = App(name=APP, root_agent=agent, plugins=[EpisodicLogPlugin(log)])
    return Runner(app=app, session_service=sessions)


async def run(db_url: str, user_id: str, session_id: str, text: str) -> list:
    sessions = DatabaseSessionService(db_url=db_url)
    log = EpisodicLog(db_url, batch_size=1)
    runner = build_runner(sessions, log)
    message = types.Content(role="user", parts=[types.Part(text=text)])
    try:
        return [
            event
            async for event in runner.run_async(
                user_id=user_id, session_id=session_id, new_message=message
            )
        ]
    finally:
        await runner.close()
        await log.close()
        await sessions.close()


if __name__ == "__main__":
    db, user, session = sys.argv[1:4]
    asyncio.run(run(db, user, session, TASK))
    sys.exit(3)  # not reached when the crash happens
