"""Task ledger on the working-memory plan: step ids, dependencies, readiness in the view."""

from __future__ import annotations

from adk_memory_kit.working_memory import operations as ops
from adk_memory_kit.working_memory.config import WorkingMemoryConfig
from adk_memory_kit.working_memory.ledger import ready_steps
from adk_memory_kit.working_memory.model import Scratchpad
from adk_memory_kit.working_memory.render import render_view

CFG = WorkingMemoryConfig()


def ledger_pad() -> Scratchpad:
    pad = Scratchpad(goal="Write the report")
    assert ops.update_step(pad, "Fetch sales data", "todo", CFG, step_id="fetch").ok
    assert ops.update_step(pad, "Fetch costs", "todo", CFG, step_id="costs").ok
    out = ops.update_step(
        pad, "Write report", "todo", CFG, step_id="report", depends_on=["fetch", "costs"]
    )
    assert out.ok and "Ready: fetch, costs." in out.message
    return pad


def test_ready_steps_follow_dependencies():
    pad = ledger_pad()
    assert [s.id for s in ready_steps(pad)] == ["fetch", "costs"]
    ops.update_step(pad, "Fetch sales data", "done", CFG)  # by text, as before
    assert [s.id for s in ready_steps(pad)] == ["costs"]
    out = ops.update_step(pad, "anything", "done", CFG, step_id="costs")  # by id
    assert out.ok and pad.plan[1].status == "done" and pad.plan[1].step == "Fetch costs"
    assert [s.id for s in ready_steps(pad)] == ["report"]


def test_view_marks_ready_and_waiting_steps():
    pad = ledger_pad()
    ops.update_step(pad, "Fetch sales data", "done", CFG)
    view = render_view(pad, CFG).text
    assert "- [done] fetch: Fetch sales data" in view
    assert "- [todo] costs: Fetch costs - READY" in view
    assert "- [todo] report: Write report (after fetch, costs) - waiting for costs" in view


def test_bad_dependencies_are_refused():
    pad = ledger_pad()
    unknown = ops.update_step(pad, "Send", "todo", CFG, depends_on=["mail"])
    assert not unknown.ok and "unknown step ids ['mail']" in unknown.message
    cycle = ops.update_step(pad, "Fetch sales data", "todo", CFG, depends_on=["report"])
    assert not cycle.ok and "cycle" in cycle.message
    itself = ops.update_step(pad, "Write report", "todo", CFG, depends_on=["report"])
    assert not itself.ok
    bad_id = ops.update_step(pad, "Send", "todo", CFG, step_id="Not An Id!")
    assert not bad_id.ok and "step_id" in bad_id.message
    assert len(pad.plan) == 3


def test_depends_on_gives_an_id_and_state_round_trips():
    pad = ledger_pad()
    out = ops.update_step(pad, "Send it", "todo", CFG, depends_on=["report"])
    assert out.ok and "with id 's4'" in out.message
    dumped = pad.dump()
    assert dumped["plan"][3] == {
        "step": "Send it",
        "status": "todo",
        "id": "s4",
        "depends_on": ["report"],
    }
    again = Scratchpad.load(dumped)
    assert again.plan == pad.plan


def test_plans_without_ids_are_stored_and_shown_as_before():
    old_state = {"v": 2, "goal": "g", "plan": [{"step": "Ask seat", "status": "todo"}]}
    pad = Scratchpad.load(old_state)
    ops.update_step(pad, "Ask seat", "done", CFG)
    ops.update_step(pad, "Book", "todo", CFG)
    assert pad.dump()["plan"] == [
        {"step": "Ask seat", "status": "done"},
        {"step": "Book", "status": "todo"},
    ]
    view = render_view(pad, CFG).text
    assert "- [todo] Book\n" in view and "READY" not in view


def test_collapsed_done_steps_keep_their_ids_in_the_view():
    pad = ledger_pad()
    for step_id in ("fetch", "costs", "report"):
        ops.update_step(pad, "x", "done", CFG, step_id=step_id)
    ops.update_step(pad, "Send", "todo", CFG, step_id="send", depends_on=["report"])
    view = render_view(pad, WorkingMemoryConfig(done_steps_shown=2)).text
    assert "- [done] 3 steps done: fetch, costs, report" in view
    assert "- [todo] send: Send (after report) - READY" in view
