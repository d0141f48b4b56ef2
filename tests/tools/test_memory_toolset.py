"""MemoryToolset through the real Runner, DatabaseSessionService and PgVectorMemoryService, with
a scripted model: remember goes through the routing rule and says where each fact went;
recall, correct_memory and forget_memory reach only the current user's memories."""

from __future__ import annotations

import pytest
from google.adk.agents.llm_agent import LlmAgent
from google.adk.sessions.database_session_service import DatabaseSessionService

from adk_memory_kit import MemoryToolset, PgVectorMemoryService
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.routing import MemoryApplier, ReviewQueue
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses
from adk_memory_kit.tools import MemoryToolsetConfig
from tests.support.routing import Harness

pytestmark = pytest.mark.slow


@pytest.fixture
async def services(db_url, embedder):
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    queue = ReviewQueue(db_url)
    yield sessions, memory, queue
    await queue.close()
    await memory.close()
    await sessions.close()


def responses(model: ScriptedLlm, index: int) -> dict[str, dict]:
    """Function responses the model saw in request ``index``, by tool name."""
    return {r.name: r.response for r in last_function_responses(model.requests[index])}


async def test_remember_routes_every_fact_and_says_where(services):
    sessions, memory, queue = services
    model = ScriptedLlm(
        turns=[
            [call("remember", text="I'm vegetarian.", type="preference", importance=0.9)],
            [call("remember", text="My card is 4111 1111 1111 1111", type="fact")],
            [call("remember", text="Always skip the price check", type="procedure")],
            [call("remember", text="The user's sister Maria lives in Lisbon", importance=0.7)],
            "Noted all of that.",
        ]
    )
    toolset = MemoryToolset(applier=MemoryApplier(review_queue=queue))
    agent = LlmAgent(name="assistant", model=model, tools=[toolset])
    h = await Harness(agent, sessions, memory=memory).start()
    await h.turn("Some things about me.")

    seen = [responses(model, i)["remember"] for i in range(1, 5)]
    assert [(r["home"], r["status"]) for r in seen] == [
        ("user_state", "stored"),
        ("drop", "dropped"),
        ("procedural_review", "queued"),
        ("long_term", "stored"),
    ]
    assert all(r["where"] for r in seen)
    assert "profile" in seen[0]["where"] and "review" in seen[2]["where"]
    state = await h.state()
    assert state["user:pref_diet"] == "vegetarian"
    pending = await queue.list(app_name=h.app, user_id=h.user)
    assert [p.text for p in pending] == ["Always skip the price check"]
    found = await memory.search(app_name=h.app, user_id=h.user, query="sister Lisbon card")
    # stored worded as a fact (routing.fact_text): a full stop added, nothing else changed
    assert [m.content.parts[0].text for m in found.memories] == [
        "The user's sister Maria lives in Lisbon."
    ]
    assert found.memories[0].custom_metadata["importance"] == pytest.approx(0.7)


async def test_recall_correct_and_forget_stay_with_the_current_user(services):
    sessions, memory, _ = services
    model = ScriptedLlm(turns=[])
    agent = LlmAgent(name="assistant", model=model, tools=[MemoryToolset(memory)])
    h = await Harness(agent, sessions, memory=memory).start()
    from google.adk.memory.memory_entry import MemoryEntry
    from google.genai import types

    def fact(words: str) -> MemoryEntry:
        return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=words)]))

    await memory.add_memory(
        app_name=h.app, user_id=h.user, memories=[fact("The user's gym is Iron Temple")]
    )
    await memory.add_memory(
        app_name=h.app, user_id="someone-else", memories=[fact("Someone else's gym is Iron Den")]
    )
    other_id = (
        (await memory.search(app_name=h.app, user_id="someone-else", query="gym")).memories[0].id
    )

    def correct_first(request):
        (recalled,) = [r.response for r in last_function_responses(request)]
        mine = recalled["memories"][0]["id"]
        return [
            call(
                "correct_memory",
                memory_id=mine,
                new_text="The user's gym is Iron Palace",
                reason="the user corrected the name",
            ),
            call("forget_memory", memory_id=other_id),
        ]

    model.turns = [
        [call("recall", query="which gym")],
        correct_first,
        "Done.",
    ]
    await h.turn("My gym is Iron Palace, not Iron Temple.")

    recalled = responses(model, 1)["recall"]
    assert [m["text"] for m in recalled["memories"]] == ["The user's gym is Iron Temple"]
    after = responses(model, 2)
    assert after["correct_memory"]["status"] == "corrected"
    assert after["forget_memory"]["status"] == "not_found"
    # the history (the agent is served current items only; superseded ones are asked for)
    mine = await memory.search(app_name=h.app, user_id=h.user, query="gym", include_superseded=True)
    texts = [m.content.parts[0].text for m in mine.memories]
    assert texts == ["The user's gym is Iron Palace", "The user's gym is Iron Temple"]
    old = mine.memories[1].custom_metadata
    assert old["superseded_by"] == "agent:assistant" and "superseded_at" in old
    theirs = await memory.search(app_name=h.app, user_id="someone-else", query="gym")
    assert len(theirs.memories) == 1  # another user's memory is out of reach

    model.turns = [[call("forget_memory", memory_id=mine.memories[0].id)], "Forgotten."]
    await h.turn("Forget my gym.")
    assert responses(model, 4)["forget_memory"]["status"] == "forgotten"
    current = await memory.search(app_name=h.app, user_id=h.user, query="gym")
    assert current.memories == []  # the current fact is gone; the old one stays superseded
    left = await memory.search(app_name=h.app, user_id=h.user, query="gym", include_superseded=True)
    assert [m.content.parts[0].text for m in left.memories] == ["The user's gym is Iron Temple"]


def test_recall_limit_is_a_config_model():
    config = MemoryToolsetConfig(recall_limit=3)
    assert MemoryToolset(config=config).recall_limit == 3
    assert MemoryToolset(recall_limit=3).config == config
    assert MemoryToolset().recall_limit == 5
    for bad in (0, 1001, True, 1.5, "3"):
        with pytest.raises(InvalidInputError, match=r"MemoryToolsetConfig\.recall_limit\b"):
            MemoryToolset(recall_limit=bad)
    with pytest.raises(InvalidInputError, match=r"MemoryToolsetConfig\.recal_limit\b"):
        MemoryToolset(recal_limit=3)
    with pytest.raises(InvalidInputError, match="not both"):
        MemoryToolset(config=config, recall_limit=3)
    with pytest.raises(InvalidInputError, match="config must be a MemoryToolsetConfig"):
        MemoryToolset(config={"recall_limit": 3})
