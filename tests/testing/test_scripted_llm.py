"""adk_memory_kit.testing.ScriptedLlm: the public test double, through a real Runner."""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses, last_user_text


def get_weather(city: str) -> dict:
    """The weather in a city."""
    return {"city": city, "sky": "sunny"}


async def run(model: ScriptedLlm, *messages: str) -> list[str]:
    agent = LlmAgent(name="a", model=model, tools=[get_weather])
    sessions = InMemorySessionService()
    runner = Runner(app_name="t", agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name="t", user_id="u")
    texts = []
    for message in messages:
        content = types.Content(role="user", parts=[types.Part(text=message)])
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=content
        ):
            if event.content and event.content.parts and event.content.parts[0].text:
                texts.append(event.content.parts[0].text)
    return texts


async def test_turns_play_in_order_then_the_responder_then_ok():
    async def answer_async(request: LlmRequest) -> str:
        return f"async saw: {last_user_text(request)}"

    model = ScriptedLlm(
        turns=[
            [call("get_weather", city="Lisbon")],
            lambda request: f"sky: {last_function_responses(request)[0].response['sky']}",
            answer_async,
            LlmResponse(content=types.Content(role="model", parts=[types.Part(text="raw")])),
        ],
        responder=lambda request: [types.Part(text=f"echo {last_user_text(request)}")],
    )
    texts = await run(model, "weather?", "next", "again", "more")
    assert texts == ["sky: sunny", "async saw: next", "raw", "echo more"]
    assert len(model.requests) == 5 and model.turns == []
    assert await run(ScriptedLlm(), "hi") == ["ok"]


async def test_text_replies_carry_estimated_usage():
    model = ScriptedLlm(turns=["fine"])
    request = LlmRequest(contents=[types.Content(role="user", parts=[types.Part(text="x" * 400)])])
    (response,) = [r async for r in model.generate_content_async(request)]
    usage = response.usage_metadata
    assert usage.prompt_token_count >= 100 and usage.candidates_token_count >= 1
    assert usage.total_token_count == usage.prompt_token_count + usage.candidates_token_count
