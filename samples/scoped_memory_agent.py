"""Memory scopes for ADK agents: office rules shared by the app, notes private to one agent.

Run it:  python samples/scoped_memory_agent.py
With GOOGLE_API_KEY (or ADK_MEMORY_KIT_MODEL) set both agents talk to that model; without one
they play scripted turns offline. Either way it prints what each agent recalled.

The layout to copy (docs/scopes.md):

* the operator writes the app's shared knowledge (the office rules) once, with
  ``add_shared_memory`` (or ``adk-memory-kit share``); no conversation can write it;
* ``MemoryToolset(agent_notes=True)`` gives an agent ``remember_for_agent``: notes that only
  that agent recalls for this user;
* ``FramedLoadMemoryTool`` recalls, for the calling agent, the user's own memories, the
  app's shared ones (marked "shared by the app") and the agent's own notes ("private to this
  agent"), never another agent's.
"""

from __future__ import annotations

import asyncio
from typing import Any

from google.adk.agents.llm_agent import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_memory_kit import (
    FramedLoadMemoryTool,
    MemoryToolset,
    PgVectorMemoryService,
    configured_model,
)
from adk_memory_kit.testing import ScriptedLlm, call

APP, USER = "scoped_office", "asha"
OFFICE_RULES = [
    "The Pune office is closed on Fridays.",
    "Visitors to the Pune office sign in at reception on floor 2.",
]
BILLING_NOTE = "Asha wants her Pune travel invoices as PDF, sent to the finance inbox."


def build_agent(name: str, model: str | BaseLlm, role: str) -> LlmAgent:
    """One agent of the app: recall over its entitled scopes, private notes of its own."""
    return LlmAgent(
        name=name,
        model=model,
        instruction=f"{role} Recall memory before answering; keep your own notes private.",
        tools=[FramedLoadMemoryTool(), MemoryToolset(agent_notes=True)],
    )


def scripted(name: str) -> ScriptedLlm:
    """The offline turns of each agent, as tool calls."""
    turns: dict[str, list[Any]] = {
        "billing": [
            [call("remember_for_agent", text=BILLING_NOTE, importance=0.7)],
            "Noted: PDF invoices to the finance inbox.",
            [call("load_memory", query="Pune travel invoices")],
            "Your Pune invoices go as PDF to the finance inbox.",
        ],
        "concierge": [
            [call("load_memory", query="Pune office visit on Friday invoices")],
            "The Pune office is closed on Fridays; come on Thursday.",
        ],
    }
    return ScriptedLlm(turns=turns[name])


async def turn(
    runner: Runner, sessions: InMemorySessionService, text: str
) -> tuple[list[Any], str]:
    """One user turn: the function responses the agent received, and its answer."""
    session = await sessions.create_session(app_name=APP, user_id=USER)
    message = types.Content(role="user", parts=[types.Part(text=text)])
    responses, answer = [], ""
    async for event in runner.run_async(user_id=USER, session_id=session.id, new_message=message):
        responses += [(r.name, r.response) for r in event.get_function_responses()]
        if event.is_final_response() and event.content and event.content.parts:
            answer = f"[{event.author}] {event.content.parts[0].text}"
    return responses, answer


async def main() -> None:
    sessions = InMemorySessionService()
    async with PgVectorMemoryService() as memory:  # ADK_MEMORY_KIT_DB_URL, else embedded
        # the operator's path: the app's office rules, shared by every user of the app
        report = await memory.add_shared_memory(app_name=APP, memories=OFFICE_RULES)
        print(f"operator: shared {len(report.outcomes)} office rules with every user of {APP}")

        configured = configured_model()
        runners = {
            name: Runner(
                agent=build_agent(name, configured or scripted(name), role),
                app_name=APP,
                session_service=sessions,
                memory_service=memory,
            )
            for name, role in (
                ("billing", "You handle the user's invoices."),
                ("concierge", "You help the user visit the offices."),
            )
        }

        print("billing agent, turn 1: the user states an invoice preference")
        said = "Please send my Pune invoices as PDF to finance."
        responses, answer = await turn(runners["billing"], sessions, said)
        for name, result in responses:
            print(f"  {name}: {result.get('status')} ({result.get('where')})")
        print(f"  {answer}")

        for agent, question in (
            ("concierge", "Can I visit the Pune office on Friday?"),
            ("billing", "How do I get my Pune invoices?"),
        ):
            print(f"{agent} agent recalls:")
            responses, answer = await turn(runners[agent], sessions, question)
            for name, result in responses:
                if name == "load_memory":
                    for line in str(result.get("memories", "")).splitlines():
                        if line.startswith("[memory") or line.startswith(">"):
                            print(f"  {line}")
            print(f"  {answer}")

        found = await memory.search_memory(app_name=APP, user_id=USER, query="Pune office")
        scopes = sorted({str((m.custom_metadata or {}).get("scope")) for m in found.memories})
        print(f"ADK search_memory (no agent) reads scopes: {', '.join(scopes)}")


if __name__ == "__main__":
    asyncio.run(main())
