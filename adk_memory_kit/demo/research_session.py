"""A research session with bulky tool results: request tokens per turn, with and without pruning."""

from __future__ import annotations

from google.adk.models.base_llm import BaseLlm
from google.adk.runners import Runner
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.genai import types

from adk_memory_kit.demo.console import note, show_table, step
from adk_memory_kit.demo.research import build_research_agent
from adk_memory_kit.pruning import PruneStaleToolPayloads

QUESTIONS = [
    "EV battery recycling market size",
    "solid-state battery pricing",
    "sodium-ion battery competitors",
    "EU battery regulation",
    "battery passport adoption",
    "lithium supply risks",
    "second-life battery storage",
    "recycling plant economics",
    "cathode chemistry trends",
    "battery recycling startups",
    "black mass pricing",
    "Summarize my findings",
]


async def run_research_session(db_url: str, model: str | BaseLlm, user_id: str) -> list[tuple]:
    """Run the session; print and return (turn, calls, tokens without, tokens with, saved %)."""
    pruner = PruneStaleToolPayloads(prunable={"web_search"}, keep_recent=4)
    agent = build_research_agent(model, pruner=pruner)
    sessions = DatabaseSessionService(db_url=db_url)
    runner = Runner(agent=agent, app_name="research_assistant", session_service=sessions)
    rows: list[tuple] = []
    try:
        session = await sessions.create_session(app_name="research_assistant", user_id=user_id)
        step(f"RESEARCH: {len(QUESTIONS)} turns, each web_search returns ~2,000 tokens")
        for turn, question in enumerate(QUESTIONS, start=1):
            seen = len(pruner.report)
            message = types.Content(role="user", parts=[types.Part(text=question)])
            async for _ in runner.run_async(
                user_id=user_id, session_id=session.id, new_message=message
            ):
                pass
            calls = pruner.report.records()[seen:]
            last = calls[-1]
            saved = 100 * (1 - last.tokens_after / last.tokens_before)
            rows.append((turn, len(calls), last.tokens_before, last.tokens_after, f"{saved:.0f}%"))
        show_table(
            rows, ("turn", "model calls", "tokens without pruning", "tokens with pruning", "saved")
        )
        stored = await sessions.get_session(
            app_name="research_assistant", user_id=user_id, session_id=session.id
        )
        raw = len(
            [
                p
                for e in (stored.events if stored is not None else [])
                for p in (e.content.parts if e.content else None) or []
                if p.function_response
                and p.function_response.name == "web_search"
                and "results" in (p.function_response.response or {})
            ]
        )
        note(
            f"stored session events untouched: {raw} raw web_search results still in the "
            "database; only the outgoing requests were pruned."
        )
        return rows
    finally:
        await runner.close()
        await sessions.close()
