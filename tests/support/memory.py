"""Small builders for memory tests: ADK sessions and events with real content."""

from __future__ import annotations

import itertools
import time
import uuid

from google.adk.events.event import Event
from google.adk.sessions.session import Session
from google.genai import types
from sqlalchemy import text as sql

from adk_memory_kit.db.rls import operator_connect
from tests.support.ids import unique as unique  # re-exported: tests import it from here

_counter = itertools.count()


def text_event(author: str, text: str, *, ts: float | None = None, event_id: str | None = None):
    role = "user" if author == "user" else "model"
    return Event(
        id=event_id or f"ev-{next(_counter)}-{uuid.uuid4().hex[:6]}",
        author=author,
        invocation_id="inv-1",
        timestamp=ts if ts is not None else time.time(),
        content=types.Content(role=role, parts=[types.Part(text=text)]),
    )


def session_with(app: str, user: str, turns: list[tuple[str, str]], sid: str | None = None):
    return Session(
        id=sid or unique("s"),
        app_name=app,
        user_id=user,
        events=[text_event(a, t) for a, t in turns],
    )


def texts(response) -> list[str]:
    return [" ".join(p.text or "" for p in m.content.parts) for m in response.memories]


async def stored_rows(service, app: str, user: str) -> list[dict]:
    """The user's stored rows as the table holds them (text, search_text, context_text),
    oldest first; read as the operator, past row-level security."""
    async with operator_connect(service.engine) as conn:
        found = await conn.execute(
            sql(
                "SELECT text, search_text, context_text FROM adk_memory_items"
                " WHERE app_name = :a AND user_id = :u ORDER BY event_time, event_id"
            ),
            {"a": app, "u": user},
        )
        return [dict(r) for r in found.mappings()]


_PETS = ["parrot", "gecko", "ferret", "goldfish", "tortoise", "hamster", "rabbit", "canary"]


def pet_facts(n: int) -> list:
    """``n`` distinct one-line facts as ``MemoryEntry`` objects (a user grown to a size)."""
    from google.adk.memory.memory_entry import MemoryEntry

    return [
        MemoryEntry(
            content=types.Content(
                role="user",
                parts=[
                    types.Part(text=f"Note {i}: my {_PETS[i % len(_PETS)]} ate {i} seeds today.")
                ],
            )
        )
        for i in range(n)
    ]
