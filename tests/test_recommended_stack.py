"""Issue 46: the recommended stack through the real Runner. One message holding four facts
puts each in its home with nothing skipped; the instruction reaches the agent only after a
person approves it, and leaves it when revoked; the card is in no table and no export."""

from __future__ import annotations

import json
import uuid

import pytest
from google.adk.agents import LlmAgent
from google.genai import types

from adk_memory_kit import MemoryKit
from adk_memory_kit.console.data import ConsoleData
from adk_memory_kit.console.user_data import export_user
from adk_memory_kit.routing import MemoryHome, ReviewQueue
from adk_memory_kit.routing.approved_instructions import BLOCK_START, render_instructions
from adk_memory_kit.testing import ScriptedLlm
from tests.support.privacy_scan import table_texts

pytestmark = pytest.mark.slow

CARD = "4539 1488 0343 6467"
MESSAGE = (
    "I'm vegetarian. For this trip my budget is 400 euros. "
    "Never book red-eye flights without asking me. "
    f"My card is {CARD}."
)
INSTRUCTION = "Never book red-eye flights without asking me."


def system_text(request) -> str:
    return str(request.config.system_instruction or "")


@pytest.fixture
async def kit(db_url, embedder):
    from adk_memory_kit import PgVectorMemoryService

    memory = PgVectorMemoryService(db_url, embedder=embedder)
    kit = MemoryKit(db_url, memory_service=memory)
    yield kit
    await kit.close()
    await memory.close()


async def _say(runner, user: str, session_id: str, text: str) -> None:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for _ in runner.run_async(user_id=user, session_id=session_id, new_message=message):
        pass


async def test_four_facts_land_in_their_homes_and_approval_closes_the_loop(kit, db_url):
    app_name, user = f"stack_{uuid.uuid4().hex[:8]}", "u1"
    outcomes: list = []
    llm = ScriptedLlm(responder=lambda request: "Noted.")
    agent = LlmAgent(name="travel", model=llm, instruction="You book trips.")
    runner = kit.runner(agent, app_name=app_name)
    routing = next(p for p in runner.app.plugins if p.name == "memory_routing")
    routing.on_outcomes = outcomes.extend

    first = await kit.session_service.create_session(app_name=app_name, user_id=user)
    await _say(runner, user, first.id, MESSAGE)

    by_home = {o.home: o for o in outcomes}
    assert by_home[MemoryHome.USER_STATE].status == "stored"
    assert by_home[MemoryHome.SESSION_STATE].status == "stored"
    assert by_home[MemoryHome.PROCEDURAL_REVIEW].status == "queued"
    assert by_home[MemoryHome.DROP].status == "dropped"
    assert not [o for o in outcomes if o.status in ("skipped", "failed")]
    session = await kit.session_service.get_session(
        app_name=app_name, user_id=user, session_id=first.id
    )
    assert session.state["user:pref_diet"] == "vegetarian"
    assert any("400" in str(v) for k, v in session.state.items() if not k.startswith("user:"))

    # pending: the agent is not told
    queue = ReviewQueue(db_url)
    (item,) = await queue.list(app_name=app_name, user_id=user)
    assert item.text == INSTRUCTION
    second = await kit.session_service.create_session(app_name=app_name, user_id=user)
    await _say(runner, user, second.id, "Find me a flight to Lisbon.")
    assert BLOCK_START not in system_text(llm.requests[-1])

    # approved: session 3's request carries it, dated and attributed
    await queue.approve(item.id, by="ops-alice")
    third = await kit.session_service.create_session(app_name=app_name, user_id=user)
    await _say(runner, user, third.id, "Find me a flight to Porto.")
    shown = system_text(llm.requests[-1])
    assert BLOCK_START in shown and INSTRUCTION in shown and "by ops-alice" in shown

    # another user of the app is not given a user's own approval
    other = await kit.session_service.create_session(app_name=app_name, user_id="u2")
    await _say(runner, "u2", other.id, "Find me a flight to Faro.")
    assert INSTRUCTION not in system_text(llm.requests[-1])

    # revoked: gone from the next session's request
    await queue.revoke(item.id, by="ops-alice")
    fourth = await kit.session_service.create_session(app_name=app_name, user_id=user)
    await _say(runner, user, fourth.id, "Find me a flight to Madrid.")
    assert INSTRUCTION not in system_text(llm.requests[-1])
    await queue.close()

    # the card: in no table (ADK's included) and in no export
    texts = await table_texts(db_url, include_adk=True, app=app_name)
    assert texts
    assert all(CARD not in blob and CARD.replace(" ", "") not in blob for blob in texts.values())
    data = ConsoleData(
        db_url, memory_service=kit.memory_service, session_service=kit.session_service
    )
    await data.start()
    try:
        exported = json.dumps(await export_user(data, app_name, user), default=str)
    finally:
        await data.close()
    assert CARD not in exported and CARD.replace(" ", "") not in exported
    assert "vegetarian" in exported  # the export is not empty
    await runner.close()


async def test_an_app_wide_approval_reaches_every_user_of_that_app_only(kit, db_url):
    app_name, other_app = f"stack_{uuid.uuid4().hex[:8]}", f"stack_{uuid.uuid4().hex[:8]}"
    queue = ReviewQueue(db_url)
    item = await queue.submit(app_name=app_name, user_id="u1", text="Quote prices in euros.")
    await queue.approve(item.id, by="ops", applies_to="app")

    async def block_for(app: str, user: str) -> str:
        return render_instructions(await queue.approved_instructions(app, user))

    assert "Quote prices in euros." in await block_for(app_name, "someone-else")
    assert await block_for(other_app, "u1") == ""
    rejected = await queue.submit(app_name=app_name, user_id="u1", text="Skip all checks.")
    await queue.reject(rejected.id, by="ops")
    assert "Skip all checks" not in await block_for(app_name, "u1")
    await queue.close()


def test_adks_raw_recall_tools_are_swapped_for_the_framed_ones(kit, caplog):
    from google.adk.tools.load_memory_tool import load_memory_tool
    from google.adk.tools.preload_memory_tool import preload_memory_tool

    from adk_memory_kit.recall import BudgetedPreloadMemoryTool, FramedLoadMemoryTool

    def look_up(city: str) -> str:
        """A tool of the agent's own, kept as it is."""
        return city

    agent = LlmAgent(
        name="planner",
        model=ScriptedLlm(responder=lambda _: "ok"),
        tools=[look_up, load_memory_tool, preload_memory_tool],
    )
    with caplog.at_level("WARNING", logger="adk_memory_kit.stack"):
        kit.equip(agent)
    kinds = [type(t) for t in agent.tools]
    assert agent.tools[0] is look_up
    assert kinds[1] is FramedLoadMemoryTool and kinds[2] is BudgetedPreloadMemoryTool
    assert sum(k is FramedLoadMemoryTool for k in kinds) == 1  # not added a second time
    assert "load_memory replaced" in caplog.text and "preload_memory replaced" in caplog.text
