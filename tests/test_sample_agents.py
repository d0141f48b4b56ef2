"""The sample agents load the way ``adk web`` loads them and hold a conversation offline.

Each agent in ``agents/`` is loaded with ADK's own loader (``NestedAgentLoader``, what
``adk web`` uses) after ``agents/services.py`` went through ``load_services_module``, then runs
a scripted conversation through a real ``Runner`` on the session and memory services that
``adk web agents --session_service_uri=<db> --memory_service_uri=pgvector://...`` builds.
To cover another agent, add an :class:`AgentCase` to ``CASES``.
"""

from __future__ import annotations

import inspect
import os
import re
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
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

from adk_memory_kit.errors import MemoryKitError
from adk_memory_kit.memory import PgVectorMemoryService
from adk_memory_kit.model_choice import DEFAULT_GEMINI, MODEL_ENV, choose_model
from adk_memory_kit.routing import ReviewQueue
from adk_memory_kit.sample_agents.rebooker import (
    build_rebooker_agent,
    hold_seat,
    offline_rebooker_responder,
    search_flights,
)
from adk_memory_kit.sample_agents.research import build_research_agent
from adk_memory_kit.scripted import ScriptedLlm
from adk_memory_kit.working_memory import WORKING_MEMORY_TOOL_NAMES, Scratchpad, repeated_tool_calls

REPO = Path(__file__).resolve().parents[1]
AGENTS_DIR = REPO / "agents"
OFFLINE = "[offline scripted model]"
MODEL_ENV_VARS = ("GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", MODEL_ENV)


# ---------------------------------------------------------------- helpers


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No model access: ``choose_model`` must pick the scripted offline model."""
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
    assert states[-1]["wm"] is None and states[-1]["wm_view"] == ""
    assert "Done" in replies[-1] and chosen["flight_id"] in replies[-1]


CONCIERGE_SESSIONS = (
    (  # Monday: three turns, so the checkpoint plugin (every 3 invocations) ingests it
        "Hi! I'm vegetarian, and please always deliver to the Pune office reception.",
        "Our budget is 15 euros today.",
        "Stop asking me to confirm prices.",
    ),
    (  # Thursday: a brand-new session
        "Can you order lunch for me?",
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
    assert "vegetarian lunch" in convo.replies[1][0]
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
    found = await convo.memory_service.search_memory(
        app_name="concierge", user_id=convo.user_id, query="Thanks, that's all, bye"
    )
    assert any("bye" in m.content.parts[0].text for m in found.memories)  # end_session ingested


CASES = [
    AgentCase("research_assistant", (RESEARCH_TURNS,), check_research),
    AgentCase("rebooker", (REBOOKER_TURNS,), check_rebooker),
    AgentCase("concierge", CONCIERGE_SESSIONS, check_concierge),
]


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
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


def test_rebooker_tools_are_deterministic():
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


# ---------------------------------------------------------------- choose_model


@pytest.mark.parametrize(
    "env", [{"GOOGLE_API_KEY": "test-key"}, {"GOOGLE_GENAI_USE_VERTEXAI": "true"}]
)
def test_choose_model_defaults_to_gemini_with_model_access(monkeypatch, offline, env):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert choose_model(offline_rebooker_responder) == DEFAULT_GEMINI == "gemini-2.5-flash"
    assert build_rebooker_agent().model == DEFAULT_GEMINI
    assert build_research_agent().model == DEFAULT_GEMINI


def test_choose_model_uses_a_gemini_id_from_the_env(monkeypatch, offline):
    monkeypatch.setenv(MODEL_ENV, "gemini-2.5-pro")
    assert choose_model(offline_rebooker_responder) == "gemini-2.5-pro"


def test_choose_model_wraps_a_litellm_id(monkeypatch, offline):
    pytest.importorskip("litellm")
    from google.adk.models.lite_llm import LiteLlm

    monkeypatch.setenv(MODEL_ENV, "openai/gpt-4o-mini")
    model = choose_model(offline_rebooker_responder)
    assert isinstance(model, LiteLlm) and model.model == "openai/gpt-4o-mini"


def test_choose_model_explains_a_missing_litellm(monkeypatch, offline):
    monkeypatch.setenv(MODEL_ENV, "ollama_chat/llama3")
    monkeypatch.setitem(sys.modules, "google.adk.models.lite_llm", None)  # import fails
    with pytest.raises(MemoryKitError) as info:
        choose_model(offline_rebooker_responder)
    assert str(info.value) == f"{MODEL_ENV}=ollama_chat/llama3 needs LiteLLM: pip install litellm"
    assert isinstance(info.value.__cause__, ImportError)


def test_choose_model_is_scripted_offline_without_model_access(offline):
    model = choose_model(offline_rebooker_responder)
    assert isinstance(model, ScriptedLlm) and model.responder is offline_rebooker_responder
    agent = build_rebooker_agent()
    assert isinstance(agent.model, ScriptedLlm)
    assert agent.model.responder is offline_rebooker_responder


# ---------------------------------------------------------------- samples/wire_runner.py


def test_wire_runner_sample_runs_one_offline_turn():
    env = {k: v for k, v in os.environ.items() if k not in MODEL_ENV_VARS}
    env.pop("ADK_MEMORY_KIT_DB_URL", None)
    with tempfile.TemporaryDirectory(prefix="amk_wire_") as home:  # short: the socket is in it
        env["ADK_MEMORY_KIT_HOME"] = home
        done = subprocess.run(
            [sys.executable, str(REPO / "samples" / "wire_runner.py")],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        assert (Path(home) / "pgdata").is_dir()  # its own embedded server, under the tmp home
    out = done.stdout
    assert "model: scripted-offline" in out
    assert "[assistant] calls web_search" in out and "[assistant] calls save_finding" in out
    assert f"[assistant] {OFFLINE} Saved one finding" in out
    assert "tool results pruned: 1;" in out
    assert "routing: seat -> user_state (stored)" in out
    assert "'user:pref_seat': 'aisle'" in out
    assert re.search(r"^checkpoint: ingested \d+ events of session \S+$", out, re.MULTILINE)
    found = re.search(r"^memory search 'Lisbon hotels': (\d+) memories$", out, re.MULTILINE)
    assert found and int(found.group(1)) >= 1
