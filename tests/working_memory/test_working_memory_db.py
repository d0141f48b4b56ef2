"""Working memory survives a round trip through ADK's DatabaseSessionService (PostgreSQL)."""

from __future__ import annotations

import pytest
from google.adk.sessions import DatabaseSessionService

from adk_memory_kit.testing import ScriptedLlm
from adk_memory_kit.working_memory import Scratchpad, render_view
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


async def test_state_round_trips_through_database_session_service(db_url: str):
    # Written first but with the longest name: JSONB would store it last as an object key, so
    # facts are a list (oldest first) and eviction goes by the recorded write time.
    first = call("record_fact", name="zz_first_written_fact", value="old", source="user")
    rest = [call("record_fact", name=f"f{i:02d}", value=f"v{i}", source="user") for i in range(10)]
    model = ScriptedLlm(
        turns=[
            [
                call("set_goal", goal="Move flight AB123 earlier"),
                call("add_constraint", constraint="keep seat 12A"),
                call("lookup_booking", ref="QX7T2L"),
            ],
            [first],
            rest,
            [
                call(
                    "record_fact", name="ref", value="QX7T2L", source="lookup_booking", pinned=True
                ),
                call("update_step", step="Find booking", status="done"),
                call("add_open_question", question="Accept another aircraft?"),
            ],
            [say("Noted.")],
        ]
    )
    service = DatabaseSessionService(db_url=db_url)
    try:
        h = await Harness(make_agent(model), service).start()
        notes = " ".join(f"v{i}" for i in range(10))
        await h.turn(f"Move my flight earlier, keep seat 12A. Old notes: old {notes}")
        written = await h.state()
    finally:
        await service.close()
    assert len(written["wm"]["facts"]) == 12

    fresh = DatabaseSessionService(db_url=db_url)
    try:
        session = await fresh.get_session(app_name=APP, user_id=USER, session_id=h.session_id)
        assert session is not None
        assert session.state["wm"] == written["wm"]
        assert session.state["wm_view"] == written["wm_view"]
        pad = Scratchpad.load(session.state["wm"])
        assert pad.facts["ref"].pinned and pad.facts["ref"].source == "lookup_booking"
        assert render_view(pad).text == session.state["wm_view"]
        stored = session.state["wm"]["facts"]
        assert stored[0]["name"] == "zz_first_written_fact"
        assert [f["written_at"] for f in stored] == sorted(f["written_at"] for f in stored)

        model.turns = [
            [call("record_fact", name="new_fact", value="window seat", source="user")],
            [say("ok")],
            [call("complete_task")],
            [say("done")],
        ]
        h2 = Harness(make_agent(model), fresh)
        h2.session_id = h.session_id
        events = await h2.turn("one more thing: window seat")
        assert replies(events, "record_fact")[0]["evicted"] == ["zz_first_written_fact"]
        assert "Goal: Move flight AB123 earlier" in request_text(model.requests[-2])
        await h2.turn("that's all, thanks")
    finally:
        await fresh.close()

    final = DatabaseSessionService(db_url=db_url)
    try:
        session = await final.get_session(app_name=APP, user_id=USER, session_id=h.session_id)
        assert session.state["wm"] is None and session.state["wm_view"] == ""
    finally:
        await final.close()
