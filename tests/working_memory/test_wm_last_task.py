"""The finished task's record (``wm_last_task``), ISO times in ``wm``, word-boundary cuts."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from google.adk.sessions import DatabaseSessionService

from adk_memory_kit.core.times import parse_time
from adk_memory_kit.testing import ScriptedLlm
from adk_memory_kit.working_memory import Scratchpad, WorkingMemoryConfig, last_task_key_for
from adk_memory_kit.working_memory import operations as ops
from adk_memory_kit.working_memory.guards import clip
from adk_memory_kit.working_memory.model import PlanStep
from tests.support.working_memory import APP, USER, Harness, call, make_agent, replies, say

CFG = WorkingMemoryConfig()
NOW = datetime(2026, 11, 30, 9, 15, 30, tzinfo=timezone.utc).timestamp()


def test_clip_cuts_at_a_word_boundary_with_an_ellipsis():
    text = "reviewers rate the hotel highly, with caveats about noise and prices"
    cut, was_cut = clip(text, 44)
    assert was_cut and cut == "reviewers rate the hotel highly, with…"
    assert len(cut) <= 44 and text.startswith(cut[:-1])
    assert clip("short", 44) == ("short", False)
    # one word longer than half the room is cut inside the word (still bounded)
    assert clip("a " + "x" * 60, 20) == ("a " + "x" * 17 + "…", True)


def test_legacy_epoch_written_at_loads_and_dumps_as_iso():
    legacy = {
        "v": 2,
        "goal": "Rebook",
        "facts": [
            {"name": "ref", "value": "QX7", "source": "user", "pinned": True, "written_at": 1.5e9},
            {"name": "seat", "value": "12A", "source": "user", "written_at": 1.6e9},
        ],
    }
    pad = Scratchpad.load(legacy, config=CFG)
    assert pad.facts["ref"].at == 1.5e9 and pad.facts_oldest_first() == ["ref", "seat"]
    dumped = pad.dump()
    times = [f["written_at"] for f in dumped["facts"]]
    assert times == ["2017-07-14T02:40:00.000000+00:00", "2020-09-13T12:26:40.000000+00:00"]
    assert Scratchpad.load(dumped).dump() == dumped  # the ISO form round-trips unchanged


def test_iso_written_at_keeps_eviction_order_to_the_microsecond():
    pad = Scratchpad()
    for name in ("b_first", "a_second", "c_third"):
        ops.record_fact(pad, name, "v", "user", False, called_tools=[], config=CFG, now=NOW)
    reloaded = Scratchpad.load(pad.dump())
    assert reloaded.facts_oldest_first() == ["b_first", "a_second", "c_third"]
    assert len({f["written_at"] for f in pad.dump()["facts"]}) == 3


def test_finished_task_record_is_compact_and_bounded():
    pad = Scratchpad(goal="Rebook the cancelled Friday flight SFO to JFK")
    pad.plan = [PlanStep(step=f"step {i} " + "word " * 40, status="done") for i in range(9)]
    pad.plan.append(PlanStep(step="Confirm with the user", status="todo"))
    pad.open = ["Aisle or window?"]
    ops.record_fact(pad, "ref", "QX7T2L", "user", True, called_tools=[], config=CFG, now=NOW)
    record = ops.finished_task(pad, "Held UA 512, not confirmed", CFG, now=NOW)
    assert record == {
        "goal": "Rebook the cancelled Friday flight SFO to JFK",
        "outcome": "ended with 1 step not done, 1 open question",
        "summary": "Held UA 512, not confirmed",
        "steps_done": record["steps_done"],
        "steps_done_count": 9,
        "steps_total": 10,
        "facts": 1,
        "finished_at": "2026-11-30T09:15:30+00:00",
    }
    assert [s.split()[1] for s in record["steps_done"]] == ["4", "5", "6", "7", "8"]
    for step in record["steps_done"]:
        assert len(step) <= ops.LAST_TASK_STEP_CHARS and step.endswith("word…")
    assert "QX7T2L" not in str(record)  # fact values stay out of the record
    done = Scratchpad(goal="g", plan=[PlanStep(step="s", status="done")])
    bare = ops.finished_task(done, "", CFG, now=NOW)
    assert bare["outcome"] == "completed" and "summary" not in bare  # no empty summary
    assert ops.finished_task(Scratchpad(), "", CFG, now=NOW) is None


@pytest.mark.slow
async def test_complete_task_keeps_a_record_in_the_reloaded_session(db_url: str):
    model = ScriptedLlm(
        turns=[
            [
                call("set_goal", goal="Rebook flight AB123"),
                call("record_fact", name="ref", value="QX7T2L", source="user", pinned=True),
                call("update_step", step="Find booking", status="done"),
            ],
            [call("complete_task", summary="Rebooked on AB125")],
            [say("Done.")],
        ]
    )
    service = DatabaseSessionService(db_url=db_url)
    try:
        h = await Harness(make_agent(model), service).start()
        events = await h.turn("Rebook flight AB123, my booking is QX7T2L")
        done = replies(events, "complete_task")[0]
        assert done["status"] == "cleared" and "wm_last_task" in done["message"]
    finally:
        await service.close()
    fresh = DatabaseSessionService(db_url=db_url)
    try:
        session = await fresh.get_session(app_name=APP, user_id=USER, session_id=h.session_id)
    finally:
        await fresh.close()
    assert session is not None and session.state["wm"] is None and session.state["wm_view"] == ""
    last = session.state[last_task_key_for("wm")]
    assert last["goal"] == "Rebook flight AB123" and last["outcome"] == "completed"
    assert last["summary"] == "Rebooked on AB125" and last["steps_done"] == ["Find booking"]
    assert last["facts"] == 1 and last["steps_total"] == 1
    finished = parse_time(last["finished_at"])
    assert isinstance(last["finished_at"], str) and finished is not None
    assert abs(finished.timestamp() - datetime.now(timezone.utc).timestamp()) < 300
