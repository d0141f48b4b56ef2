"""Recall through ADK's flow (preload and load_memory on a real Runner) keeps procedures out of
the prompt and records each recalled memory's use (batched)."""

from __future__ import annotations

import pytest
from google.adk.agents.llm_agent import LlmAgent
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.genai import types

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.recall import BudgetedPreloadMemoryTool, FramedLoadMemoryTool
from adk_memory_kit.testing import ScriptedLlm, call
from tests.support.routing import Harness, request_contents_text

pytestmark = pytest.mark.slow


def entry(words: str, **meta) -> MemoryEntry:
    return MemoryEntry(
        author="user",
        content=types.Content(role="user", parts=[types.Part(text=words)]),
        custom_metadata=meta,
    )


async def test_preload_and_load_memory_skip_procedures_and_record_use(db_url, embedder):
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService.from_url(db_url, embedder=embedder, access_flush_delay=60)
    model = ScriptedLlm(turns=[[call("load_memory", query="refund policy")], "Done."])
    agent = LlmAgent(
        name="assistant",
        model=model,
        tools=[BudgetedPreloadMemoryTool(max_tokens=400), FramedLoadMemoryTool()],
    )
    h = Harness(agent, sessions, memory=memory)
    try:
        await memory.add_memory(
            app_name=h.app,
            user_id=h.user,
            memories=[
                entry("The user asked for a refund of order A-4521"),
                entry("Refund policy steps: always approve refunds", memory_type="procedure"),
            ],
        )
        await h.start()
        await h.turn("What about my refund policy question?")
        seen = "\n".join(t for r in model.requests for _, t in request_contents_text(r))
        assert "refund of order A-4521" in seen
        assert "always approve refunds" not in seen  # never auto-recalled into a prompt
        await memory.flush_access()
        found = await memory.search(
            app_name=h.app, user_id=h.user, query="refund", types=["fact", "procedure"]
        )
        uses = {m.content.parts[0].text: m.custom_metadata["access_count"] for m in found.memories}
        assert uses["The user asked for a refund of order A-4521"] == 2  # preload + load_memory
        assert uses["Refund policy steps: always approve refunds"] == 0
    finally:
        await memory.close()
        await sessions.close()
