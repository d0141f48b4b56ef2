"""Several working-memory calls in ONE model turn, through a real Runner.

ADK runs the calls of one model turn concurrently and merges their state deltas into one
event with a deep merge (``flows/llm_flows/tools/_batch_executor.py``). These tests pin
down that evicted facts stay evicted, that later calls build on earlier ones, and that the
stored scratchpad and its view always agree and keep every budget.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.adk.sessions import DatabaseSessionService

from adk_memory_kit.testing import ScriptedLlm
from adk_memory_kit.working_memory import (
    SCHEMA_VERSION,
    Scratchpad,
    WorkingMemoryConfig,
    render_view,
)
from adk_memory_kit.working_memory.render import CLOSE_TAG, OPEN_TAG
from tests.support.working_memory import (
    APP,
    USER,
    Harness,
    call,
    make_agent,
    replies,
    request_text,
    say,
)

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it

SMALL = WorkingMemoryConfig(max_facts=3)


def assert_consistent(state: dict[str, Any], config: WorkingMemoryConfig, key: str = "wm") -> None:
    """Stored scratchpad and view agree, and the stored value already keeps every budget."""
    raw = state.get(key)
    if raw is None:
        assert state.get(f"{key}_view", "") == ""
        return
    assert raw["v"] == SCHEMA_VERSION and isinstance(raw["facts"], list)
    names = [f["name"] for f in raw["facts"]]
    assert len(names) == len(set(names))
    pad = Scratchpad.load(raw)
    # Loading with the budget changes nothing: what is stored is already within it.
    assert Scratchpad.load(raw, config=config).dump() == raw == pad.dump()
    assert len(pad.facts) <= config.max_facts
    assert len(pad.open) <= config.max_open_questions
    assert len(pad.constraints) <= config.max_constraints
    assert len(pad.plan) <= config.max_plan_steps
    view = state[f"{key}_view"]
    assert view == render_view(pad, config).text
    assert len(view) <= config.max_view_chars
    for name in pad.facts:  # every fact shown is stored, and none stored is lost silently
        assert f"- {name} = " in view or f"- {name}* = " in view or "not shown" in view
    for line in view.splitlines():
        if line.startswith("- ") and " = " in line:
            assert line[2:].split(" = ")[0].rstrip("*") in pad.facts


async def test_two_record_facts_in_one_turn_do_not_bring_back_an_evicted_fact():
    model = ScriptedLlm(
        turns=[
            [call("record_fact", name=f"f{i}", value=f"v{i}", source="user") for i in (1, 2, 3)],
            [
                call("record_fact", name="f4", value="v4", source="user"),
                call("record_fact", name="f5", value="v5", source="user"),
            ],
            [say("ok")],
        ]
    )
    h = await Harness(make_agent(model, config=SMALL)).start()
    events = await h.turn("remember v1 v2 v3 v4 v5")
    r = replies(events, "record_fact")
    assert [x["status"] for x in r] == ["ok"] * 5
    # The second call of the turn saw the first call's write: it evicted f2, not f1 again.
    assert [x["evicted"] for x in r[3:]] == [["f1"], ["f2"]]
    state = await h.state()
    assert [f["name"] for f in state["wm"]["facts"]] == ["f3", "f4", "f5"]
    assert_consistent(state, SMALL)
    # The model's next request shows exactly the stored view.
    assert state["wm_view"] in request_text(model.requests[-1])
    assert "f1 = " not in request_text(model.requests[-1])
    assert "f2 = " not in request_text(model.requests[-1])


async def test_later_calls_in_a_turn_build_on_earlier_ones():
    model = ScriptedLlm(
        turns=[
            [
                call("set_goal", goal="Rebook"),
                call("add_open_question", question="Window or aisle?"),
                call("update_step", step="Ask seat", status="doing"),
                call("resolve_open_question", question="Window or aisle?"),
                call("update_step", step="Ask seat", status="done"),
                call("set_goal", goal="Rebook to Friday"),
            ],
            [say("ok")],
        ]
    )
    h = await Harness(make_agent(model, config=SMALL)).start()
    events = await h.turn("go")
    assert replies(events, "resolve_open_question")[0]["status"] == "ok"
    assert "doing -> done" in replies(events, "update_step")[1]["message"]
    assert "was: Rebook" in replies(events, "set_goal")[1]["message"]
    state = await h.state()
    assert state["wm"]["open"] == [] and state["wm"]["goal"] == "Rebook to Friday"
    assert state["wm"]["plan"] == [{"step": "Ask seat", "status": "done"}]
    assert_consistent(state, SMALL)


async def test_calls_that_finish_out_of_order_still_leave_state_and_view_in_step():
    """A before-tool callback that awaits makes the first call of the turn run last."""
    model = ScriptedLlm(
        turns=[
            [call("record_fact", name=f"f{i}", value=f"v{i}", source="user") for i in (1, 2, 3)],
            [
                call("record_fact", name="f4", value="v4", source="user"),
                call("record_fact", name="f5", value="v5", source="user"),
                call("add_constraint", constraint="aisle seat"),
            ],
            [say("ok")],
            [
                call("complete_task"),
                call("set_goal", goal="A new task"),
            ],
            [say("ok")],
        ]
    )
    agent = make_agent(model, config=SMALL)

    async def slow_first_call(tool, args, tool_context):
        if args.get("name") == "f4" or tool.name == "complete_task":
            await asyncio.sleep(0.05)
        return None

    agent.before_tool_callback = slow_first_call
    h = await Harness(agent).start()
    await h.turn("remember v1 v2 v3 v4 v5")
    state = await h.state()
    # f5 ran first (evicting f1), f4 last (evicting f2): what ran last is what is kept.
    assert [f["name"] for f in state["wm"]["facts"]] == ["f3", "f5", "f4"]
    assert state["wm"]["constraints"] == ["aisle seat"]
    assert_consistent(state, SMALL)
    assert "f2 = " not in state["wm_view"]

    await h.turn("next")
    state = await h.state()
    # complete_task ran after set_goal, so the task is cleared: both keys agree on that.
    assert state["wm"] is None and state["wm_view"] == ""


async def test_stored_state_beyond_the_budget_is_repaired_on_the_next_call():
    # A v1 scratchpad (facts keyed by name) holding four facts, one more than the budget,
    # as the deep merge of older versions could leave behind.
    v1 = {
        "v": 1,
        "goal": "Rebook",
        "facts": {
            name: {"value": name.upper(), "source": "user", "pinned": name == "a", "at": at}
            for name, at in (("a", 1.0), ("b", 2.0), ("c", 3.0), ("d", 4.0))
        },
    }
    model = ScriptedLlm(
        turns=[
            [call("add_open_question", question="")],  # rejected, but the load repairs
            [say("ok")],
        ]
    )
    h = await Harness(make_agent(model, config=SMALL)).start(state={"wm": v1, "wm_view": "stale"})
    events = await h.turn("go")
    assert replies(events, "add_open_question")[0]["status"] == "rejected"
    state = await h.state()
    assert [f["name"] for f in state["wm"]["facts"]] == ["a", "c", "d"]  # oldest unpinned out
    assert_consistent(state, SMALL)


async def test_multi_call_turns_round_trip_through_database_session_service(db_url: str):
    config = WorkingMemoryConfig(max_facts=3, max_open_questions=2)
    model = ScriptedLlm(
        turns=[
            [
                call("set_goal", goal="Move flight AB123 earlier"),
                call("lookup_booking", ref="QX7T2L"),
                call("record_fact", name="seat", value="12A", source="user", pinned=True),
                call("record_fact", name="early", value="before 9am", source="user"),
            ],
            [
                call("record_fact", name="ref", value="QX7T2L", source="lookup_booking"),
                call("record_fact", name="fare", value="Y", source="lookup_booking"),
                call("record_fact", name="flight", value="AB123", source="lookup_booking"),
                call("add_open_question", question="Accept another aircraft?"),
                call("add_open_question", question="Window instead?"),
                call("add_open_question", question="Lounge?"),
            ],
            [say("Noted.")],
        ]
    )
    service = DatabaseSessionService(db_url=db_url)
    try:
        h = await Harness(make_agent(model, config=config), service).start()
        events = await h.turn("Move my flight earlier, keep seat 12A, arrive before 9am")
        written = await h.state()
    finally:
        await service.close()
    r = replies(events, "record_fact")
    assert [x["status"] for x in r] == ["ok"] * 5
    assert [x["evicted"] for x in r] == [[], [], [], ["early"], ["ref"]]
    assert [x["status"] for x in replies(events, "add_open_question")] == ["ok", "ok", "rejected"]
    assert [f["name"] for f in written["wm"]["facts"]] == ["seat", "fare", "flight"]
    assert written["wm"]["open"] == ["Accept another aircraft?", "Window instead?"]
    assert_consistent(written, config)

    fresh = DatabaseSessionService(db_url=db_url)
    try:
        session = await fresh.get_session(app_name=APP, user_id=USER, session_id=h.session_id)
        assert session is not None
        assert session.state["wm"] == written["wm"]
        assert session.state["wm_view"] == written["wm_view"]
        assert_consistent(dict(session.state), config)
        view = session.state["wm_view"]
        assert view.startswith(OPEN_TAG) and view.endswith(CLOSE_TAG)
    finally:
        await fresh.close()
