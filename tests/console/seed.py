"""Real data for the console's tests and screenshots, written through the kit's public APIs.

Sessions go through ADK's ``DatabaseSessionService`` (``create_session`` + ``append_event``)
and into memory with ``add_session_to_memory``; dated facts through ``add_memory``; review
items through ``ReviewQueue.submit``; a correction and a pin through ``correct_memory`` and
``pin_memory``. With an ``EpisodicLog``, one conversation of each user runs through ADK's
real ``Runner`` with ``EpisodicLogPlugin`` and ``ScriptedLlm`` models (a tool error, a
retry, a transfer to a second agent on another model), so traces and costs are real; earlier
days' model calls are appended with ``EpisodicLog.append`` at their own times. Nothing is
written with SQL.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from google.adk.agents import LlmAgent
from google.adk.events.event import Event
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.models.llm_request import LlmRequest
from google.adk.plugins.reflect_retry_tool_plugin import ReflectAndRetryToolPlugin
from google.adk.runners import Runner
from google.genai import types

from adk_memory_kit import EpisodicLog, EpisodicLogPlugin
from adk_memory_kit.episodic import PendingEntry
from adk_memory_kit.routing.review_queue import ReviewQueue
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses, last_user_text

XSS = '<img src=x onerror=alert(1)><script>alert("xss")</script>'


@dataclass
class Seeded:
    """What :func:`seed` wrote (ids to deep-link to)."""

    app: str
    users: list[str]
    sessions: dict[str, list[str]] = field(default_factory=dict)
    review_ids: dict[str, list[int]] = field(default_factory=dict)
    traced: dict[str, str] = field(default_factory=dict)  # user -> session run with the log
    corrected: str | None = None  # the id of alice's superseded diet fact
    pinned: str | None = None  # the id of alice's pinned fact


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


async def seed(
    memory,
    sessions,
    queue: ReviewQueue,
    *,
    app: str | None = None,
    log: EpisodicLog | None = None,
) -> Seeded:
    """Two users with sessions, dated, typed and tagged facts (one superseded by a
    consolidation, one corrected, one pinned, one an XSS payload) and review items in a fresh
    app (``app`` or a unique name); with ``log``, traced runs and earlier days' costs."""
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
            _fact(
                "Alice is vegetarian.",
                now - timedelta(days=40),
                subject="diet",
                importance=0.8,
                memory_type="preference",
                tags=["food"],
            ),
            _fact(
                "Alice is vegan since March.",
                now - timedelta(days=3),
                subject="diet",
                importance=0.9,
                memory_type="preference",
                tags=["food"],
            ),
            _fact(
                "Alice prefers window seats on trains.",
                now - timedelta(days=10),
                importance=0.6,
                memory_type="preference",
                tags=["travel"],
            ),
            _fact(
                "Alice's billing address is 12 Rue Verte, Lyon.",
                now - timedelta(days=20),
                importance=0.7,
                tags=["billing"],
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
    found = await memory.search(
        app_name=app, user_id="alice", query="billing address", types=["fact"], limit=1
    )
    out.pinned = found.memories[0].id
    await memory.curator.pin_memory(
        app_name=app, user_id="alice", memory_id=out.pinned, reason="needed for invoices"
    )
    found = await memory.search(
        app_name=app, user_id="alice", query="window seats trains", tags=["travel"], limit=1
    )
    fixed = await memory.curator.correct_memory(
        app_name=app,
        user_id="alice",
        memory_id=found.memories[0].id,
        new_text="Alice prefers aisle seats on trains.",
        reason="she asked for aisle seats on 2 trips",
        by="dana",
    )
    out.corrected = fixed.old_id
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
    if log is not None:
        for user, task in (("alice", ALICE_TASK), ("bob", BOB_TASK)):
            out.traced[user] = await _traced_run(sessions, memory, log, app, user, task)
            out.sessions[user].append(out.traced[user])
        _earlier_days(log, app, now)
        await log.flush()
    return out


ALICE_TASK = "Book Green Fork for two on Friday at 20:00 and pay the deposit."
BOB_TASK = "Find me a table near Terminal 2 tonight."


def find_table(area: str, party: int) -> dict:
    """Find restaurants with a free table.

    Args:
      area: the neighbourhood.
      party: how many people.
    """
    return {"options": ["Green Fork", "Blue Door"], "area": area, "party": party}


def book_table(restaurant: str, time: str, party: int) -> dict:
    """Book a table.

    Args:
      restaurant: the restaurant.
      time: day and time.
      party: how many people.
    """
    return {"booked": True, "restaurant": restaurant, "time": time, "ref": "GF-2041"}


def pay_deposit(booking_ref: str, amount_eur: float) -> dict:
    """Pay a deposit (the payment gateway is down: always fails).

    Args:
      booking_ref: the booking reference.
      amount_eur: the amount in EUR.
    """
    raise ConnectionError("payment gateway timed out")


def _concierge(request: LlmRequest):
    done = [r.name for r in last_function_responses(request)]
    if not done:
        if "Terminal 2" in last_user_text(request):
            return [call("find_table", area="Terminal 2", party=1)]
        return [call("find_table", area="Croix-Rousse", party=2)]
    if "find_table" in done and "Terminal 2" not in last_user_text(request):
        return [call("book_table", restaurant="Green Fork", time="Friday 20:00", party=2)]
    if "find_table" in done:
        return "Blue Door near Terminal 2 has a free table tonight."
    if "book_table" in done:
        return [call("pay_deposit", booking_ref="GF-2041", amount_eur=20.0)]
    return [call("transfer_to_agent", agent_name="billing")]


def _agents() -> LlmAgent:
    billing = LlmAgent(
        name="billing",
        model=ScriptedLlm(
            model="gemini-2.5-pro",
            responder=lambda r: (
                "The deposit could not be charged; your booking is kept "
                "and you can pay at the restaurant."
            ),
        ),
        instruction="You handle payments that failed.",
    )
    return LlmAgent(
        name="concierge",
        model=ScriptedLlm(model="gemini-2.5-flash", responder=_concierge),
        instruction="You book restaurants.",
        tools=[find_table, book_table, pay_deposit],
        sub_agents=[billing],
    )


async def _traced_run(sessions, memory, log: EpisodicLog, app: str, user: str, task: str) -> str:
    """One turn through the real Runner with the episodic log; returns the session id."""
    runner = Runner(
        agent=_agents(),
        app_name=app,
        session_service=sessions,
        plugins=[EpisodicLogPlugin(log), ReflectAndRetryToolPlugin(max_retries=1)],
    )
    session = await sessions.create_session(app_name=app, user_id=user)
    message = types.Content(role="user", parts=[types.Part(text=task)])
    async for _ in runner.run_async(user_id=user, session_id=session.id, new_message=message):
        pass
    await runner.close()  # writes what the plugin queued (the log stays open)
    full = await sessions.get_session(app_name=app, user_id=user, session_id=session.id)
    await memory.add_session_to_memory(full)
    return session.id


def _earlier_days(log: EpisodicLog, app: str, now: datetime) -> None:
    """Model calls of the past twelve days, at their own times (``EpisodicLog.append``).

    Each call sits within its UTC day (noon minus up to three hours), so the per-day
    counts the tests check do not depend on the time of day the suite runs at.
    """
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    for days_ago in range(1, 13):
        for i in range(1 + days_ago % 4):
            user = ("alice", "bob")[(days_ago + i) % 2]
            at = midnight - timedelta(days=days_ago) + timedelta(hours=12 - i)
            pro = (days_ago + i) % 3 == 0
            log.append(
                PendingEntry(
                    app_name=app,
                    user_id=user,
                    session_id=f"earlier-{days_ago}-{i}",
                    invocation_id=f"inv-{days_ago}-{i}",
                    agent="billing" if pro else "concierge",
                    kind="model_call",
                    name="gemini-2.5-pro" if pro else "gemini-2.5-flash",
                    time=at.timestamp(),
                    input_tokens=1800 + 350 * ((days_ago * 7 + i) % 5),
                    output_tokens=120 + 40 * (days_ago % 3),
                    payload={"text": "(earlier turn)"},
                )
            )
