"""Agent sentences that only report what the kit's memory tools did are not stored (ROUTED).

The concierge under ``adk web`` said "Saved to your profile: diet = vegetarian." and "Session
closed into long-term memory (rows_stored: N)."; both became long-term ``event`` memories
although the diet lives in ``user:`` state and the session is already in memory.
"""

from __future__ import annotations

import uuid

import pytest
from google.adk.runners import Runner
from google.adk.tools.function_tool import FunctionTool
from google.genai import types
from sqlalchemy import text

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.session_policy import WritePolicy
from adk_memory_kit.core.tool_names import (
    END_SESSION_TOOL_NAME,
    MEMORY_TOOL_NAMES,
    PROFILE_TOOL_NAMES,
)
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.demo.concierge import build_concierge_app
from adk_memory_kit.lifecycle import end_session_tool
from adk_memory_kit.memory.tables import TABLE
from adk_memory_kit.profile import make_profile_tools
from adk_memory_kit.routing import ReviewQueue
from adk_memory_kit.routing.provenance import KIT_MEMORY_TOOL_NAMES
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses, last_user_text
from adk_memory_kit.tools import MemoryToolset
from adk_memory_kit.working_memory import WORKING_MEMORY_TOOL_NAMES

SAVED = "Saved to your profile: diet = vegetarian."
BOOKED = "Your table for two at Luigi's is booked for Friday at 7pm, confirmation LX42."


async def test_kit_tool_names_are_the_real_tools_names():
    toolset_names = {t.name for t in await MemoryToolset().get_tools()}
    assert toolset_names == set(MEMORY_TOOL_NAMES)
    assert {t.name for t in make_profile_tools()} == set(PROFILE_TOOL_NAMES)
    assert end_session_tool().name == END_SESSION_TOOL_NAME
    assert KIT_MEMORY_TOOL_NAMES == {
        *MEMORY_TOOL_NAMES,
        *PROFILE_TOOL_NAMES,
        END_SESSION_TOOL_NAME,
        *WORKING_MEMORY_TOOL_NAMES,
    }


async def book_table(restaurant: str, people: int, when: str) -> dict:
    """Book a table (a stand-in for a real booking API)."""
    return {"status": "confirmed", "restaurant": restaurant, "people": people, "ref": "LX42"}


def responder(request):
    responses = last_function_responses(request)
    if responses:
        name, payload = responses[0].name, responses[0].response or {}
        if name == "save_preference":
            return f"Saved to your profile: {payload['name']} = {payload['value']}."
        if name == "book_table":
            return BOOKED
        if name == "end_session":
            return f"Session closed into long-term memory (rows_stored: {payload['rows_stored']})."
        return "Done."
    said = last_user_text(request)
    if "vegetarian" in said:
        return [call("save_preference", name="diet", value="vegetarian")]
    if "table" in said:
        return [call("book_table", restaurant="Luigi's", people=2, when="Friday 7pm")]
    return [call("end_session")]


async def say(runner: Runner, user: str, session_id: str, said: str) -> list:
    message = types.Content(role="user", parts=[types.Part(text=said)])
    return [
        e async for e in runner.run_async(user_id=user, session_id=session_id, new_message=message)
    ]


@pytest.mark.slow
async def test_reports_of_memory_tools_are_not_stored_but_a_booking_is(sessions, embedder, db_url):
    user = "u1"
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    assert memory.config.write_policy is WritePolicy.ROUTED
    queue = ReviewQueue(db_url)
    app = build_concierge_app(ScriptedLlm(responder=responder), review_queue=queue)
    app = app.model_copy(update={"name": f"prov_{uuid.uuid4().hex[:8]}"})
    app.root_agent.tools.append(FunctionTool(book_table))
    runner = Runner(app=app, session_service=sessions, memory_service=memory)
    try:
        session = await sessions.create_session(app_name=app.name, user_id=user)
        said = []
        for turn in ("I'm vegetarian.", "Book a table for two at Luigi's.", "Bye!"):
            events = await say(runner, user, session.id, turn)
            said += [p.text for e in events if e.content for p in e.content.parts or [] if p.text]
        closed = [s for s in said if s.startswith("Session closed into long-term memory")]
        assert SAVED in said and BOOKED in said and closed
        # ingest the whole session once more, as the idle job would after the last reply
        full = await sessions.get_session(app_name=app.name, user_id=user, session_id=session.id)
        assert full.state["user:pref_diet"] == "vegetarian"
        await memory.add_session_to_memory(full)

        async with operator_connect(memory.engine) as conn:
            rows = await conn.execute(
                text(f"SELECT text FROM {TABLE} WHERE app_name = :app AND user_id = :user"),
                {"app": app.name, "user": user},
            )
            texts = [r.text for r in rows]
        assert any("confirmation LX42" in t for t in texts), texts
        assert not [t for t in texts if "Saved to your profile" in t], texts
        assert not [t for t in texts if "Session closed" in t], texts
        for query in ("diet vegetarian profile", "session closed long-term memory events"):
            found = await memory.search_memory(app_name=app.name, user_id=user, query=query)
            hits = [m.content.parts[0].text for m in found.memories]
            assert not [h for h in hits if "Saved to your" in h or "Session closed" in h], hits
    finally:
        await runner.close()
        await queue.close()
        await memory.close()
