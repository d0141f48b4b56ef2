"""Fixtures shared by the routing tests."""

from __future__ import annotations

import pytest
from google.adk.agents.llm_agent import LlmAgent
from google.adk.sessions.database_session_service import DatabaseSessionService

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.routing import MemoryRoutingPlugin
from adk_memory_kit.testing import ScriptedLlm
from tests.support.memory import unique
from tests.support.routing import Harness


@pytest.fixture
async def harness(db_url, embedder):
    """A started Runner harness for a new user with the default ``MemoryRoutingPlugin()``,
    ADK's ``DatabaseSessionService`` and a ``PgVectorMemoryService``; ``(harness, memory)``."""
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    agent = LlmAgent(name="helper", model=ScriptedLlm(responder=lambda _: "Noted."))
    h = Harness(agent, sessions, memory=memory, plugins=[MemoryRoutingPlugin()], user=unique("u"))
    await h.start()
    yield h, memory
    await memory.close()
    await sessions.close()
