"""The README conversation of each sample agent, and a recorder that writes its ADK eval set.

``python tests/samples/evalsets.py`` (offline: no ``GOOGLE_API_KEY``) runs each conversation
through a ``Runner`` on ADK's in-memory services, exactly the services ``adk eval`` gives an
agent, and writes ``agents/<name>/<name>.evalset.json`` with the tool trajectory and the final
reply of every turn. Re-record after changing an agent's offline behaviour on purpose; the
tests in ``test_evalsets.py`` replay the files through ``adk eval`` and ``AgentEvaluator``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from google.adk.apps import App
from google.adk.cli.utils.agent_loader import AgentLoader
from google.adk.evaluation.eval_case import EvalCase, IntermediateData, Invocation, SessionInput
from google.adk.evaluation.eval_set import EvalSet
from google.adk.memory import InMemoryMemoryService
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

AGENTS_DIR = Path(__file__).resolve().parents[2] / "agents"
USER_ID = "eval-user"

CONVERSATIONS: dict[str, tuple[str, ...]] = {
    "research_assistant": (
        "EV charging market in Europe",
        "heat pump adoption in Germany",
        "solar panel pricing trends",
        "Summarize my findings",
    ),
    "rebooker": (
        "My Friday flight SFO to JFK was cancelled. Please rebook me: no red-eye, and I want an "
        "aisle seat.",
        "I have to arrive before 9am Friday.",
        "OK, hold it.",
        "Yes, confirm it.",
    ),
    # one session: the checkpoint (every 3 turns) ingests turns 1-3, so turn 4's load_memory
    # finds the delivery instruction in the in-memory memory service `adk eval` provides
    "concierge": (
        "I'm vegetarian, and please always deliver to the Pune office reception.",
        "Our budget is 15 euros today.",
        "Stop asking me to confirm prices.",
        "Can you order lunch for me?",
        "Thanks, that's all, bye!",
    ),
}


def evalset_path(name: str) -> Path:
    return AGENTS_DIR / name / f"{name}.evalset.json"


async def record(name: str) -> EvalSet:
    """Run ``name``'s conversation as ``adk eval`` would and return its eval set."""
    sys.path.insert(0, str(AGENTS_DIR))
    loaded = AgentLoader(str(AGENTS_DIR)).load_agent(name)
    app = loaded if isinstance(loaded, App) else App(name=name, root_agent=loaded)
    sessions = InMemorySessionService()
    runner = Runner(app=app, session_service=sessions, memory_service=InMemoryMemoryService())
    session = await sessions.create_session(app_name=name, user_id=USER_ID)
    invocations = []
    try:
        for turn, text in enumerate(CONVERSATIONS[name], start=1):
            message = types.Content(role="user", parts=[types.Part(text=text)])
            calls, final = [], None
            async for event in runner.run_async(
                user_id=USER_ID, session_id=session.id, new_message=message
            ):
                for call in event.get_function_calls():
                    calls.append(types.FunctionCall(name=call.name, args=call.args))
                if event.is_final_response() and event.content:
                    final = event.content
            invocations.append(
                Invocation(
                    invocation_id=f"turn-{turn}",
                    user_content=message,
                    final_response=final,
                    intermediate_data=IntermediateData(tool_uses=calls),
                )
            )
    finally:
        await runner.close()
    case = EvalCase(
        eval_id=f"{name}_readme_conversation",
        conversation=invocations,
        session_input=SessionInput(app_name=name, user_id=USER_ID, state={}),
    )
    return EvalSet(
        eval_set_id=name,
        name=f"{name}: the README conversation",
        description="Recorded offline by tests/samples/evalsets.py (scripted model).",
        eval_cases=[case],
    )


async def main(names: list[str]) -> None:
    for name in names:
        evalset = await record(name)
        path = evalset_path(name)
        path.write_text(evalset.model_dump_json(indent=2, exclude_none=True) + "\n")
        turns = len(evalset.eval_cases[0].conversation or [])
        print(f"wrote {path.relative_to(AGENTS_DIR.parent)} ({turns} turns)")


if __name__ == "__main__":
    if os.environ.get("GOOGLE_API_KEY"):
        sys.exit("unset GOOGLE_API_KEY: eval sets are recorded with the scripted offline model")
    asyncio.run(main(sys.argv[1:] or list(CONVERSATIONS)))
