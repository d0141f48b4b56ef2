"""Issue 46: the write policy and the router agree. A request to the agent, a sentence the
router says holds nothing to keep, and the agent's restatement of a tool's result set are not
stored long-term; a report of the user's life, an answer to the agent's question and the
outcome of an action still are."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

import pytest
from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.events.event import Event
from google.adk.runners import Runner
from google.adk.sessions.session import Session
from google.genai import types
from sqlalchemy import text

from adk_memory_kit import MemoryApplier, MemoryRoutingPlugin, PgVectorMemoryService
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.memory.tables import TABLE
from adk_memory_kit.routing import ReviewQueue
from adk_memory_kit.routing.dialogue_acts import is_request_to_agent
from adk_memory_kit.routing.learned import Decision
from adk_memory_kit.routing.offline import LearnedExtractor
from adk_memory_kit.routing.records import ROUTING_RECORD_KEY, reads_only
from adk_memory_kit.routing.write_policy import RoutedOptions, SentenceVerdict, select_events
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses, last_user_text
from tests.support.policy_events import ev, tool_call, tool_result


async def kept(events: list[Event], verdicts: list | None = None, **kw) -> list[str]:
    session = Session(id="s1", app_name="a", user_id="u", events=events)
    options = RoutedOptions(**kw) if kw else None
    out = await select_events(session, events, options=options, verdicts=verdicts)
    return [e.content.parts[0].text for e in out]


class SaysNothing:
    """A router that finds nothing to keep in any sentence (its ``nothing`` verdict)."""

    async def classify(self, texts: Sequence[str]) -> list[Decision]:
        return [Decision("nothing", 0.9) for _ in texts]


def nothing_router() -> LearnedExtractor:
    return LearnedExtractor(router=SaysNothing())  # type: ignore[arg-type]


async def test_requests_to_the_agent_are_not_stored_and_statements_are():
    events = [
        ev("user", "I live in London and my sister lives in Lisbon.", 1),
        ev("user", "flights please", 2),
        ev("user", "show me cheaper ones", 3),
        ev("user", "flights again", 4),
        ev("user", "Summarize my findings.", 5),
    ]
    verdicts: list[SentenceVerdict] = []
    assert await kept(events, verdicts) == ["I live in London and my sister lives in Lisbon."]
    reasons = {v.reason for v in verdicts if not v.stored}
    assert reasons <= {"routed to nothing", "a request to the agent"}, reasons
    # the option restores the old behaviour: the requests are then stored as said
    assert len(await kept(events, keep_requests=True)) == 5


async def test_a_recorded_turn_the_router_found_nothing_in_is_not_stored():
    # the routing plugin saw the turn and gave its second sentence a home, the first none
    record = {"v": 2, "routed_events": ["e1"], "sentences": {"e1": {"1": ["session_state"]}}}
    events = [
        ev("user", "OK, hold it. Our budget is 15 euros today.", 1),
        ev("agent", "Noted.", 2, metadata={ROUTING_RECORD_KEY: record}),
    ]
    assert await kept(events) == []


async def test_the_routers_nothing_verdict_spares_life_reports_and_answers():
    events = [
        ev("user", "The hotel in Marrakesh upgraded us to a suite.", 1),
        ev("user", "cheaper ones", 2),
        ev("agent", "Which of the two blue jackets did you keep?", 3),
        ev("user", "The navy one with the hood.", 4),
        ev("agent", "Anything else?", 5),
        ev("user", "The red one.", 6),
    ]
    stored = await kept(events, sentence_router=nothing_router())
    assert stored == [
        "The hotel in Marrakesh upgraded us to a suite.",
        "The navy one with the hood.",
    ]
    # an answer that is itself a command is still no fact
    events[3] = ev("user", "Book the navy one.", 4)
    assert "Book the navy one." not in await kept(events, sentence_router=nothing_router())


FLIGHTS = {
    "origin": "London",
    "destination": "Lisbon",
    "flights": [
        {"flight": "TP1351", "departs": "06:10", "arrives": "09:45", "fare_eur": 189},
        {"flight": "BA500", "departs": "11:25", "arrives": "15:00", "fare_eur": 142},
    ],
}
LISTING = "TP1351 departs 06:10, arrives 09:45, 189 euros."
BOOKED = "Booked BA500, booking reference QX7K2P."


async def test_an_agent_restating_a_tools_result_set_is_not_stored_but_an_outcome_is():
    events = [
        tool_result("search_flights", FLIGHTS, 1),
        ev("agent", LISTING, 2),
        tool_result("book_flight", {"status": "booked", "flight": "BA500", "ref": "QX7K2P"}, 3),
        ev("agent", BOOKED, 4),
        ev("agent", "Lisbon is lovely in spring, the jacaranda trees bloom in May.", 5),
    ]
    verdicts: list[SentenceVerdict] = []
    assert await kept(events, verdicts) == [
        BOOKED,
        "Lisbon is lovely in spring, the jacaranda trees bloom in May.",
    ]
    assert "restates a tool's result set" in {v.reason for v in verdicts}
    assert LISTING in await kept(events, keep_tool_echoes=True)


CHEAPEST = {"flight": "U27613", "departs": "23:55", "fare_eur": 96}
ONE_OPTION = "The cheapest is U27613, a red-eye leaving at 23:55 for 96 euros."


async def test_an_agent_restating_the_one_hit_of_a_lookup_is_not_stored():
    events = [
        tool_result("search_flights", CHEAPEST, 1),
        ev("agent", ONE_OPTION, 2),
        tool_result("book_flight", {"status": "booked", "flight": "BA500", "ref": "QX7K2P"}, 3),
        ev("agent", BOOKED, 4),
    ]
    verdicts: list[SentenceVerdict] = []
    assert await kept(events, verdicts) == [BOOKED]
    assert "restates a tool's result set" in {v.reason for v in verdicts}


async def test_a_topic_the_agent_then_looked_up_is_a_request_not_a_fact():
    topic = "Heat pump adoption in Germany."
    events = [
        ev("user", topic, 1),
        tool_call("web_search", {"query": "heat pump adoption Germany"}, 2, invocation="i1"),
        ev("user", "My sister installs heat pumps in Germany.", 3),  # states something
        tool_call("web_search", {"query": "heat pump installers Germany"}, 4, invocation="i3"),
    ]
    verdicts: list[SentenceVerdict] = []
    assert await kept(events, verdicts) == ["My sister installs heat pumps in Germany."]
    assert "a request the agent looked up" in {v.reason for v in verdicts}
    # a tool that acts is no lookup: the same words sent to it are not a request
    acted = [
        ev("user", topic, 1),
        tool_call("save_note", {"text": "heat pump adoption Germany"}, 2, invocation="i1"),
    ]
    assert await kept(acted) == [topic]


@pytest.mark.parametrize(
    ("name", "reads"),
    [
        ("search_flights", True),
        ("getWeather", True),
        ("lookup-price", True),
        ("web_search", True),
        ("book_flight", False),
        ("search_and_book", False),
        ("send_email", False),
        ("", False),
    ],
)
def test_a_tool_reads_only_when_its_name_opens_with_a_lookup_verb(name, reads):
    assert reads_only(name) is reads


@pytest.mark.parametrize(
    ("sentence", "is_request"),
    [
        ("flights please", True),
        ("Show me cheaper ones.", True),
        ("OK, hold it.", True),
        ("Please rebook me: I want an aisle seat.", False),  # states what the user wants
        ("Please always deliver to the Pune office reception.", False),  # a standing order
        ("Good to hear from you, it has been a long week again and again.", False),  # long
        ("My sister Mia visits in June.", False),
    ],
)
def test_request_cue(sentence, is_request):
    assert is_request_to_agent(sentence) is is_request


# ------------------------------------------------------------------ through the Runner
TURNS = (
    "I live in London and my sister lives in Lisbon.",
    "flights please",
    "flights again",
    "Book the second one.",
)


def search_flights(origin: str, destination: str) -> dict:
    """Flights from origin to destination.

    Args:
        origin: departure city.
        destination: arrival city.
    """
    return FLIGHTS


def book_flight(flight: str) -> dict:
    """Book one flight.

    Args:
        flight: the flight number.
    """
    return {"status": "booked", "flight": flight, "ref": "QX7K2P"}


def responder(request):
    responses = last_function_responses(request)
    if responses and responses[0].name == "search_flights":
        return "Flights London to Lisbon: " + " ".join(
            f"{f['flight']} departs {f['departs']}, arrives {f['arrives']}, {f['fare_eur']} euros."
            for f in FLIGHTS["flights"]
        )
    if responses:
        return BOOKED
    said = last_user_text(request).lower()
    if "flights" in said:
        return [call("search_flights", origin="London", destination="Lisbon")]
    if "book" in said:
        return [call("book_flight", flight="BA500")]
    return "Noted."


@pytest.mark.slow
async def test_runner_session_write_stores_no_request_or_tool_echo(sessions, embedder, db_url):
    user = "u46"
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    queue = ReviewQueue(db_url)
    agent = LlmAgent(
        name="flights",
        model=ScriptedLlm(responder=responder),
        instruction="Find and book flights.",
        tools=[search_flights, book_flight],
    )
    app = App(
        name=f"wp46_{uuid.uuid4().hex[:8]}",
        root_agent=agent,
        plugins=[MemoryRoutingPlugin(applier=MemoryApplier(review_queue=queue))],
    )
    runner = Runner(app=app, session_service=sessions, memory_service=memory)
    try:
        session = await sessions.create_session(app_name=app.name, user_id=user)
        for said in TURNS:
            message = types.Content(role="user", parts=[types.Part(text=said)])
            async for _ in runner.run_async(
                user_id=user, session_id=session.id, new_message=message
            ):
                pass
        full = await sessions.get_session(app_name=app.name, user_id=user, session_id=session.id)
        await memory.add_session_to_memory(full)  # the closer's write
        async with operator_connect(memory.engine) as conn:
            rows = await conn.execute(
                text(f"SELECT kind, text FROM {TABLE} WHERE app_name = :app AND user_id = :u"),
                {"app": app.name, "u": user},
            )
            turn_rows = [r.text for r in rows if r.kind == "event"]
        joined = " ".join(turn_rows).lower()
        assert "flights please" not in joined and "flights again" not in joined, turn_rows
        assert "departs" not in joined, turn_rows  # the listing echoed from the search tool
        assert "book the second one" not in joined, turn_rows
        assert BOOKED in turn_rows, turn_rows  # the outcome of the booking stays
        found = await memory.search_memory(app_name=app.name, user_id=user, query="flights")
        hits = [m.content.parts[0].text.lower() for m in found.memories]
        assert not [h for h in hits if "flights please" in h or "departs" in h], hits
    finally:
        await runner.close()
        await queue.close()
        await memory.close()


async def test_the_default_router_keeps_no_request_as_a_fact():
    from adk_memory_kit.routing.offline import shared_learned_extractor

    said = [
        ("Summarize my findings.", None),
        ("Find me quiet hotels in Lisbon near the river.", None),
        ("Busca hoteles tranquilos en Lisboa.", None),
        ("Stop asking me to confirm prices.", None),
        ("I went hiking with my sister last weekend.", None),
    ]
    routes = await shared_learned_extractor().route_sentences(said)
    # the requests get no lasting home (at most a note for this session: where the work
    # they ask for belongs); a behaviour change and a life report keep theirs
    lasting = [[c for c in r.candidates if c.needed_in_future_sessions or c.key] for r in routes]
    assert [bool(found) for found in lasting[:3]] == [False, False, False]
    assert all(c.needed_later_this_session for r in routes[:3] for c in r.candidates)
    assert routes[3].candidates and routes[4].candidates
    assert routes[3].candidates[0].changes_agent_behaviour
    assert routes[4].candidates[0].needed_in_future_sessions
