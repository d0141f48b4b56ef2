"""Edits the kit cannot read for sure are settled by harm: linked or asked, never guessed.

Through the real Runner, DatabaseSessionService and PgVectorMemoryService with the default
``MemoryRoutingPlugin()``: the user's older memories are in the store (said weeks ago), then
the user says a change in a new conversation. The subject check's choice is a rule; when it
points at a memory well behind the closest one, superseding would hide a true fact, so the
change is stored beside the closest memory with a link (``MAY_UPDATE``) and leads it at read
time. Nothing the user said is hidden. A forget request the grammar cannot read (here in
Spanish) deletes nothing unasked: the memories closest to it are shown for the user to pick.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from adk_memory_kit.core.markers import (
    FORGET_STATE_KEY,
    MAY_UPDATE,
    PENDING_FORGET_KEY,
)
from tests.support.routing import Harness, store_facts
from tests.support.routing import texts_of as texts

OLD = "My son's swimming lessons are with coach Daniel"
NEIGHBOUR = "His football training is still with coach Mark"
NEW = "we stopped coach Daniel, he swims with the club squad on Wednesdays now"
QUESTION = "Who does my son swim with now?"


async def _current(memory, h: Harness, text: str):
    """The current memory whose text is ``text`` (a default search leaves superseded out)."""
    found = await memory.search(app_name=h.app, user_id=h.user, query=text)
    return next((m for m in found.memories if texts_of_one(m) == text), None)


def texts_of_one(memory) -> str:
    return " ".join(p.text or "" for p in memory.content.parts)


async def test_an_unsure_update_leads_what_it_replaces_and_hides_nothing(harness):
    h, memory = harness
    weeks_ago = datetime.now(timezone.utc) - timedelta(days=60)
    await store_facts(memory, h.app, h.user, [OLD, NEIGHBOUR], weeks_ago)
    old = await _current(memory, h, OLD)
    assert old is not None

    await h.turn(NEW)

    # both older memories are still current: the neighbour was never replaced
    assert await _current(memory, h, OLD) is not None
    assert await _current(memory, h, NEIGHBOUR) is not None
    found = await memory.search(app_name=h.app, user_id=h.user, query=QUESTION)
    said = [m for m in found.memories if "club squad" in texts_of_one(m)]
    assert said, texts(found)
    assert (said[0].custom_metadata or {}).get(MAY_UPDATE) == str(old.id)
    order = texts(found)
    assert order.index(texts_of_one(said[0])) < order.index(OLD)
    # a question about the past is answered in the fused order: the old lesson is there
    past = texts(
        await memory.search(app_name=h.app, user_id=h.user, query="Who did my son swim with?")
    )
    assert OLD in past


async def test_a_request_in_words_the_grammar_cannot_read_is_asked_never_guessed(harness):
    h, memory = harness
    debt = "Le debo 300 euros a Carlos desde marzo"
    flatmate = "Carlos es mi compañero de piso"
    weeks_ago = datetime.now(timezone.utc) - timedelta(days=30)
    await store_facts(
        memory, h.app, h.user, [debt, flatmate, "I collect old film cameras."], weeks_ago
    )

    meant = await _current(memory, h, debt)
    await h.turn("Borra lo de mi deuda con Carlos, ya le pagué todo.")
    state = await h.state()
    assert state[FORGET_STATE_KEY]["deleted"] == 0
    assert state[FORGET_STATE_KEY]["needs_confirmation"] >= 1
    pending = state[PENDING_FORGET_KEY]["ids"]
    assert str(meant.id) in pending and len(pending) <= 3  # shown to the user, numbered
    assert await _current(memory, h, debt) is not None  # nothing deleted before the answer

    # the user answers truthfully, naming the one they meant
    answer = ("The first one.", "The second one.", "The third one.")[pending.index(str(meant.id))]
    await h.turn(answer)
    state = await h.state()
    assert state[FORGET_STATE_KEY]["confirmed"] is True
    assert await _current(memory, h, debt) is None
    assert await _current(memory, h, flatmate) is not None


CAR = "I drive a 2012 Ford Focus to work"
SWIM = "I swim at the Marlow leisure centre on Tuesdays"
WIFE = "My wife cycles to the hospital every day"
# said with no change word: the router stores it as a plain lasting fact (was "Tuesday swims
# are at the Henley pool", which the heads of stop 63 read as this session's work at ~0.5)
MOVED_SWIM = "My Tuesday swim is at the Henley pool"


async def test_a_change_said_without_a_change_word_still_leads_the_fact_it_replaces(harness):
    h, memory = harness
    weeks_ago = datetime.now(timezone.utc) - timedelta(days=45)
    await store_facts(memory, h.app, h.user, [SWIM, WIFE], weeks_ago)
    old = await _current(memory, h, SWIM)

    await h.turn(MOVED_SWIM)

    # nothing is hidden: the older fact and the wife's are both still current
    assert await _current(memory, h, SWIM) is not None
    assert await _current(memory, h, WIFE) is not None
    found = await memory.search(
        app_name=h.app, user_id=h.user, query="Where do I swim on Tuesdays?"
    )
    said = [m for m in found.memories if "Henley" in texts_of_one(m)]
    assert said, texts(found)
    assert (said[0].custom_metadata or {}).get(MAY_UPDATE) == str(old.id)
    order = texts(found)
    assert order.index(texts_of_one(said[0])) < order.index(SWIM)


async def test_a_fact_about_someone_else_is_not_linked_to_the_users_own(harness):
    h, memory = harness
    weeks_ago = datetime.now(timezone.utc) - timedelta(days=45)
    await store_facts(memory, h.app, h.user, [CAR], weeks_ago)

    await h.turn("My daughter just passed her driving test in a Kia Picanto")

    found = await memory.search(app_name=h.app, user_id=h.user, query="Kia Picanto driving test")
    said = [m for m in found.memories if "Picanto" in texts_of_one(m)]
    assert said, texts(found)
    assert MAY_UPDATE not in (said[0].custom_metadata or {})


def test_no_update_handler_means_no_links_either():
    from adk_memory_kit.routing import MemoryApplier

    assert MemoryApplier(update_handler=None).link_handler is None
    assert MemoryApplier().link_handler is not None
