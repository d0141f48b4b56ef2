"""Shared helpers for the routing and recall tests: a scripted model and a Runner harness.

Holds no tests itself; the ``test_routing_*`` and ``test_recall_*`` modules import it.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from typing import Any

from google.adk.agents.llm_agent import LlmAgent
from google.adk.apps.app import App
from google.adk.events.event import Event
from google.adk.memory.base_memory_service import BaseMemoryService
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.models.llm_request import LlmRequest
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import Runner
from google.adk.sessions import BaseSessionService
from google.genai import types

from tests.support import ids


def call(tool: str, /, **args: Any) -> types.Part:
    return types.Part(function_call=types.FunctionCall(name=tool, args=args))


def unique(prefix: str) -> str:
    return ids.unique(prefix, "_")


def user_event(text: str, *, ts: float | None = None, invocation_id: str = "inv-1") -> Event:
    return Event(
        id=uuid.uuid4().hex,
        author="user",
        invocation_id=invocation_id,
        timestamp=ts if ts is not None else time.time(),
        content=types.Content(role="user", parts=[types.Part(text=text)]),
    )


def model_event(text: str, *, ts: float | None = None, invocation_id: str = "inv-1") -> Event:
    return Event(
        id=uuid.uuid4().hex,
        author="assistant",
        invocation_id=invocation_id,
        timestamp=ts if ts is not None else time.time(),
        content=types.Content(role="model", parts=[types.Part(text=text)]),
    )


def facts_json(*facts: dict[str, Any]) -> str:
    """A valid ExtractionOutput JSON document (every flag defaults to false)."""
    flags = dict(
        exact_value=False,
        about_user=False,
        needed_later_this_session=False,
        needed_in_future_sessions=False,
        changes_agent_behaviour=False,
        sensitive=False,
    )
    return json.dumps({"facts": [{**flags, **f} for f in facts]})


def request_contents_text(request: LlmRequest) -> list[tuple[str, str]]:
    """(role, text) of every content in the request."""
    return [
        (c.role or "", "\n".join(p.text for p in c.parts or [] if p.text)) for c in request.contents
    ]


class Harness:
    """A real ADK Runner over one app/user, with any session and memory service."""

    def __init__(
        self,
        agent: LlmAgent,
        sessions: BaseSessionService,
        *,
        memory: BaseMemoryService | None = None,
        plugins: Sequence[BasePlugin] = (),
        app: str | None = None,
        user: str = "u1",
    ) -> None:
        self.app = app or unique("app")
        self.user = user
        self.sessions = sessions
        self.runner = Runner(
            app=App(name=self.app, root_agent=agent, plugins=list(plugins)),
            session_service=sessions,
            memory_service=memory,
        )
        self.session_id: str | None = None

    async def start(self, state: dict[str, Any] | None = None) -> Harness:
        session = await self.sessions.create_session(
            app_name=self.app, user_id=self.user, state=state
        )
        self.session_id = session.id
        return self

    async def turn(self, text: str) -> list[Event]:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        return [
            e
            async for e in self.runner.run_async(
                user_id=self.user, session_id=self.session_id, new_message=message
            )
        ]

    async def state(self) -> dict[str, Any]:
        session = await self.sessions.get_session(
            app_name=self.app, user_id=self.user, session_id=self.session_id
        )
        return dict(session.state)


def make_context(
    *,
    app: str,
    user: str = "u1",
    state: dict[str, Any] | None = None,
    memory: BaseMemoryService | None = None,
    user_text: str | None = None,
    session_id: str | None = None,
):
    """A real ADK ``Context`` over an in-memory session (as a callback or tool receives it)."""
    from google.adk.agents.context import Context
    from google.adk.agents.invocation_context import InvocationContext
    from google.adk.sessions import InMemorySessionService
    from google.adk.sessions.session import Session

    session = Session(
        id=session_id or unique("s"), app_name=app, user_id=user, state=dict(state or {})
    )
    content = types.Content(role="user", parts=[types.Part(text=user_text)]) if user_text else None
    invocation = InvocationContext(
        session_service=InMemorySessionService(),
        memory_service=memory,
        invocation_id=unique("inv"),
        session=session,
        user_content=content,
    )
    return Context(invocation)


def memory_entry(
    text: str, when: str | None, *, subject: str | None = None, superseded: str | None = None
):
    """A MemoryEntry as a memory service returns it."""
    from google.adk.memory.memory_entry import MemoryEntry

    meta: dict[str, Any] = {}
    if subject:
        meta["subject"] = subject
    if superseded:
        meta["superseded_at"] = superseded
    return MemoryEntry(
        id=unique("m"),
        author="user",
        timestamp=when,
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        custom_metadata=meta,
    )


async def store_facts(memory: Any, app: str, user: str, texts: Sequence[str], when: Any) -> None:
    """Each fact stored on its own, as the router stores facts said in different turns (one
    ``add_memory`` call would index them as neighbouring turns of one conversation, each with
    the others' words as context)."""
    for fact in texts:
        entry = MemoryEntry(
            author="user",
            timestamp=when.isoformat(),
            content=types.Content(role="user", parts=[types.Part(text=fact)]),
            custom_metadata={"kind": "fact", "source": "routing"},
        )
        await memory.add_memory(app_name=app, user_id=user, memories=[entry])


def texts_of(found: Any) -> list[str]:
    """The texts of a ``SearchMemoryResponse``'s memories, best first."""
    return [" ".join(p.text or "" for p in m.content.parts) for m in found.memories]
