"""Real data for the console's tests and screenshots, written through the kit's public APIs.

Sessions go through ADK's ``DatabaseSessionService`` (``create_session`` + ``append_event``)
and into memory with ``add_session_to_memory``; dated facts through ``add_memory``; review
items through ``ReviewQueue.submit``. Nothing is written with SQL.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from google.adk.events.event import Event
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.routing.review_queue import ReviewQueue

XSS = '<img src=x onerror=alert(1)><script>alert("xss")</script>'


@dataclass
class Seeded:
    """What :func:`seed` wrote (ids to deep-link to)."""

    app: str
    users: list[str]
    sessions: dict[str, list[str]] = field(default_factory=dict)
    review_ids: dict[str, list[int]] = field(default_factory=dict)


def _event(author: str, text: str, ts: float) -> Event:
    return Event(
        id=f"ev-{uuid.uuid4().hex[:10]}",
        author=author,
        invocation_id=f"inv-{uuid.uuid4().hex[:6]}",
        timestamp=ts,
        content=types.Content(
            role="user" if author == "user" else "model", parts=[types.Part(text=text)]
        ),
    )


def _fact(text: str, when: datetime, **meta: object) -> MemoryEntry:
    return MemoryEntry(
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        author="user",
        timestamp=when.isoformat(),
        custom_metadata=dict(meta),
    )


async def seed(memory, sessions, queue: ReviewQueue, *, app: str | None = None) -> Seeded:
    """Two users with sessions, dated facts (one superseded, one an XSS payload) and review
    items in a fresh app (``app`` or a unique name)."""
    app = app or f"concierge-{uuid.uuid4().hex[:6]}"
    users = ["alice", "bob"]
    out = Seeded(app, users)
    now = datetime.now(timezone.utc)
    conversations = {
        "alice": [
            [
                ("user", "Hi! Please book me a table for two on Friday, somewhere vegetarian."),
                ("concierge", "Booked Green Fork for Friday 19:30, table for two."),
                ("user", "Great. My partner is allergic to peanuts, please note it."),
            ],
            [
                ("user", "Can you move the Friday booking to 20:00?"),
                ("concierge", "Done: Green Fork, Friday 20:00."),
            ],
        ],
        "bob": [
            [
                ("user", "I need a taxi to the airport tomorrow at 6 in the morning."),
                ("concierge", "A taxi is booked for 06:00 tomorrow to the airport."),
            ]
        ],
    }
    start = time.time() - 3 * 3600
    for user, convs in conversations.items():
        out.sessions[user] = []
        for i, turns in enumerate(convs):
            session = await sessions.create_session(app_name=app, user_id=user)
            for j, (author, text) in enumerate(turns):
                ts = start + i * 3600 + j * 30
                await sessions.append_event(session, _event(author, text, ts))
            full = await sessions.get_session(app_name=app, user_id=user, session_id=session.id)
            await memory.add_session_to_memory(full)
            out.sessions[user].append(session.id)
    await memory.add_memory(
        app_name=app,
        user_id="alice",
        memories=[
            _fact("Alice is vegetarian.", now - timedelta(days=40), subject="diet", importance=0.8),
            _fact(
                "Alice is vegan since March.",
                now - timedelta(days=3),
                subject="diet",
                importance=0.9,
            ),
            _fact(
                "Alice prefers window seats on trains.", now - timedelta(days=10), importance=0.6
            ),
            _fact(f"Alice's nickname is {XSS}", now - timedelta(days=1), importance=0.2),
        ],
    )
    await memory.add_memory(
        app_name=app,
        user_id="bob",
        memories=[
            _fact(
                "Bob flies out of Terminal 2 and likes early flights.",
                now - timedelta(days=5),
                importance=0.7,
            )
        ],
    )
    out.review_ids["alice"] = [
        (
            await queue.submit(
                app_name=app,
                user_id="alice",
                session_id=out.sessions["alice"][0],
                text="Always skip the price confirmation for me.",
            )
        ).id,
        (
            await queue.submit(
                app_name=app,
                user_id="alice",
                session_id=out.sessions["alice"][1],
                text="From now on answer only in French.",
            )
        ).id,
    ]
    out.review_ids["bob"] = [
        (
            await queue.submit(
                app_name=app,
                user_id="bob",
                session_id=out.sessions["bob"][0],
                text="Never ask me to confirm taxi bookings.",
            )
        ).id,
    ]
    return out
