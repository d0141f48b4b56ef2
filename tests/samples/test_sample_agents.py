"""The sample agents load the way ``adk web`` loads them and hold a conversation offline.

Each agent in ``agents/`` is loaded with ADK's own loader (``NestedAgentLoader``, what
``adk web`` uses) after ``agents/services.py`` went through ``load_services_module``, then runs
a scripted conversation through a real ``Runner`` on the session and memory services that
``adk web agents --session_service_uri=<db> --memory_service_uri=pgvector://...`` builds.
To cover another agent, add an :class:`AgentCase` to ``CASES``.
"""

from __future__ import annotations

import inspect
import re
import sys
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from google.adk.agents.base_agent import BaseAgent
from google.adk.apps.app import App
from google.adk.cli.service_registry import load_services_module
from google.adk.cli.utils._nested_agent_loader import NestedAgentLoader  # what `adk web` uses
from google.adk.cli.utils.agent_loader import AgentLoader
from google.adk.cli.utils.service_factory import (
    create_memory_service_from_options,
    create_session_service_from_options,
)
from google.adk.events.event import Event
from google.adk.runners import Runner
from google.adk.sessions.session import Session
from google.genai import types
from sqlalchemy import text

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.core.model_access import DEFAULT_GEMINI, MODEL_ENV, configured_model
from adk_memory_kit.core.times import parse_time
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.errors import MemoryKitError
from adk_memory_kit.lifecycle import CHECKPOINT_STATE_KEY
from adk_memory_kit.memory.tables import SNAPSHOTS, TABLE
from adk_memory_kit.pruning import LAST_STATE_KEY
from adk_memory_kit.routing import ReviewQueue
from adk_memory_kit.routing.records import (
    RECALL_RECORD_KEY,
    ROUTING_RECORD_KEY,
    ROUTING_STATE_KEY,
    RoutingDecisions,
    session_recall_stems,
)
from adk_memory_kit.testing import ScriptedLlm
from adk_memory_kit.working_memory import WORKING_MEMORY_TOOL_NAMES, Scratchpad, repeated_tool_calls

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it

REPO = Path(__file__).resolve().parents[2]
AGENTS_DIR = REPO / "agents"
OFFLINE = "[offline scripted model]"
MODEL_ENV_VARS = ("GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", MODEL_ENV)


# ---------------------------------------------------------------- helpers


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No model access: the agents must pick the scripted offline model."""
    for name in MODEL_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    # `adk web` loads a .env found above the agent; a developer's key must not go online here
    monkeypatch.setenv("ADK_DISABLE_LOAD_DOTENV", "1")


@pytest.fixture
def load_like_adk_web(
    monkeypatch: pytest.MonkeyPatch, offline: None
) -> Iterator[Callable[[str], BaseAgent | App]]:
    """Load ``agents/<name>`` as ``adk web agents`` does; modules are imported fresh."""
    touched: set[str] = set()

    def ours(module: str) -> bool:
        return module.split(".")[0] in touched

    def load(name: str) -> BaseAgent | App:
        touched.update({"services", name})
        for module in [m for m in sys.modules if ours(m)]:
            monkeypatch.delitem(sys.modules, module)  # built under this test's environment
        monkeypatch.syspath_prepend(str(AGENTS_DIR))  # the loader adds it too; this undoes it
        load_services_module(str(AGENTS_DIR))
        assert Path(sys.modules["services"].__file__) == AGENTS_DIR / "services.py"
        loader = NestedAgentLoader(str(AGENTS_DIR))
        assert name in loader.list_agents()
        loaded = loader.load_agent(name)
        assert Path(sys.modules[name].__file__).parent == AGENTS_DIR / name
        return loaded

    yield load
    for module in [m for m in sys.modules if ours(m)]:
        del sys.modules[module]  # monkeypatch then restores whatever was there before


@dataclass
class Conversation:
    """What a scripted conversation left behind, for a case's checks."""

    name: str
    app: App
    user_id: str
    session_service: Any
    memory_service: Any
    replies: list[list[str]] = field(default_factory=list)  # per session, per turn
    states: list[list[dict[str, Any]]] = field(default_factory=list)  # stored, after each turn
    sessions: list[Session] = field(default_factory=list)  # stored, after the last turn
    yielded: list[Event] = field(default_factory=list)  # as the Runner streamed them (adk web)

    @property
    def agent(self) -> BaseAgent:
        return self.app.root_agent

    @property
    def requests(self) -> list[Any]:
        """Every request the (scripted) root model received."""
        return self.agent.model.requests


@dataclass(frozen=True)
class AgentCase:
    """One sample agent: its folder under ``agents/``, user turns per session, checks."""

    name: str
    sessions: tuple[tuple[str, ...], ...]
    check: Callable[[Conversation], Awaitable[None] | None]


def pgvector_uri(db_url: str) -> str:
    """The ``--memory_service_uri`` naming the test database."""
    return "pgvector://" + db_url.split("://", 1)[1]


async def converse(case: AgentCase, loaded: BaseAgent | App, db_url: str) -> Conversation:
    """Run the case's sessions through a Runner wired like the one ``adk web`` builds."""
    app = loaded if isinstance(loaded, App) else App(name=case.name, root_agent=loaded)
    sessions = create_session_service_from_options(base_dir=AGENTS_DIR, session_service_uri=db_url)
    memory = create_memory_service_from_options(
        base_dir=AGENTS_DIR, memory_service_uri=pgvector_uri(db_url)
    )
    assert isinstance(memory, PgVectorMemoryService)  # the scheme agents/services.py registers
    runner = Runner(app=app, app_name=case.name, session_service=sessions, memory_service=memory)
    convo = Conversation(case.name, app, f"user-{uuid.uuid4().hex[:8]}", sessions, memory)
    try:
        for turns in case.sessions:
            session = await sessions.create_session(app_name=case.name, user_id=convo.user_id)
            replies, states = [], []
            for text in turns:
                message = types.Content(role="user", parts=[types.Part(text=text)])
                texts = []
                async for event in runner.run_async(
                    user_id=convo.user_id, session_id=session.id, new_message=message
                ):
                    convo.yielded.append(event)
                    if event.author != "user" and not event.partial and event.content:
                        texts += [p.text for p in event.content.parts or [] if p.text]
                replies.append("\n".join(texts))
                session = await sessions.get_session(
                    app_name=case.name, user_id=convo.user_id, session_id=session.id
                )
                states.append(dict(session.state))
            convo.replies.append(replies)
            convo.states.append(states)
            convo.sessions.append(session)
        outcome = case.check(convo)
        if inspect.isawaitable(outcome):
            await outcome
    finally:
        await runner.close()
        await memory.close()
        await sessions.close()
    return convo


def function_parts(events: list[Event], kind: str, name: str | None = None) -> list[Any]:
    """The ``function_call`` or ``function_response`` objects in events (optionally by name)."""
    found = []
    for event in events:
        for part in event.content.parts if event.content and event.content.parts else ():
            item = getattr(part, kind)
            if item is not None and (name is None or item.name == name):
                found.append(item)
    return found


def request_responses(request: Any, name: str) -> list[dict[str, Any]]:
    """Payloads of the ``name`` function responses in one model request."""
    return [
        dict(part.function_response.response or {})
        for content in request.contents
        for part in content.parts or []
        if part.function_response and part.function_response.name == name
    ]


# ---------------------------------------------------------------- the cases

RESEARCH_TURNS = (
    "EV charging market in Europe",
    "heat pump adoption in Germany",
    "solar panel pricing trends",
    "grid battery storage regulation",
    "Summarize the findings so far.",
)


def check_research(convo: Conversation) -> None:
    """Findings saved every turn; stale raw search results reached later requests pruned."""
    replies = convo.replies[0]
    assert all(reply.startswith(OFFLINE) for reply in replies)
    assert len(convo.states[0][-1]["findings"]) == 4
    assert replies[-1].count("\n- ") == 4  # the summary lists the four saved findings

    requests = convo.requests
    first_turn = requests[:3]  # search, save, answer
    early = [r for q in first_turn for r in request_responses(q, "web_search")]
    assert early and not any(r.get("status") == "pruned" for r in early)
    last = request_responses(requests[-1], "web_search")
    assert len(last) == 4 and all(r.get("status") == "pruned" for r in last)
    assert all(r["tool"] == "web_search" and "get_findings" in r["note"] for r in last)
    assert all(r["original_tokens"] > 1000 for r in last)

    # pruning edits requests only: the stored session still has every raw result
    stored = function_parts(convo.sessions[0].events, "function_response", "web_search")
    assert len(stored) == 4 and all(len(r.response["results"]) == 5 for r in stored)

    # the dev UI's State tab shows what the newest model call pruned, with an ISO-8601 time
    last = convo.states[0][-1][LAST_STATE_KEY]
    assert last["pruned"] == ["web_search"] * 4 and last["pruned_parts"] == 4
    assert last["tokens_after"] < last["tokens_before"]
    assert datetime.fromisoformat(last["at"]).tzinfo is not None
    first_turn_state = convo.states[0][0][LAST_STATE_KEY]
    assert first_turn_state["pruned"] == []  # nothing was stale yet

    # saved findings are cut at a word boundary, with an ellipsis
    snippets = {r.response["results"][0]["snippet"] for r in stored}
    for saved in convo.states[0][-1]["findings"]:
        kept = saved["finding"].removesuffix(" …")
        assert saved["finding"].endswith(" …") and any(s.startswith(kept + " ") for s in snippets)


REBOOKER_TURNS = (
    "My Friday flight SFO to JFK was cancelled. Please rebook me: no red-eye, and I want an "
    "aisle seat.",
    "I have to arrive before 9am Friday.",
    "Is there anything cheaper?",
    "My phone is nearly dead, keep it short.",
    "Remind me what you are keeping in mind.",
    "OK, hold it.",
    "Yes, confirm it.",
)
CONSTRAINTS = ["no red-eye", "aisle seat", "arrive before 9am Friday"]


def check_rebooker(convo: Conversation) -> None:
    """Constraints stated early survive every turn and decide the booking; the task closes."""
    replies, states = convo.replies[0], convo.states[0]
    events = convo.sessions[0].events
    assert all(reply.startswith(OFFLINE) for reply in replies)

    assert states[0]["wm"]["constraints"] == CONSTRAINTS[:2]
    assert "By when must the traveller arrive" in states[0]["wm_view"]
    for state in states[1:-1]:  # every turn until the task completes
        assert state["wm"]["constraints"] == CONSTRAINTS
        assert all(f"- {c}\n" in state["wm_view"] for c in CONSTRAINTS)
    # ...and the view the model received in those turns carried them
    texts = [
        "".join(p.text or "" for x in r.contents for p in x.parts or []) for r in convo.requests
    ]
    with_all = [t for t in texts if all(f"- {c}\n" in t for c in CONSTRAINTS)]
    assert len(with_all) >= 8  # every model call from the search (turn 2) to complete_task
    # the cacheable prefix is the same on every request
    assert len({str(r.config.system_instruction) for r in convo.requests}) == 1

    # every working-memory write was accepted (fact sources included)
    wm_results = [
        r.response
        for name in WORKING_MEMORY_TOOL_NAMES
        for r in function_parts(events, "function_response", name)
    ]
    assert wm_results and all(r["status"] in {"ok", "cleared"} for r in wm_results)

    # one search; the held flight meets every constraint, though a cheaper red-eye existed
    (search,) = function_parts(events, "function_response", "search_flights")
    flights = {f["flight_id"]: f for f in search.response["flights"]}
    assert search.response["date"] == "Thursday"
    cheapest = min(flights.values(), key=lambda f: f["fare_usd"])
    assert cheapest["red_eye"]
    (held,) = function_parts(events, "function_call", "hold_seat")
    chosen = flights[held.args["flight_id"]]
    assert held.args["seat_type"] == "aisle"
    assert not chosen["red_eye"] and chosen["aisle_seat_free"]
    assert chosen["arrives"].startswith("Thursday")
    assert Scratchpad.load(states[4]["wm"]).facts["best_flight"].value == chosen["flight_id"]
    assert chosen["flight_id"] in replies[2] and "no red-eye" in replies[2]
    assert repeated_tool_calls(events, exclude=WORKING_MEMORY_TOOL_NAMES) == 0

    assert Scratchpad.load(states[5]["wm"]).facts["held_seat"].source == "hold_seat"
    # times in wm are ISO-8601 strings (the dev UI's State tab shows them as dates)
    assert all(isinstance(parse_time(f["written_at"]), datetime) for f in states[5]["wm"]["facts"])
    assert all(isinstance(f["written_at"], str) for f in states[5]["wm"]["facts"])
    assert states[-1]["wm"] is None and states[-1]["wm_view"] == ""
    # ...and the finished task stays visible as a compact record
    last = states[-1]["wm_last_task"]
    assert last["goal"] == states[5]["wm"]["goal"] and last["outcome"] == "completed"
    # the confirmation turn booked the held seat (book_seat) and recorded the booking
    assert last["facts"] == len(states[5]["wm"]["facts"]) + 1 and last["steps_done"]
    assert last["steps_done_count"] == last["steps_total"]
    (booked,) = function_parts(events, "function_response", "book_seat")
    assert booked.response["status"] == "booked"
    assert booked.response["flight_id"] == chosen["flight_id"]
    assert last["summary"] == (
        f"Rebooked on {chosen['flight_id']}, booking {booked.response['booking_ref']}"
    )
    assert parse_time(last["finished_at"]) is not None
    assert "Done" in replies[-1] and chosen["flight_id"] in replies[-1]
    assert booked.response["booking_ref"] in replies[-1]
    # "rebooked" is said only after book_seat succeeded, never after the hold alone
    assert not any("rebooked" in r for r in replies[:-1])


CONCIERGE_SESSIONS = (
    (  # Monday: three turns, so the checkpoint plugin (every 3 invocations) ingests it
        "Hi! I'm vegetarian, and please always deliver to the Pune office reception.",
        "Our budget is 15 euros today.",
        "Stop asking me to confirm prices.",
    ),
    (  # Thursday: a brand-new session
        "Can you order lunch to the office for me?",  # preload: what memory says of it
        "Thanks, that's all, bye!",
    ),
)


async def check_concierge(convo: Conversation) -> None:
    """Diet by key lookup, delivery address by search, routing homes, explicit end."""
    monday, thursday = convo.states
    assert monday[0]["user:pref_diet"] == "vegetarian" and monday[0]["user:pref_diet_at"]
    assert monday[1]["fact_trip_budget"] == "15 euros today"  # session state, via the router
    assert all(reply.startswith(OFFLINE) for replies in convo.replies for reply in replies)
    # Thursday's new session starts with Monday's user: state
    assert thursday[0]["user:pref_diet"] == "vegetarian"
    assert "fact_trip_budget" not in thursday[0]  # session state stayed with Monday
    assert "delivery_address = Pune office reception [load_memory]" in thursday[0]["wm_view"]
    # the reply is built from what load_memory returned: Monday's words and date
    (recall_result,) = function_parts(convo.sessions[1].events, "function_response", "load_memory")
    framed = recall_result.response["memories"]
    assert "Pune office reception" in framed
    monday_date = convo.sessions[0].last_update_time
    day = datetime.fromtimestamp(monday_date, timezone.utc).date().isoformat()
    assert f"From memory ({day}): deliver to Pune office reception." in convo.replies[1][0]
    assert "vegetarian lunch to the Pune office reception" in convo.replies[1][0]
    # the recall block reached the model as user content, never in the system instruction
    recall = [
        r
        for r in convo.requests
        if any("<RECALLED_MEMORY>" in (p.text or "") for c in r.contents for p in c.parts)
    ]
    assert recall and all(
        "RECALLED_MEMORY" not in str(r.config.system_instruction or "") for r in recall
    )
    # the behaviour change went to the review queue, not to memory
    queue = ReviewQueue()
    try:
        items = await queue.list(app_name="concierge", user_id=convo.user_id)
    finally:
        await queue.close()
    assert [i.text for i in items] == ["Stop asking me to confirm prices."]
    # the write policy (ROUTED, the default): the goodbye is filler and the standing order is
    # in review, so neither is searchable; the delivery instruction is, as the router's fact
    found = await convo.memory_service.search_memory(
        app_name="concierge", user_id=convo.user_id, query="Thanks, that's all, bye"
    )
    texts = [m.content.parts[0].text.lower() for m in found.memories]
    # (nothing stored is relevant to a goodbye: the relevance floor returns nothing)
    assert not any("bye" in t or "confirm prices" in t for t in texts)
    top = await convo.memory_service.search_memory(
        app_name="concierge", user_id=convo.user_id, query="delivery address"
    )
    assert "pune office reception" in top.memories[0].content.parts[0].text.lower()
    async with operator_connect(convo.memory_service.engine) as conn:  # both sessions were ingested
        ingested = await conn.scalar(
            text(
                f"SELECT count(*) FROM {SNAPSHOTS} WHERE app_name = 'concierge' AND user_id = :user"
            ),
            {"user": convo.user_id},
        )
    assert ingested == 2  # Monday by the checkpoint plugin, Thursday by end_session
    # each says what it stored: the rows memory holds for that session, not the event count
    for states, session, trigger in zip(
        convo.states, convo.sessions, ("checkpoint", "end_session"), strict=True
    ):
        record = states[-1][CHECKPOINT_STATE_KEY]
        assert (record["trigger"], record["session_id"]) == (trigger, session.id)
        assert record["policy"] == "routed" and parse_time(record["time"]) is not None
        assert record["rows_stored"] == await session_rows(convo, session.id)
        assert record["rows_stored"] < len(session.events)
    (closed,) = function_parts(convo.sessions[1].events, "function_response", "end_session")
    assert closed.response["status"] == "session_closed" and "events_saved" not in closed.response
    # Thursday's own words are filler for the write policy; the closing checkpoint after the
    # reply can only add rows
    assert 0 <= closed.response["rows_stored"] <= record["rows_stored"]
    # Monday stores no event rows: every sentence went to its own home (diet -> user: state,
    # delivery -> a dated long-term fact, budget -> session state, the standing order -> the
    # review queue), and the agent's "Saved to your profile ..." restates a memory tool
    assert convo.states[0][-1][CHECKPOINT_STATE_KEY]["rows_stored"] == 0


#: State keys the kit's write-policy bookkeeping used or could use (current, pending, legacy).
BOOKKEEPING_KEYS = {
    ROUTING_STATE_KEY,
    f"temp:{ROUTING_RECORD_KEY}",
    f"temp:{RECALL_RECORD_KEY}",
    "_adk_memory_kit_routing",
    "_adk_memory_kit_recall",
}


def bookkeeping_in_state(event: Event) -> set[str]:
    delta = event.actions.state_delta if event.actions else {}
    return {k for k in delta or {} if k in BOOKKEEPING_KEYS or k.startswith("_adk_memory_kit")}


async def check_concierge_and_its_bookkeeping(convo: Conversation) -> None:
    """The concierge's behaviour (:func:`check_concierge`), with the routing and recall records
    in event metadata: no streamed or stored event carries them as a state chip, and the
    stored state (the dev UI's State tab) never holds them."""
    await check_concierge(convo)
    cluttered = [e.id for e in convo.yielded if bookkeeping_in_state(e)]
    cluttered += [e.id for s in convo.sessions for e in s.events if bookkeeping_in_state(e)]
    assert cluttered == []
    for states in convo.states:
        for state in states:
            assert not [k for k in state if k in BOOKKEEPING_KEYS or "_adk_memory_kit" in k]

    monday, thursday = convo.sessions  # as stored: read back from the database
    routed = [e for e in monday.events if ROUTING_RECORD_KEY in (e.custom_metadata or {})]
    assert len(routed) == len(CONCIERGE_SESSIONS[0])  # one record per Monday turn
    decisions = RoutingDecisions(monday.events)
    user_turns = [e for e in monday.events if e.author == "user"]
    assert all(decisions.has_record(e.id) for e in user_turns)
    # the standing order's sentence went to the review queue, by the record
    stop = user_turns[2]
    assert {h.value for h in decisions.homes(stop.id, 0)} == {"procedural_review"}

    # every model call that got a preloaded recall block left one recall record
    with_block = [
        r
        for r in convo.requests
        if any("<RECALLED_MEMORY>" in (p.text or "") for c in r.contents for p in c.parts)
    ]
    recalled = [
        e
        for s in convo.sessions
        for e in s.events
        if RECALL_RECORD_KEY in (e.custom_metadata or {})
    ]
    assert with_block and len(recalled) == len(with_block)
    assert all(e.author == "concierge" and e.invocation_id for e in recalled)
    assert session_recall_stems(thursday.events) >= set(
        recalled[0].custom_metadata[RECALL_RECORD_KEY]["stems"]
    )


async def session_rows(convo: Conversation, session_id: str) -> int:
    """Memory rows holding the session's events (what the checkpoint record must report)."""
    async with operator_connect(convo.memory_service.engine) as conn:
        return await conn.scalar(
            text(
                f"SELECT count(*) FROM {TABLE} WHERE app_name = 'concierge' AND user_id = :user"
                " AND session_id = :sid AND kind = 'event'"
            ),
            {"user": convo.user_id, "sid": session_id},
        )


def check_concierge_without_memory(convo: Conversation) -> None:
    """A new user: memory holds no delivery instruction, and the reply says so (no fake recall)."""
    (reply,) = convo.replies[0]
    assert "I found no delivery address in memory" in reply
    assert "Pune" not in reply
    assert "wm" not in convo.states[0][0] or not convo.states[0][0]["wm"]


CASES = [
    AgentCase("research_assistant", (RESEARCH_TURNS,), check_research),
    AgentCase("rebooker", (REBOOKER_TURNS,), check_rebooker),
    AgentCase("concierge", CONCIERGE_SESSIONS, check_concierge_and_its_bookkeeping),
    AgentCase("concierge", (CONCIERGE_SESSIONS[1][:1],), check_concierge_without_memory),
]


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.name}-{c.check.__name__}")
async def test_sample_agent_loads_like_adk_web_and_converses(case, load_like_adk_web, db_url):
    loaded = load_like_adk_web(case.name)
    agent = loaded.root_agent if isinstance(loaded, App) else loaded
    assert isinstance(agent.model, ScriptedLlm)  # offline: no key, no model in the env
    await converse(case, loaded, db_url)


def test_adk_run_loader_finds_the_sample_agents(load_like_adk_web):
    """`adk run` / `adk api_server` use the plain AgentLoader over the same folder."""
    load_like_adk_web("rebooker")  # imports services and puts agents/ on sys.path
    names = AgentLoader(str(AGENTS_DIR)).list_agents()
    assert {case.name for case in CASES} <= set(names)


def test_rebooker_tools_are_deterministic(load_like_adk_web):
    load_like_adk_web("rebooker")
    search_flights = sys.modules["rebooker.tools"].search_flights
    hold_seat = sys.modules["rebooker.tools"].hold_seat
    first = search_flights("sfo", "JFK", "thu")
    assert first == search_flights("SFO", "JFK", "Thursday")
    assert first["date"] == "Thursday" and len(first["flights"]) == 4
    assert {f["arrives"].split()[0] for f in first["flights"]} == {"Thursday", "Friday"}
    iso = search_flights("SFO", "JFK", "2025-11-13")
    assert any(f["arrives"].startswith("2025-11-14") for f in iso["flights"])
    held = hold_seat("kx214")
    assert held["status"] == "held" and held["seat"].endswith("C") and held == hold_seat("KX214")
    assert hold_seat("KX214", "window")["seat"].endswith("A")
    assert hold_seat("not a flight")["status"] == "error"
    assert hold_seat("KX214", "cockpit")["status"] == "error"
    book_seat = sys.modules["rebooker.tools"].book_seat
    booked = book_seat("kx214", held["hold_ref"].lower())
    assert booked["status"] == "booked" and booked == book_seat("KX214", held["hold_ref"])
    assert len(booked["booking_ref"]) == 6 and booked["hold_ref"] == held["hold_ref"]
    assert book_seat("KX214", "not a hold")["status"] == "error"
    assert book_seat("nope", held["hold_ref"])["status"] == "error"


# ---------------------------------------------------------------- model choice


def _responder(request: Any) -> str:
    return "offline"


@pytest.mark.parametrize(
    "env", [{"GOOGLE_API_KEY": "test-key"}, {"GOOGLE_GENAI_USE_VERTEXAI": "true"}]
)
def test_agents_use_gemini_with_model_access(monkeypatch, load_like_adk_web, env):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert configured_model() == DEFAULT_GEMINI == "gemini-2.5-flash"
    for name in ("research_assistant", "rebooker", "concierge"):
        assert load_like_adk_web(name).root_agent.model == DEFAULT_GEMINI


def test_agents_take_a_model_id_from_the_env(monkeypatch, load_like_adk_web):
    monkeypatch.setenv(MODEL_ENV, "gemini-2.5-pro")
    assert configured_model() == "gemini-2.5-pro"
    assert load_like_adk_web("rebooker").root_agent.model == "gemini-2.5-pro"


def test_configured_model_wraps_a_litellm_id(monkeypatch, offline):
    pytest.importorskip("litellm")
    from google.adk.models.lite_llm import LiteLlm

    monkeypatch.setenv(MODEL_ENV, "openai/gpt-4o-mini")
    model = configured_model()
    assert isinstance(model, LiteLlm) and model.model == "openai/gpt-4o-mini"


def test_configured_model_explains_a_missing_litellm(monkeypatch, offline):
    monkeypatch.setenv(MODEL_ENV, "ollama_chat/llama3")
    monkeypatch.setitem(sys.modules, "google.adk.models.lite_llm", None)  # import fails
    with pytest.raises(MemoryKitError) as info:
        configured_model()
    assert str(info.value) == f"{MODEL_ENV}=ollama_chat/llama3 needs LiteLLM: pip install litellm"
    assert isinstance(info.value.__cause__, ImportError)


def test_agents_are_scripted_offline_without_model_access(load_like_adk_web):
    assert configured_model() is None
    agent = load_like_adk_web("rebooker").root_agent
    assert isinstance(agent.model, ScriptedLlm)
    assert agent.model.responder is sys.modules["rebooker.offline"].offline_rebooker_responder


def test_every_sample_app_wires_the_episodic_log(load_like_adk_web):
    """adk web sessions of every sample fill the console's traces and costs."""
    from adk_memory_kit import EpisodicLogPlugin

    for name in ("research_assistant", "rebooker", "concierge"):
        loaded = load_like_adk_web(name)
        assert isinstance(loaded, App), name
        assert sum(isinstance(p, EpisodicLogPlugin) for p in loaded.plugins) == 1, name


def test_agents_import_only_the_kits_public_api():
    """A copied agent depends on ``adk_memory_kit`` and its documented packages, nothing else."""
    public = {"adk_memory_kit", "adk_memory_kit.testing", "adk_memory_kit.recall"}
    public |= {"adk_memory_kit.routing"}
    for source in AGENTS_DIR.glob("*/*.py"):
        for line in source.read_text().splitlines():
            found = re.match(r"\s*(?:from|import) (adk_memory_kit[\w.]*)", line)
            if found:
                assert found.group(1) in public, f"{source}: {line.strip()}"
