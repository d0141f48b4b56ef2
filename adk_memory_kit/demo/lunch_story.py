"""The seeds' Monday/Thursday lunch story, through a real Runner on the embedded Postgres.

Monday: the user states a diet, a delivery instruction, a budget, a card number, an
experience and a standing order. Each fact goes to its own home. The Runner writes nothing to
long-term memory; the idle job does, 35 (simulated) minutes later. Thursday: a new session
knows the diet by key lookup and finds the delivery address by search.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from google.adk.apps.app import App
from google.adk.models.base_llm import BaseLlm
from google.adk.runners import Runner
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.adk.sessions.session import Session
from google.genai import types

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.wording import counted, describe_counts
from adk_memory_kit.demo.concierge import APP_NAME, build_concierge_agent, concierge_plugins
from adk_memory_kit.demo.console import note, show_events, show_table, step
from adk_memory_kit.errors import MemoryKitError
from adk_memory_kit.lifecycle import IdleIngestJob, forget_user
from adk_memory_kit.lifecycle.sleep_time import SleepTimeDistiller
from adk_memory_kit.recall.framing import format_search_results
from adk_memory_kit.routing import ReviewQueue, RoutingOutcome, RuleBasedExtractor
from adk_memory_kit.testing import ScriptedLlm, recalled_lines

#: Prefix of the state keys the kit writes for its own bookkeeping (routing/recall records).
INTERNAL_PREFIX = "_adk_memory_kit"

MONDAY = [
    "Hi! I'm vegetarian, and please always deliver to the Pune office reception.",
    "Our budget is 15 euros today.",
    "Which one is cheaper, the thali or the wrap?",
    "The Green Leaf restaurant was great last week, by the way.",
    "My card is 4111 1111 1111 1111.",
    "Stop asking me to confirm prices.",
]
THURSDAY = [
    "Can you order lunch for me?",
    "Yes please. Thanks, that's all, bye!",
]


@dataclass
class StoryResult:
    """What went where, for the demo's closing table."""

    homes: dict[str, list[str]] = field(default_factory=dict)
    thursday_diet: Any = None
    thursday_recalled: list[str] = field(default_factory=list)
    wm_view: str = ""
    search_query: str = "delivery address"
    long_term_lines: list[str] = field(default_factory=list)  # as `adk-memory-kit search` prints


async def _turn(runner: Runner, user_id: str, session_id: str, text: str) -> list[Any]:
    print(f"\n   user> {text}")
    message = types.Content(role="user", parts=[types.Part(text=text)])
    events = [
        e
        async for e in runner.run_async(user_id=user_id, session_id=session_id, new_message=message)
    ]
    show_events(events)
    return events


def _record_outcomes(result: StoryResult, outcomes: list[RoutingOutcome]) -> None:
    for outcome in outcomes:
        why = f": {outcome.detail}" if outcome.key and outcome.detail else ""
        label = f"{outcome.key or outcome.detail or '-'} ({outcome.status}{why})"
        result.homes.setdefault(outcome.home.name, []).append(label)
        print(f"   [router] -> {outcome.home.name}: {label}")


async def run_lunch_story(db_url: str, model: str | BaseLlm, user_id: str) -> StoryResult:
    result = StoryResult()
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url)
    queue = ReviewQueue(db_url)
    pending: list[RoutingOutcome] = []
    app = App(
        name=APP_NAME,
        root_agent=build_concierge_agent(model),
        # checkpoint rarely here, so the idle job's role is visible
        plugins=concierge_plugins(
            review_queue=queue, on_outcomes=pending.extend, checkpoint_every=50
        ),
    )
    runner = Runner(app=app, session_service=sessions, memory_service=memory)
    try:
        await forget_user(
            APP_NAME,
            user_id,
            session_service=sessions,
            memory_service=memory,
            extra_homes=[queue.data_home()],
        )  # start the story clean

        step("MONDAY: a new session")
        monday = await sessions.create_session(app_name=APP_NAME, user_id=user_id)
        for text in MONDAY:
            await _turn(runner, user_id, monday.id, text)
            _record_outcomes(result, pending)
            pending.clear()

        monday = await _reloaded(sessions, monday)
        step("Where Monday's facts live now")
        show_table(
            [(k, v) for k, v in sorted(monday.state.items()) if not _internal_key(k)],
            ("state key (user: = every session of this user)", "value"),
        )
        note(
            "temp: keys (turn scratch) are gone: they lived for one invocation only "
            "(the kit's own routing and recall records are not shown)."
        )
        counts = await memory.count_memories(app_name=APP_NAME, user_id=user_id)
        note(
            f"long-term memory after Monday: {describe_counts(counts)} -- the Runner never "
            "writes transcripts to long-term memory; only the router's dated facts are there."
        )
        items = await queue.list(app_name=APP_NAME, user_id=user_id)
        for item in items:
            note(
                f"review queue #{item.id} ({item.status}): {item.text!r} -- for a human; "
                "the agent never reads it back."
            )
        result.homes.setdefault("PROCEDURAL_REVIEW (queue)", []).extend(
            f"#{i.id} {i.status}" for i in items
        )

        step("35 minutes later: the idle-ingest job (+ sleep-time distillation)")
        later = datetime.now(timezone.utc) + timedelta(minutes=35)
        job = IdleIngestJob(
            sessions,
            memory,
            app_name=APP_NAME,
            db_url=db_url,
            clock=lambda: later,
            after_ingest=SleepTimeDistiller(memory, RuleBasedExtractor()),
        )
        report = await job.run_once()
        await job.close()
        note(f"idle job: {report.summary()}")
        after = await memory.count_memories(app_name=APP_NAME, user_id=user_id)
        added = sum(after.values()) - sum((counts or {}).values())
        note(
            "Write policy ROUTED (the default): the idle job added "
            f"{counted(added, 'memory')}: only user sentences that carry content and that "
            "the router sent nowhere else are "
            "stored. On Monday every sentence had its home: the card number (DROP), the "
            "standing order (review queue), the budget (session state), the price comparison "
            "(turn scratch), the diet (user: state); the delivery instruction and the "
            "restaurant review are stored once, as the router's dated facts; 'Hi!' and the "
            "agent's 'Noted.' replies are filler."
        )
        counts = await memory.count_memories(app_name=APP_NAME, user_id=user_id)
        note(f"long-term memory now: {describe_counts(counts)}")
        card = await memory.search_memory(app_name=APP_NAME, user_id=user_id, query="my card")
        carded = [e for e in card.memories if "card" in _first_text(e.content).lower()]
        note(
            f"search 'my card' finds {counted(len(carded), 'memory', 'memories')} holding it: "
            "the router dropped the "
            "turn, so nothing of it was stored (not even a redacted copy)."
        )
        result.homes.setdefault("LONG_TERM (after idle job)", []).append(describe_counts(counts))

        step("THURSDAY: a brand-new session for the same user")
        thursday = await sessions.create_session(app_name=APP_NAME, user_id=user_id)
        result.thursday_diet = thursday.state.get("user:pref_diet")
        note(
            f"user:pref_diet is already in the new session's state: "
            f"{result.thursday_diet!r} (key lookup, no search)"
        )
        events = await _turn(runner, user_id, thursday.id, THURSDAY[0])
        for event in events:
            for part in (event.content.parts if event.content else None) or []:
                if part.function_response and part.function_response.name == "load_memory":
                    lines = recalled_lines(part.function_response.response or {})
                    result.thursday_recalled.extend(line.lstrip()[1:].strip() for line in lines)
        _record_outcomes(result, pending)
        pending.clear()
        step(
            f"What Thursday recalled from long-term memory (load_memory, ranked hybrid "
            f"search): {_top(len(result.thursday_recalled))}"
        )
        for line in result.thursday_recalled[:3]:
            note(f"- {line[:150]}")
        if isinstance(model, ScriptedLlm):
            block = _recall_block(model)
            if block:
                step("The budgeted preload block the model saw (quoted, dated data)")
                for line in block.splitlines()[:12]:
                    print(f"   | {line[:100]}")
        thursday = await _reloaded(sessions, thursday)
        result.wm_view = str(thursday.state.get("wm_view") or "")
        step("Working memory of Thursday's task (wm_view, rendered into the instruction)")
        for line in result.wm_view.splitlines():
            print(f"   | {line}")
        await _turn(runner, user_id, thursday.id, THURSDAY[1])
        counts = await memory.count_memories(app_name=APP_NAME, user_id=user_id)
        note(
            f"end_session closed Thursday's session into long-term memory: "
            f"{describe_counts(counts)}. The "
            "agent's reply restating what load_memory returned was not stored (provenance), "
            "nor the question, the 'Yes please' or the goodbye (filler)."
        )
        found = await memory.search_memory(
            app_name=APP_NAME, user_id=user_id, query=result.search_query, limit=10
        )
        result.long_term_lines = format_search_results(found.memories, app=APP_NAME, user=user_id)
        return result
    finally:
        await runner.close()
        await queue.close()
        await memory.close()
        await sessions.close()


def _internal_key(key: str) -> bool:
    """State keys the story does not show: turn scratch and the kit's bookkeeping records."""
    return key.startswith(("temp:", INTERNAL_PREFIX))


def _top(recalled: int, shown: int = 3) -> str:
    """``5 memories, the top 3:`` / ``2 memories, both:`` / ``1 memory:`` / ``0 memories``."""
    if recalled == 0:
        return "0 memories"
    if recalled == 1:
        return "1 memory:"
    if recalled <= shown:
        return f"{recalled} memories, all of them:" if recalled > 2 else "2 memories, both:"
    return f"{recalled} memories, the top {shown}:"


def _recall_block(model: ScriptedLlm) -> str:
    for request in reversed(model.requests):
        for content in request.contents or []:
            for part in content.parts or []:
                if part.text and "RECALLED_MEMORY" in part.text:
                    return part.text
    return ""


async def _reloaded(sessions: DatabaseSessionService, session: Session) -> Session:
    """``session`` as stored now, with the state the turns wrote (the demo created it)."""
    stored = await sessions.get_session(
        app_name=session.app_name, user_id=session.user_id, session_id=session.id
    )
    if stored is None:
        raise MemoryKitError(f"the demo's session {session.id} disappeared from the database")
    return stored


def _first_text(content: types.Content) -> str:
    return (content.parts[0].text or "") if content.parts else ""
