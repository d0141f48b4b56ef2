"""Events as a session holds them, for the write policy's tests: one per turn, numbered."""

from __future__ import annotations

from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.genai import types


def ev(author: str, said: str, n: int, metadata: dict | None = None, **actions) -> Event:
    """Turn ``n``: ``said`` by ``author`` (``user`` or the agent), with state/other actions."""
    return Event(
        custom_metadata=metadata,
        id=f"e{n}",
        invocation_id=f"i{n}",
        author=author,
        timestamp=1_700_000_000 + n,
        content=types.Content(
            role="user" if author == "user" else "model", parts=[types.Part(text=said)]
        ),
        actions=EventActions(**actions),
    )


def tool_result(name: str, response: dict, n: int) -> Event:
    """Turn ``n``: a tool's response to the agent."""
    part = types.Part(function_response=types.FunctionResponse(name=name, response=response))
    return Event(
        id=f"e{n}",
        invocation_id=f"i{n}",
        author="agent",
        timestamp=1_700_000_000 + n,
        content=types.Content(role="user", parts=[part]),
    )


def tool_call(name: str, args: dict, n: int, invocation: str) -> Event:
    """Turn ``n``: the agent's call of a tool, in the invocation ``invocation``."""
    part = types.Part(function_call=types.FunctionCall(name=name, args=args))
    return Event(
        id=f"e{n}",
        invocation_id=invocation,
        author="agent",
        timestamp=1_700_000_000 + n,
        content=types.Content(role="model", parts=[part]),
    )
