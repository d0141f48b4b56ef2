"""Helpers for the pruning tests: content builders, a real callback context, scripted models.

This module holds no tests; the pruning test modules import it by name.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.invocation_context import InvocationContext
from google.adk.models.llm_request import LlmRequest
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_memory_kit.testing import ScriptedLlm

ROOT = Path(__file__).resolve().parents[2]


def big_text(tokens: int, seed: str = "x") -> str:
    """Deterministic text of exactly ``tokens * 4`` characters."""
    unit = f"{seed} lorem ipsum dolor sit amet "
    return (unit * (tokens * 4 // len(unit) + 1))[: tokens * 4]


def call(name: str, call_id: str | None, **args: Any) -> types.Content:
    """A model content with one function call."""
    fc = types.FunctionCall(id=call_id, name=name, args=args)
    return types.Content(role="model", parts=[types.Part(function_call=fc)])


def response(name: str | None, call_id: str | None, payload: Any) -> types.Content:
    """A user content with one function response (payload stored as given, unvalidated)."""
    fr = types.FunctionResponse(id=call_id, name=name, response={})
    fr.response = payload  # bypasses validation so tests can build malformed payloads
    return types.Content(role="user", parts=[types.Part(function_response=fr)])


def user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def model(text: str) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=text)])


def research_contents(searches: int, tokens: int = 1000) -> list[types.Content]:
    """user, then ``searches`` x (web_search call/response, save_finding call/response)."""
    contents = [user("research the topic")]
    for i in range(searches):
        contents.append(call("web_search", f"s{i}", query=f"q{i}"))
        contents.append(response("web_search", f"s{i}", {"result": big_text(tokens, f"r{i}")}))
        contents.append(call("save_finding", f"f{i}", summary=f"finding {i}"))
        contents.append(response("save_finding", f"f{i}", {"status": "saved", "total": i + 1}))
    return contents


def dump(contents: list[types.Content]) -> str:
    """Canonical JSON of a content list (for byte-level comparisons)."""
    return json.dumps(
        [c.model_dump(mode="json", exclude_none=True) for c in contents], sort_keys=True
    )


def responses(contents: list[types.Content]) -> list[types.FunctionResponse]:
    return [p.function_response for c in contents for p in c.parts or () if p.function_response]


def is_tombstone(fr: types.FunctionResponse) -> bool:
    return isinstance(fr.response, dict) and fr.response.get("status") == "pruned"


async def make_context() -> CallbackContext:
    """A real ADK callback context over a fresh in-memory session."""
    service = InMemorySessionService()
    session = await service.create_session(app_name="t", user_id="u")
    agent = LlmAgent(name="a", model=ScriptedLlm())
    invocation = InvocationContext(
        session_service=service, invocation_id="inv-1", agent=agent, session=session
    )
    return CallbackContext(invocation)


def request_of(contents: list[types.Content], instruction: str | None = None) -> LlmRequest:
    config = types.GenerateContentConfig(system_instruction=instruction)
    return LlmRequest(contents=list(contents), config=config)


def load_benchmark() -> ModuleType:
    """Import ``benchmarks/pruning.py`` as a module."""
    name = "adk_memory_kit_pruning_benchmark"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "pruning.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
