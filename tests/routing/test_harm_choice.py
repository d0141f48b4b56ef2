"""Issue 44, choosing by harm, through the real Runner with ``MemoryRoutingPlugin()``: a
one-off request never overwrites a lasting preference, a question never writes ``user:``
state, a standing order said in Spanish goes to review, a request to forget said in
Portuguese is acted on, a special category is dropped, thanks keep nothing, and a two-fact
message keeps both facts in their homes."""

from __future__ import annotations

import json
import uuid

import pytest
from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.runners import Runner
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.genai import types

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.routing import MemoryHome, MemoryRoutingPlugin, ReviewQueue
from adk_memory_kit.testing import ScriptedLlm

pytestmark = pytest.mark.slow
H = MemoryHome


@pytest.fixture
async def chat(db_url, embedder):
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    outcomes: list = []
    plugin = MemoryRoutingPlugin(on_outcomes=outcomes.extend)
    app = App(
        name=f"harm_{uuid.uuid4().hex[:8]}",
        root_agent=LlmAgent(name="helper", model=ScriptedLlm(responder=lambda r: "Okay.")),
        plugins=[plugin],
    )
    runner = Runner(app=app, session_service=sessions, memory_service=memory)
    user = f"u-{uuid.uuid4().hex[:8]}"
    session = await sessions.create_session(app_name=app.name, user_id=user)

    async def say(text: str) -> list:
        outcomes.clear()
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in runner.run_async(user_id=user, session_id=session.id, new_message=message):
            pass
        return list(outcomes)

    async def state() -> dict:
        got = await sessions.get_session(app_name=app.name, user_id=user, session_id=session.id)
        return dict(got.state)

    yield app, user, memory, say, state
    await runner.close()
    await memory.close()
    await sessions.close()


async def test_a_one_off_request_never_overwrites_a_lasting_preference(chat):
    _, _, _, say, state = chat
    await say("Always show me prices in euros.")
    lasting = (await state())["user:pref_currency"]
    assert lasting.lower().startswith("eur")
    outcomes = await say("Just this once show me the prices in dollars.")
    assert (await state())["user:pref_currency"] == lasting
    assert H.USER_STATE not in {o.home for o in outcomes}


async def test_a_question_never_writes_user_state(chat):
    _, _, _, say, state = chat
    for question in ("Can you show prices in yen?", "Do you book aisle seats?"):
        outcomes = await say(question)
        assert H.USER_STATE not in {o.home for o in outcomes}
    assert not [k for k in await state() if k.startswith("user:pref_")]


async def test_a_standing_order_in_spanish_goes_to_review_not_memory(chat, db_url):
    app, user, memory, say, _ = chat
    outcomes = await say("A partir de ahora no me mandes resúmenes los lunes.")
    assert [o.home for o in outcomes] == [H.PROCEDURAL_REVIEW]
    queue = ReviewQueue(db_url)
    (item,) = await queue.list(app_name=app.name, user_id=user)
    await queue.close()
    assert "resúmenes" in item.text
    assert await memory.count_memories(app_name=app.name, user_id=user) == {}


async def test_a_request_to_forget_in_portuguese_is_acted_on(chat):
    _, _, _, say, _ = chat
    await say("I work at a bakery in Porto.")
    outcomes = await say("Esquece o que eu falei sobre o meu trabalho na padaria.")
    assert [o.home for o in outcomes] == [H.FORGET]


async def test_a_special_category_is_dropped_and_thanks_keep_nothing(chat):
    app, user, memory, say, state = chat
    outcomes = await say("I'm Jewish, so keep that in mind for the dinner plans.")
    # the religion is dropped; the task beside it may stay as this session's note, without it
    homes = {o.home for o in outcomes}
    assert H.DROP in homes and homes <= {H.DROP, H.SESSION_STATE}
    assert "jewish" not in json.dumps(await state()).lower()
    assert await say("Danke dir, passt schon!") == []
    assert await memory.count_memories(app_name=app.name, user_id=user) == {}


async def test_a_two_fact_message_keeps_both_in_their_homes(chat):
    app, user, memory, say, state = chat
    outcomes = await say("We have two beagles at home, so only dog-friendly hotels in this search.")
    homes = {o.home: o for o in outcomes}
    assert homes[H.LONG_TERM].status == "stored"
    assert homes[H.SESSION_STATE].status == "stored"
    found = await memory.search_memory(app_name=app.name, user_id=user, query="beagles")
    assert any("beagles" in (m.content.parts[0].text or "") for m in found.memories)
    assert any(
        "dog-friendly" in str(v)
        for k, v in (await state()).items()
        if k.startswith("fact_") or k == "memory_notes"
    )
