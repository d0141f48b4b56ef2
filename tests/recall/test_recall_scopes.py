"""Recall across memory scopes (issue 47) on a real ADK Runner: ``load_memory`` reads the
calling agent's private memories (never another agent's) and the app's shared ones, and the
framed block marks a shared memory as such."""

from __future__ import annotations

import pytest
from google.adk.agents.llm_agent import LlmAgent
from google.adk.sessions.database_session_service import DatabaseSessionService

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.recall import FramedLoadMemoryTool
from adk_memory_kit.testing import ScriptedLlm
from tests.support.routing import Harness, call

pytestmark = pytest.mark.slow


@pytest.fixture
async def services(db_url, embedder):
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    yield sessions, memory
    await memory.close()
    await sessions.close()


async def _recall(sessions, memory, agent_name: str, seed) -> str:
    query = "Pune office Friday visit"
    model = ScriptedLlm(turns=[[call("load_memory", query=query)], "Noted."])
    agent = LlmAgent(name=agent_name, model=model, tools=[FramedLoadMemoryTool()])
    h = Harness(agent, sessions, memory=memory)
    await seed(h)
    await h.start()
    events = await h.turn("Can I visit the Pune office on Friday?")
    (result,) = [
        r.response for e in events for r in e.get_function_responses() if r.name == "load_memory"
    ]
    return result["memories"]


async def test_load_memory_reads_the_agents_own_and_the_apps_shared_memories(services):
    sessions, memory = services

    async def seed(h: Harness) -> None:
        await memory.add_memory(app_name=h.app, user_id=h.user, memories=[])
        await memory.add_shared_memory(
            app_name=h.app, memories=["The Pune office is closed on Fridays"]
        )
        for agent in ("travel", "billing"):
            await memory.add_agent_memory(
                app_name=h.app,
                user_id=h.user,
                agent_name=agent,
                memories=[f"{agent} note: the user's Pune office Friday visit"],
            )

    block = await _recall(sessions, memory, "travel", seed)
    assert "> The Pune office is closed on Fridays" in block
    assert "| shared by the app" in block
    assert "> travel note: the user's Pune office Friday visit" in block
    assert "private to this agent" in block
    assert "billing note" not in block
