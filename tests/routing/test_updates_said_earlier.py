"""Updates and forget requests about a fact the router left to ingestion, and preferences a
sentence retires,
through the real Runner, DatabaseSessionService and PgVectorMemoryService with the default
``MemoryRoutingPlugin()``.

The router keeps no candidate for some sentences (an unsure "sensitive" guess without a
detector finding, or "nothing worth keeping"); the write policy stores them when the session
is ingested. An update said later in the same session must still replace such a fact: it is
stored then, dated when it was said, already superseded, and ingestion adds no current copy.
A forget request said later in the session must keep it from being stored at all.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest
from google.adk.agents.llm_agent import LlmAgent
from google.adk.sessions.database_session_service import DatabaseSessionService

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.core.markers import FORGET_STATE_KEY
from adk_memory_kit.routing import MemoryRoutingPlugin
from adk_memory_kit.routing.value_finders import DEFAULT_FINDERS, DEFAULT_RETIRED_FINDERS
from adk_memory_kit.testing import ScriptedLlm
from tests.support.memory import unique
from tests.support.routing import Harness
from tests.support.routing import texts_of as texts


@pytest.fixture
async def stack(db_url, embedder):
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    agent = LlmAgent(name="helper", model=ScriptedLlm(responder=lambda _: "Noted."))

    async def start() -> Harness:
        h = Harness(
            agent, sessions, memory=memory, plugins=[MemoryRoutingPlugin()], user=unique("u")
        )
        await h.start()
        return h

    yield start, memory
    await memory.close()
    await sessions.close()


async def _ingest(memory, h: Harness) -> None:
    """``add_session_to_memory`` of the harness's session, as the session stands now."""
    session = await h.sessions.get_session(app_name=h.app, user_id=h.user, session_id=h.session_id)
    await memory.add_session_to_memory(session)


async def _search(memory, h: Harness, query: str, **kw) -> list[str]:
    return texts(await memory.search(app_name=h.app, user_id=h.user, query=query, **kw))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("old", "new", "question"),
    [
        (
            "Best number for me is 07700 900123.",
            "I've got a new phone, the number is 07700 900456 now, please use that one.",
            "What is the user's phone number?",
        ),
        (
            "Laptop-wise it is a ThinkPad X220.",
            "I replaced the ThinkPad with a MacBook Air last week.",
            "What laptop does the user have?",
        ),
    ],
)
async def test_an_update_replaces_a_fact_said_earlier_that_was_not_stored_yet(
    stack, old, new, question
):
    start, memory = stack
    h = await start()
    await h.turn(old)
    held = await _search(memory, h, old)
    assert old not in held, "precondition: the router left the old fact to ingestion"
    await asyncio.sleep(1.0)
    between = datetime.now(timezone.utc)
    await asyncio.sleep(1.0)
    await h.turn(new)
    await _ingest(memory, h)  # the default write policy: no current copy
    now = await _search(memory, h, question)
    assert now and now[0].startswith(new[:20]) and old not in now, now
    assert old not in await _search(memory, h, old)
    past = await _search(memory, h, question, as_of=between)
    assert old in past, past


@pytest.mark.slow
async def test_the_replaced_sentence_of_a_longer_turn_is_the_one_left_out(stack):
    start, memory = stack
    h = await start()
    old = "My laptop is an old ThinkPad X220."
    await h.turn(f"I'm back from the gym. {old} It takes ages to boot.")
    await h.turn("I replaced the ThinkPad with a MacBook Air last week.")
    await _ingest(memory, h)
    found = await _search(memory, h, "What laptop does the user have?")
    assert found and found[0].startswith("I replaced the ThinkPad"), found
    everything = found + await _search(memory, h, "gym boot laptop ThinkPad")
    assert not any(old in text and "gym" in text for text in everything), everything
    assert any("It takes ages to boot." in text for text in everything), everything


@pytest.mark.slow
async def test_a_forget_after_a_checkpoint_counts_the_fact_once_and_it_stays_gone(stack):
    start, memory = stack
    h = await start()
    target, neighbour = "You can reach me at 07700 900123.", "My laptop is an old ThinkPad X220."
    await h.turn(target)
    await h.turn(neighbour)
    await _ingest(memory, h)  # a checkpoint: both turns are stored now
    await h.turn("Please forget my phone number.")
    record = (await h.state())[FORGET_STATE_KEY]
    assert record["deleted"] == 1 and record["homes"] == ["long_term"], record
    await _ingest(memory, h)  # ingested again: the target stays gone
    left = set(await _search(memory, h, target)) | set(await _search(memory, h, neighbour))
    assert target not in left and neighbour in left, left


@pytest.mark.slow
async def test_an_unrelated_earlier_sentence_is_left_to_ingestion(stack):
    start, memory = stack
    h = await start()
    unrelated = "My laptop is an old ThinkPad X220."
    await h.turn(unrelated)
    await h.turn("We relocated to Edinburgh in the spring.")
    await _ingest(memory, h)
    assert unrelated in await _search(memory, h, "What laptop does the user have?")


@pytest.mark.slow
async def test_a_forget_request_keeps_a_fact_said_earlier_from_being_stored(stack):
    start, memory = stack
    h = await start()
    target, neighbour = "Best number for me is 07700 900123.", "My laptop is an old ThinkPad X220."
    await h.turn(target)
    await h.turn(neighbour)
    assert target not in await _search(memory, h, target), "precondition: left to ingestion"
    request = "Please forget my phone number."
    await h.turn(request)
    state = await h.state()
    assert state[FORGET_STATE_KEY]["deleted"] == 1
    assert "this_session" in state[FORGET_STATE_KEY]["homes"]
    await _ingest(memory, h)
    left = set()
    for query in (target, neighbour, request, "phone number"):
        left.update(await _search(memory, h, query))
    assert target not in left and request not in left
    assert neighbour in left


@pytest.mark.slow
async def test_a_preference_the_user_says_no_longer_holds_is_cleared(stack):
    start, memory = stack
    h = await start()
    await h.turn("I'm vegetarian.")
    assert (await h.state()).get("user:pref_diet") == "vegetarian"
    changed = "I'm no longer vegetarian, I eat fish and chicken again."
    await h.turn(changed)
    state = await h.state()
    assert state.get("user:pref_diet") is None
    found = await _search(memory, h, "Is the user vegetarian?")
    assert any(t.startswith("I'm no longer vegetarian") for t in found), found


@pytest.mark.parametrize(
    ("name", "text", "retired"),
    [
        ("diet", "I'm not vegan any more.", "vegan"),
        ("language", "I don't speak French.", "French"),
        ("seat", "Never a middle seat.", "middle"),
        ("currency", "Stop quoting me in dollars.", "USD"),
    ],
)
def test_a_sentence_that_retires_its_only_value_states_none(name, text, retired):
    assert DEFAULT_FINDERS[name](text) is None
    assert DEFAULT_RETIRED_FINDERS[name](text) == retired


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("diet", "I used to be pescatarian but I'm fully vegan now."),
        ("diet", "I don't eat meat."),
        ("seat", "An aisle seat if you can."),
    ],
)
def test_a_sentence_that_keeps_a_value_retires_none(name, text):
    assert DEFAULT_FINDERS[name](text) is not None
    assert DEFAULT_RETIRED_FINDERS[name](text) is None


def test_a_version_1_record_names_the_same_sentence_after_the_splitter_changed():
    from google.adk.events.event import Event
    from google.genai import types

    from adk_memory_kit.routing.records import ROUTING_RECORD_KEY, RoutingDecisions
    from adk_memory_kit.routing.rule import MemoryHome

    text = "I see Dr. Lindqvist on Mondays. My card PIN is 4321. Thanks!"
    said = Event(
        id="e1",
        invocation_id="i1",
        author="user",
        content=types.Content(role="user", parts=[types.Part(text=text)]),
    )
    # version 1 split "Dr." off: the PIN sentence was its index 2; it is index 1 now
    old = {"v": 1, "routed_events": ["e1"], "sentences": {"e1": {"2": ["drop"]}}}
    new = {"v": 2, "routed_events": ["e1"], "sentences": {"e1": {"1": ["drop"]}}}
    for record in (old, new):
        reply = Event(
            invocation_id="i1", author="helper", custom_metadata={ROUTING_RECORD_KEY: record}
        )
        decisions = RoutingDecisions([said, reply])
        assert decisions.homes("e1", 1) == {MemoryHome.DROP}
        assert decisions.homes("e1", 0) == set() and decisions.homes("e1", 2) == set()


def test_sentences_said_earlier_are_looked_at_only_while_the_plugin_records_them():
    """Routed or not (a turn said before the plugin was installed), an earlier user sentence
    no record gives a home is looked at, but only while a routing record will carry the mark."""
    from types import SimpleNamespace

    from google.adk.events.event import Event
    from google.genai import types

    from adk_memory_kit.routing.edits.said_earlier import unstored_sentences
    from adk_memory_kit.routing.outcomes import RECORDING_EARLIER
    from adk_memory_kit.routing.records import ROUTING_RECORD_KEY

    said = Event(
        id="e1",
        invocation_id="i1",
        author="user",
        content=types.Content(role="user", parts=[types.Part(text="My laptop is a ThinkPad.")]),
    )
    record = {"v": 2, "routed_events": ["e1"], "sentences": {}}
    reply = Event(invocation_id="i1", author="helper", custom_metadata={ROUTING_RECORD_KEY: record})
    unrouted = said.model_copy(update={"id": "e2", "invocation_id": "i0"})
    context = SimpleNamespace(
        session=SimpleNamespace(events=[unrouted, said, reply]), invocation_id="i2"
    )
    assert unstored_sentences(context, 40) == []  # a tool's apply_one: nothing recorded
    token = RECORDING_EARLIER.set(True)
    try:
        found = unstored_sentences(context, 40)
        newest = unstored_sentences(context, 1)
    finally:
        RECORDING_EARLIER.reset(token)
    assert [(s.event_id, s.index) for s in found] == [("e2", 0), ("e1", 0)]
    assert [(s.event_id, s.index) for s in newest] == [("e1", 0)]


def test_a_later_mark_does_not_make_an_unrouted_event_recorded():
    from google.adk.events.event import Event

    from adk_memory_kit.routing.records import ROUTING_RECORD_KEY, RoutingDecisions
    from adk_memory_kit.routing.rule import MemoryHome

    # a later turn's record marks sentence 1 of e0, which no router saw: its other sentences
    # are still classified at ingestion as an unrouted event's
    record = {"v": 2, "routed_events": ["e5"], "sentences": {"e0": {"1": ["forget"]}}}
    reply = Event(invocation_id="i5", author="helper", custom_metadata={ROUTING_RECORD_KEY: record})
    decisions = RoutingDecisions([reply])
    assert decisions.homes("e0", 1) == {MemoryHome.FORGET}
    assert not decisions.has_record("e0") and decisions.has_record("e5")


def test_a_title_or_an_initial_does_not_end_a_sentence():
    from adk_memory_kit.text.sentences import split_sentences

    assert split_sentences("I see Dr. Lindqvist now. Thanks!") == [
        "I see Dr. Lindqvist now.",
        "Thanks!",
    ]
    assert split_sentences("Ask for J. Okoro, e.g. at the desk.\nDone.") == [
        "Ask for J. Okoro, e.g. at the desk.",
        "Done.",
    ]


@pytest.mark.slow
async def test_a_statement_kept_as_a_session_note_is_still_stored(stack):
    # the router keeps each of these for this session; ingestion stores the statements it was
    # unsure of (~0.45, ~0.54) and leaves out the one it was sure of (~0.95), the one scoped
    # to now and the request: a lasting fact read as session work must not be lost
    start, memory = stack
    h = await start()
    unsure = "The car is making a funny noise again."
    laptop = "Laptop-wise it is a ThinkPad X220."
    sure = "The printer is jammed again this morning."
    scoped = "Just for this trip, I'm flying out of Leeds Bradford."
    request = "Can you find me a cheaper flight for Friday?"
    for said in (unsure, laptop, sure, scoped, request):
        await h.turn(said)
    await _ingest(memory, h)
    stored = await _search(memory, h, "car laptop printer trip Leeds noise jammed flight Friday")
    assert unsure in stored and laptop in stored, stored
    assert sure not in stored and scoped not in stored and request not in stored, stored
