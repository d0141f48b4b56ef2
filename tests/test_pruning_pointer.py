"""The default tombstone names the findings tool only when the agent actually has it."""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.runners import InMemoryRunner
from google.genai import types

from adk_memory_kit import PruneStaleToolPayloads
from adk_memory_kit.scripted import ScriptedLlm, call, last_function_responses


def web_search(query: str) -> dict:
    """Search the web."""
    return {"query": query, "text": f"{query} " + "lorem ipsum dolor sit amet " * 300}


def get_findings() -> dict:
    """Saved findings."""
    return {"findings": []}


def _searcher(request):
    if last_function_responses(request):
        return "done"
    return [call("web_search", query=f"q{len(request.contents)}")]


async def _tombstones(tools) -> list[dict]:
    model = ScriptedLlm(responder=_searcher)
    agent = LlmAgent(
        name="a",
        model=model,
        tools=tools,
        before_model_callback=PruneStaleToolPayloads({"web_search"}, keep_recent=2),
    )
    runner = InMemoryRunner(agent=agent, app_name="p")
    session = await runner.session_service.create_session(app_name="p", user_id="u")
    for turn in range(3):
        message = types.Content(role="user", parts=[types.Part(text=f"search {turn}")])
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            pass
    return [
        p.function_response.response
        for c in model.requests[-1].contents
        for p in c.parts or []
        if p.function_response and (p.function_response.response or {}).get("status") == "pruned"
    ]


async def test_pointer_to_a_findings_tool_the_agent_has():
    stones = await _tombstones([web_search, get_findings])
    assert stones and all("Call get_findings" in s["note"] for s in stones)


async def test_no_pointer_to_a_tool_the_agent_lacks():
    stones = await _tombstones([web_search])
    assert stones and all("get_findings" not in s["note"] for s in stones)
