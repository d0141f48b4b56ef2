"""ADK's own MCP client: an ``McpToolset`` on the server's streamable HTTP endpoint, called by a
scripted model through ADK's real ``Runner`` (what an ADK agent in any language does)."""

from __future__ import annotations

import pytest
from google.adk.agents.llm_agent import LlmAgent
from google.adk.runners import Runner
from google.adk.sessions.in_memory_session_service import InMemorySessionService
from google.adk.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams
from google.genai import types

from adk_memory_kit.recall import RECALL_TAG
from adk_memory_kit.testing import ScriptedLlm, call
from tests.mcp.support import http_session, payload

pytestmark = pytest.mark.slow  # Postgres, a server and a Runner


async def test_an_adk_agent_lists_and_calls_the_tools_through_mcp_toolset(http_url, tokens):
    async with http_session(http_url, tokens["alice"]) as session:
        stored = payload(
            await session.call_tool("remember", {"statement": "My favourite opera is Tosca."})
        )
        assert stored["status"] == "stored"
    toolset = McpToolset(
        connection_params=StreamableHTTPConnectionParams(
            url=http_url, headers={"Authorization": f"Bearer {tokens['alice']}"}
        ),
        tool_filter=["search_memory", "remember"],
    )
    try:
        listed = {t.name for t in await toolset.get_tools()}
        assert listed == {"search_memory", "remember"}
        model = ScriptedLlm(
            turns=[[call("search_memory", query="favourite opera", user_id="bob")], "Tosca."]
        )
        agent = LlmAgent(name="assistant", model=model, tools=[toolset])
        sessions = InMemorySessionService()
        runner = Runner(agent=agent, app_name="any-client-app", session_service=sessions)
        session = await sessions.create_session(app_name="any-client-app", user_id="bob")
        message = types.Content(role="user", parts=[types.Part(text="What opera do I like?")])
        events = [
            e
            async for e in runner.run_async(
                user_id="bob", session_id=session.id, new_message=message
            )
        ]
    finally:
        await toolset.close()
    responses = [
        r.response for e in events for r in e.get_function_responses() if r.name == "search_memory"
    ]
    assert len(responses) == 1
    text = str(responses[0])
    # the token's user (alice), not the ADK session's user or the forged argument (bob)
    assert f"<{RECALL_TAG}>" in text and "Tosca" in text, text[:500]
    assert events[-1].content.parts[0].text == "Tosca."
