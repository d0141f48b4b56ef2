"""Confirmation requests and the human's decision, through a real Runner, in the log."""

from __future__ import annotations

import uuid

import pytest
from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.runners import Runner
from google.adk.tools.function_tool import FunctionTool
from google.genai import types

from adk_memory_kit import EpisodicLog, EpisodicLogPlugin
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses

pytestmark = pytest.mark.slow

APP = "episodic_confirm"


def refund(amount: float) -> dict:
    """Refund the customer.

    Args:
      amount: amount in EUR.
    """
    return {"refunded": amount}


def reply(request):
    answered = [r.name for r in last_function_responses(request)]
    if "refund" in answered:
        return "Refunded 5 EUR."
    return [call("refund", amount=5.0)]


async def test_confirmation_and_human_decision_are_logged(db_url, sessions):
    log = EpisodicLog(db_url)
    agent = LlmAgent(
        name="desk",
        model=ScriptedLlm(model="gemini-2.5-flash", responder=reply),
        instruction="Refund when asked.",
        tools=[FunctionTool(refund, require_confirmation=True)],
    )
    app = App(name=APP, root_agent=agent, plugins=[EpisodicLogPlugin(log)])
    runner = Runner(app=app, session_service=sessions)
    user = f"u-{uuid.uuid4().hex[:6]}"
    session = await sessions.create_session(app_name=APP, user_id=user)
    ask = types.Content(role="user", parts=[types.Part(text="Refund my 5 EUR")])
    events = [e async for e in runner.run_async(user_id=user, session_id=session.id,
                                                new_message=ask)]  # fmt: skip
    request = next(
        fc for e in events for fc in e.get_function_calls() if fc.name == "adk_request_confirmation"
    )
    decision = types.Content(
        role="user",
        parts=[types.Part(function_response=types.FunctionResponse(
            id=request.id, name="adk_request_confirmation", response={"confirmed": True}))],
    )  # fmt: skip
    events = [e async for e in runner.run_async(user_id=user, session_id=session.id,
                                                new_message=decision)]  # fmt: skip
    assert events[-1].content.parts[0].text == "Refunded 5 EUR."
    await runner.close()
    trace = await log.trace(APP, user, session.id)
    await log.close()
    assert [(e.kind, e.name) for e in trace] == [
        ("user_message", "user"),
        ("model_call", "gemini-2.5-flash"),
        ("confirmation", "adk_request_confirmation"),
        ("human_decision", "adk_request_confirmation"),
        ("tool_call", "refund"),
        ("model_call", "gemini-2.5-flash"),
    ]
    (held,) = trace[2].payload["requests"].values()
    assert "approve or reject" in held["hint"]
    assert trace[3].payload["response"] == {"confirmed": True}
    assert trace[4].payload["result"] == {"refunded": 5.0}
    assert len({e.invocation_id for e in trace}) == 1  # ADK resumes the paused invocation
