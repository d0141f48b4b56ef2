"""Sub-agents of a ParallelAgent write their own keys; a merge callback combines them."""

from __future__ import annotations

import asyncio
import warnings

import pytest
from google.adk.agents.llm_agent import LlmAgent

from adk_memory_kit.testing import ScriptedLlm
from adk_memory_kit.working_memory import (
    Scratchpad,
    WorkingMemoryToolset,
    merge_branches_callback,
    render_view,
    working_memory_instruction,
)
from tests.support.working_memory import (
    Harness,
    call,
    replies,
    request_text,
    say,
)

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from google.adk.agents.parallel_agent import ParallelAgent


async def test_parallel_branches_write_own_keys_and_merge_loses_nothing():
    flights_done = asyncio.Event()

    def search_flights(route: str) -> dict:
        """Search flights on a route."""
        return {"route": route, "best": "AB117 07:40"}

    async def flights_second_turn(_request):
        flights_done.set()
        return [
            call("record_fact", name="flight", value="AB117 07:40", source="search_flights"),
            call("update_step", step="Search flights", status="done"),
            call("add_constraint", constraint="depart before 09:00"),
        ]

    async def hotels_first_turn(_request):
        await asyncio.wait_for(flights_done.wait(), timeout=10)
        # The sibling's tool result is on another branch: not a valid source here.
        return [call("record_fact", name="flight_seen", value="AB117", source="search_flights")]

    flights_model = ScriptedLlm(
        turns=[[call("search_flights", route="LHR-JFK")], flights_second_turn, [say("flights ok")]]
    )
    hotels_model = ScriptedLlm(
        turns=[
            hotels_first_turn,
            [
                call("record_fact", name="hotel", value="Ibis Midtown", source="user", pinned=True),
                call("update_step", step="Search hotels", status="doing"),
                call("add_open_question", question="Breakfast included?"),
            ],
            [say("hotels ok")],
        ]
    )
    flights = LlmAgent(
        name="flights",
        model=flights_model,
        instruction=working_memory_instruction("wm_flights"),
        tools=[WorkingMemoryToolset(key="wm_flights"), search_flights],
    )
    hotels = LlmAgent(
        name="hotels",
        model=hotels_model,
        instruction=working_memory_instruction("wm_hotels"),
        tools=[WorkingMemoryToolset(key="wm_hotels")],
    )
    trip = ParallelAgent(
        name="trip",
        sub_agents=[flights, hotels],
        after_agent_callback=merge_branches_callback(["wm_flights", "wm_hotels"]),
    )
    base = Scratchpad(goal="Plan a New York trip", constraints=["budget 1500 EUR"])
    h = await Harness(trip).start(state={"wm": base.dump(), "wm_view": render_view(base).text})
    events = await h.turn("Find me a flight and a hotel; the Ibis Midtown would be great")

    refused = replies(events, "record_fact")
    assert [r["status"] for r in refused].count("rejected") == 1
    rejected = next(r for r in refused if r["status"] == "rejected")
    assert "tools with results: none" in rejected["message"]
    session_events = await h.events()
    search_at = next(
        i
        for i, e in enumerate(session_events)
        if any(r.name == "search_flights" for r in e.get_function_responses())
    )
    refused_at = next(
        i
        for i, e in enumerate(session_events)
        if e.author == "hotels" and e.get_function_responses()
    )
    assert search_at < refused_at  # it was refused for its branch, not for timing

    state = await h.state()
    pad = Scratchpad.load(state["wm"])
    assert pad.goal == "Plan a New York trip"
    assert pad.constraints == ["budget 1500 EUR", "depart before 09:00"]
    assert set(pad.facts) == {"flight", "hotel"} and pad.facts["hotel"].pinned
    assert [(s.step, s.status) for s in pad.plan] == [
        ("Search flights", "done"),
        ("Search hotels", "doing"),
    ]
    assert pad.open == ["Breakfast included?"]
    assert state["wm_view"] == render_view(pad).text
    assert state["wm_flights"] is None and state["wm_hotels"] is None
    assert state["wm_flights_view"] == "" and state["wm_hotels_view"] == ""
    # Each branch saw its own view in its next request.
    assert "flight = AB117 07:40 [search_flights]" in request_text(flights_model.requests[-1])
    assert "Breakfast included?" in request_text(hotels_model.requests[-1])
    assert "Breakfast" not in request_text(flights_model.requests[-1])
