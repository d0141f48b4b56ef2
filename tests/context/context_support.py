"""Shared helpers for the context tests: a scripted agent with a bulky tool, run on a Runner."""

from __future__ import annotations

from collections.abc import Sequence

from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import Runner
from google.genai import types

from adk_memory_kit.pruning import estimate_request_tokens
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses, last_user_text

TOOL_MARK = "[fetch "


def fetch_report(page: int, size: int) -> dict:
    """Return a bulky report page (size ~ tokens)."""
    filler = f"Row {page}: measurements nominal, no change versus baseline. "
    return {"page": page, "body": (filler * (size * 4 // len(filler) + 1))[: size * 4]}


def responder(request: LlmRequest) -> Sequence[types.Part] | str:
    """Call ``fetch_report`` when the user says ``[fetch N S]``, else answer briefly."""
    if last_function_responses(request):
        return "I read the report page; nothing unusual."
    text = last_user_text(request)
    if TOOL_MARK in text:
        page, size = text.split(TOOL_MARK, 1)[1].split("]", 1)[0].split()
        return [call("fetch_report", page=int(page), size=int(size))]
    return "Understood, noted."


def make_app(name: str, *, plugins=(), instruction: str = "Help the user.", **agent_kw):
    llm = ScriptedLlm(responder=responder)
    agent = LlmAgent(
        name="assistant", model=llm, instruction=instruction, tools=[fetch_report], **agent_kw
    )
    return App(name=name, root_agent=agent, plugins=list(plugins)), llm


async def run_turn(runner: Runner, user_id: str, session_id: str, text: str) -> None:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for _ in runner.run_async(user_id=user_id, session_id=session_id, new_message=message):
        pass


def pairs_intact(contents: Sequence[types.Content]) -> bool:
    """Every function response has its call earlier, every call its response later."""
    calls: dict[str, int] = {}
    answered: set[str] = set()
    for index, content in enumerate(contents):
        for part in content.parts or ():
            if part.function_call is not None:
                calls[part.function_call.id or part.function_call.name] = index
            if part.function_response is not None:
                key = part.function_response.id or part.function_response.name
                if key not in calls or calls[key] >= index:
                    return False
                answered.add(key)
    return set(calls) <= answered


def request_tokens(request: LlmRequest) -> int:
    return estimate_request_tokens(request)


def request_text(request: LlmRequest) -> str:
    """All text the request carries (instruction, contents, payloads), for value checks."""
    chunks = [str(request.config.system_instruction or "")]
    for content in request.contents or ():
        for part in content.parts or ():
            chunks.append(part.text or "")
            if part.function_response is not None:
                chunks.append(str(part.function_response.response))
    return "\n".join(chunks)
