"""Issue #29 with nothing wired by hand: ``MemoryRoutingPlugin()`` (the offline router and a
``MemoryApplier()`` built with no arguments) acts on updates and "please forget" through the
real Runner, DatabaseSessionService and PgVectorMemoryService; ``None`` turns either off."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest

from adk_memory_kit.core.markers import FORGET_STATE_KEY
from adk_memory_kit.routing import MemoryApplier
from tests.support.routing import Harness
from tests.support.routing import texts_of as texts


async def everything(memory, h: Harness, queries: list[str]) -> set[str]:
    found: set[str] = set()
    for query in queries:
        found.update(texts(await memory.search_memory(app_name=h.app, user_id=h.user, query=query)))
    return found


@pytest.mark.slow
async def test_the_default_plugin_supersedes_a_changed_fact(harness):
    h, memory = harness
    old, new = "I teach maths at Riverside Academy.", "I left Riverside and teach at Hillcrest now."
    await h.turn(old)
    await asyncio.sleep(1.0)
    between = datetime.now(timezone.utc)
    await asyncio.sleep(1.0)
    await h.turn(new)
    question = "Which school does the user teach at?"
    now = texts(await memory.search_memory(app_name=h.app, user_id=h.user, query=question))
    assert new in now and old not in now  # superseded: not returned by default
    session = await h.sessions.get_session(app_name=h.app, user_id=h.user, session_id=h.session_id)
    await memory.add_session_to_memory(session)  # the default write policy adds no competitor
    after = texts(await memory.search_memory(app_name=h.app, user_id=h.user, query=question))
    assert after[0] == new and old not in after, after
    past = texts(await memory.search(app_name=h.app, user_id=h.user, query=question, as_of=between))
    assert old in past


@pytest.mark.slow
async def test_the_default_plugin_honours_a_forget_request_and_keeps_the_neighbour(harness):
    h, memory = harness
    target = "My allotment plot is number 14 by the canal."
    neighbour = "My neighbour grows prize-winning leeks."
    await h.turn(target)
    await h.turn(neighbour)
    request = "Please forget about my allotment plot."
    await h.turn(request)
    state = await h.state()
    assert state[FORGET_STATE_KEY]["deleted"] >= 1
    left = await everything(memory, h, [target, neighbour, request, "allotment canal"])
    assert target not in left and request not in left
    assert neighbour in left
    session = await h.sessions.get_session(app_name=h.app, user_id=h.user, session_id=h.session_id)
    await memory.add_session_to_memory(session)  # the session still holds the turns
    left = await everything(memory, h, [target, neighbour, request, "allotment canal"])
    assert target not in left and request not in left
    assert neighbour in left


@pytest.mark.slow
async def test_a_routed_fact_answers_a_question_about_the_user(harness):
    h, memory = harness
    said = ["I'm a structural engineer at Arup.", "My daughter plays the cello."]
    for text in said:
        await h.turn(text)
    found = texts(
        await memory.search_memory(
            app_name=h.app, user_id=h.user, query="Where does the user work?"
        )
    )
    assert found and found[0] == said[0], found


def test_none_turns_the_default_handlers_off():
    default = MemoryApplier()
    assert default.forget_handler is not None and default.update_handler is not None
    off = MemoryApplier(forget_handler=None, update_handler=None)
    assert off.forget_handler is None and off.update_handler is None
    only_forget = MemoryApplier(update_handler=None)
    assert only_forget.forget_handler is not None and only_forget.update_handler is None
