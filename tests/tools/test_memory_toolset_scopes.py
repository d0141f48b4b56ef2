"""MemoryToolset and memory scopes (issue 47) on a real Runner: ``remember_for_agent`` keeps
a note only the calling agent recalls; no memory tool can write a shared row."""

from __future__ import annotations

import pytest
from google.adk.agents.llm_agent import LlmAgent
from google.adk.sessions.database_session_service import DatabaseSessionService

from adk_memory_kit import MemoryToolset, PgVectorMemoryService
from adk_memory_kit.core.tool_names import AGENT_NOTE_TOOL_NAME, MEMORY_TOOL_NAMES
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses
from tests.support.routing import Harness, unique

pytestmark = pytest.mark.slow


@pytest.fixture
async def services(db_url, embedder):
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    yield sessions, memory
    await memory.close()
    await sessions.close()


async def _run(sessions, memory, app: str, agent_name: str, *calls) -> list[dict]:
    model = ScriptedLlm(turns=[*([c] for c in calls), "Done."])
    agent = LlmAgent(name=agent_name, model=model, tools=[MemoryToolset(agent_notes=True)])
    h = await Harness(agent, sessions, memory=memory, app=app).start()
    await h.turn("Go on.")
    return [
        r.response
        for i in range(1, len(calls) + 1)
        for r in last_function_responses(model.requests[i])
    ]


async def test_an_agents_note_is_recalled_by_that_agent_only(services):
    sessions, memory = services
    app = unique("toolscopes")
    note = "The user wants invoices by email in PDF"
    (stored,) = await _run(
        sessions, memory, app, "billing", call(AGENT_NOTE_TOOL_NAME, text=note, importance=0.6)
    )
    assert stored["status"] == "stored" and stored["home"] == "agent_memory"
    (own,) = await _run(sessions, memory, app, "billing", call("recall", query="invoices email"))
    assert [(m["text"], m["scope"]) for m in own["memories"]] == [(note, "private to this agent")]
    (other,) = await _run(sessions, memory, app, "travel", call("recall", query="invoices email"))
    assert other["memories"] == []
    found = await memory.search_memory(app_name=app, user_id="u1", query="invoices email")
    assert not found.memories  # ADK's search (no agent) never reads an agent's notes


async def test_a_sensitive_note_is_dropped_and_the_tool_is_opt_in(services):
    sessions, memory = services
    (dropped,) = await _run(
        sessions,
        memory,
        unique("toolscopes"),
        "billing",
        call(AGENT_NOTE_TOOL_NAME, text="My card is 4111 1111 1111 1111"),
    )
    assert dropped["status"] == "dropped"
    assert {t.name for t in await MemoryToolset().get_tools()} == set(MEMORY_TOOL_NAMES)
    names = {t.name for t in await MemoryToolset(agent_notes=True).get_tools()}
    assert names == {*MEMORY_TOOL_NAMES, AGENT_NOTE_TOOL_NAME}
