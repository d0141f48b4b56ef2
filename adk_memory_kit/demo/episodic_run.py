"""Demo section: the trace and cost of a short traced run, read back from the episodic log."""

from __future__ import annotations

from google.adk.apps.app import App
from google.adk.models.base_llm import BaseLlm
from google.adk.runners import Runner
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.genai import types

from adk_memory_kit.demo.console import note, step
from adk_memory_kit.demo.research import build_research_agent
from adk_memory_kit.episodic import EpisodicLog, EpisodicLogPlugin, PriceTable
from adk_memory_kit.episodic.report import format_costs, format_timeline, money

APP = "research_assistant"
QUESTIONS = ("EV battery recycling market size", "sodium-ion battery competitors", "Summarize")
WHAT_IF_MODEL = "gemini-2.5-flash"


def _indent(text: str) -> None:
    for line in text.splitlines():
        print(f"   {line}")


async def show_trace_and_cost(db_url: str, model: str | BaseLlm, user_id: str) -> int:
    """Run three research turns with ``EpisodicLogPlugin``; print the timeline and the cost
    table from the log. Returns the number of log entries of the session."""
    log = EpisodicLog(db_url)
    sessions = DatabaseSessionService(db_url=db_url)
    app = App(name=APP, root_agent=build_research_agent(model), plugins=[EpisodicLogPlugin(log)])
    runner = Runner(app=app, session_service=sessions)
    try:
        session = await sessions.create_session(app_name=APP, user_id=user_id)
        step(f"TRACED: {len(QUESTIONS)} research turns with EpisodicLogPlugin")
        for question in QUESTIONS:
            message = types.Content(role="user", parts=[types.Part(text=question)])
            async for _ in runner.run_async(
                user_id=user_id, session_id=session.id, new_message=message
            ):
                pass
        await log.flush()  # write what the plugin queued
        trace = await log.trace(APP, user_id, session.id)
        step("the session's timeline (adk-memory-kit trace)")
        _indent(format_timeline(trace))
        summary = await log.cost_summary(APP, user_id=user_id, session_id=session.id)
        step("its costs (adk-memory-kit costs)")
        _indent(format_costs(summary))
        total = summary.total
        if total.unpriced_calls:
            what_if = PriceTable().cost(WHAT_IF_MODEL, total.input_tokens, total.output_tokens)
            note(
                f"cost 'unknown': this model has no price in the table, and the kit does "
                f"not guess. For comparison only, the same tokens at {WHAT_IF_MODEL} list "
                f"prices would cost {money(what_if)}."
            )
        note("Look again later with:")
        print(f"     adk-memory-kit trace --app {APP} --session {session.id}")
        print(f"     adk-memory-kit costs --app {APP} --user {user_id}")
        return len(trace)
    finally:
        await runner.close()
        await log.close()
        await sessions.close()
