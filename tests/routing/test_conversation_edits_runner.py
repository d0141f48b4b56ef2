"""Issue #29 on the default stack: the concierge (offline learned router, conversation-edit
handlers) through the real Runner, DatabaseSessionService and PgVectorMemoryService."""

from __future__ import annotations

import asyncio
import re
import uuid
from datetime import datetime, timezone

import pytest
from google.adk.agents.llm_agent import LlmAgent
from google.adk.agents.sequential_agent import SequentialAgent
from google.adk.runners import Runner
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.genai import types
from sqlalchemy import text

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.core.markers import FORGET_STATE_KEY, PENDING_FORGET_KEY
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.demo.concierge import build_concierge_app
from adk_memory_kit.memory.forget_log import FORGET_LOG, MEMORIES_DELETED
from adk_memory_kit.routing import MemoryHome, MemoryRoutingPlugin, ReviewQueue
from adk_memory_kit.testing import ScriptedLlm
from tests.support.routing import Harness, store_facts

pytestmark = pytest.mark.slow

OLD = {
    "job": "I work at Bosch as a software engineer.",
    "car": "I drive a grey Volkswagen Golf.",
    "band": "My favourite band is Coldplay.",
}
NEW = {
    "job": "I left Bosch; these days I'm at Zeiss.",
    "car": "We sold the Golf and drive a Tesla Model 3 now.",
    "band": "My favourite band these days is Khruangbin.",
}
QUESTION = {
    "job": "Where does the user work now?",
    "car": "Which car does the user drive these days?",
    "band": "What band does the user like currently?",
}


def texts(found) -> list[str]:
    return [" ".join(p.text or "" for p in m.content.parts) for m in found.memories]


@pytest.fixture
async def stack(db_url, embedder):
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    queue = ReviewQueue(db_url)
    app = build_concierge_app(review_queue=queue)
    runner = Runner(app=app, session_service=sessions, memory_service=memory)
    user = f"u-{uuid.uuid4().hex[:8]}"

    async def say(session_id: str, text: str) -> None:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in runner.run_async(user_id=user, session_id=session_id, new_message=message):
            pass

    yield app, sessions, memory, user, say
    await queue.close()
    await memory.close()
    await sessions.close()


async def test_updates_on_three_subjects_are_answered_current_first_and_as_of_reaches_the_old(
    stack,
):
    app, sessions, memory, user, say = stack
    first = await sessions.create_session(app_name=app.name, user_id=user)
    for sentence in OLD.values():
        await say(first.id, sentence)
    await asyncio.sleep(1.0)
    between = datetime.now(timezone.utc)
    await asyncio.sleep(1.0)
    for sentence in NEW.values():
        await say(first.id, sentence)
    done = await sessions.get_session(app_name=app.name, user_id=user, session_id=first.id)
    await memory.add_session_to_memory(done)  # the default write policy

    await sessions.create_session(app_name=app.name, user_id=user)  # a new session
    for subject, question in QUESTION.items():
        result = await memory.search_memory(app_name=app.name, user_id=user, query=question)
        found = texts(result)
        assert NEW[subject] in found, subject
        if OLD[subject] in found:  # superseded: kept for as_of, ranked below the current fact
            assert found.index(NEW[subject]) < found.index(OLD[subject]), subject
        past = texts(
            await memory.search(app_name=app.name, user_id=user, query=question, as_of=between)
        )
        assert OLD[subject] in past and NEW[subject] not in past, subject


async def test_forget_requests_delete_what_they_name_and_are_never_stored(stack):
    app, sessions, memory, user, say = stack
    session = await sessions.create_session(app_name=app.name, user_id=user)
    target = "My old flat in Clapham had a damp problem."
    neighbour = "My sister lives in Brixton."
    for sentence in (target, neighbour, "I'd rather sit by the window whenever I fly."):
        await say(session.id, sentence)
    state = (
        await sessions.get_session(app_name=app.name, user_id=user, session_id=session.id)
    ).state
    assert state["user:pref_seat"] == "window"

    precise = "Scrub the information about my old flat in Clapham."
    await say(session.id, precise)
    about_a_preference = "Please forget my window seat preference."
    await say(session.id, about_a_preference)

    done = await sessions.get_session(app_name=app.name, user_id=user, session_id=session.id)
    assert done.state[FORGET_STATE_KEY]["deleted"] >= 1  # the count, never the text
    assert "Clapham" not in str(done.state[FORGET_STATE_KEY])
    assert done.state.get("user:pref_seat") is None  # the profile home is reached too
    await memory.add_session_to_memory(done)
    everything = set()
    for query in (target, neighbour, precise, about_a_preference, "Clapham flat damp"):
        everything.update(
            texts(await memory.search_memory(app_name=app.name, user_id=user, query=query))
        )
    assert target not in everything
    assert neighbour in everything
    assert not any("Scrub" in t or "forget" in t.lower() for t in everything)
    # the deletion is in the forget log: ids and counts, never the text
    async with operator_connect(memory.engine) as conn:
        logged = (
            await conn.execute(
                text(
                    f"SELECT status, completed_at, report FROM {FORGET_LOG}"
                    " WHERE app_name = :a AND user_id = :u"
                ),
                {"a": app.name, "u": user},
            )
        ).all()
    assert logged and all(r.status == MEMORIES_DELETED for r in logged)
    assert all(r.completed_at is not None for r in logged)  # closed: never fences writes
    assert sum(r.report["deleted"] for r in logged) >= 1
    assert "Clapham" not in str([r.report for r in logged])


async def test_a_request_naming_a_kind_of_detail_deletes_it_and_a_vague_one_deletes_nothing(
    stack,
):
    """A request that names a kind of detail, not the words it was said in ("my occupation"
    for "I'm a structural engineer ..."), deletes it and leaves a neighbour; a request that
    names nothing deletes nothing; neither request is stored."""
    app, sessions, memory, user, say = stack
    session = await sessions.create_session(app_name=app.name, user_id=user)
    target = "I'm a structural engineer at a firm in Rotterdam."
    neighbour = "My husband plays the trumpet in a brass band."
    other = "We keep bees on the allotment."
    for sentence in (target, neighbour, other):
        await say(session.id, sentence)

    async def everything() -> set[str]:
        found: set[str] = set()
        for query in (target, neighbour, other, "job occupation work", "forget"):
            found.update(
                texts(await memory.search_memory(app_name=app.name, user_id=user, query=query))
            )
        return found

    assert {target, neighbour, other} <= await everything()  # stored while the turns ran

    vague = "Forget what I just told you."
    await say(session.id, vague)
    after_vague = await everything()
    assert {target, neighbour, other} <= after_vague  # nothing guessed at
    state = (
        await sessions.get_session(app_name=app.name, user_id=user, session_id=session.id)
    ).state
    assert (state.get(FORGET_STATE_KEY) or {"deleted": 0})["deleted"] == 0

    by_kind = "Please delete my occupation."
    await say(session.id, by_kind)
    done = await sessions.get_session(app_name=app.name, user_id=user, session_id=session.id)
    assert done.state[FORGET_STATE_KEY]["deleted"] == 1
    await memory.add_session_to_memory(done)  # the default write policy
    left = await everything()
    assert target not in left
    assert neighbour in left and other in left
    assert vague not in left and by_kind not in left
    assert not any("forget" in t.lower() or "delete" in t.lower() for t in left)


async def test_a_wish_not_to_be_remembered_deletes_and_a_wish_to_be_remembered_keeps(stack):
    """ "Stop remembering ..." and "I'd rather you didn't know ..." are requests (the second
    about a health matter, which the detectors would otherwise drop unread); "Don't forget
    ..." asks for the opposite: what it says is kept."""
    app, sessions, memory, user, say = stack
    session = await sessions.create_session(app_name=app.name, user_id=user)
    gym = "I train at the Riverside climbing wall on Tuesdays."
    debt = "I still owe my brother four hundred pounds."
    neighbour = "My brother is a plumber in Hull."
    for sentence in (gym, debt, neighbour):
        await say(session.id, sentence)
    for request in (
        "Could you stop remembering my climbing wall?",
        "I'd rather you didn't know about the money I owe my brother.",
    ):
        await say(session.id, request)
    await say(session.id, "Don't forget my anniversary is on the ninth of October.")

    done = await sessions.get_session(app_name=app.name, user_id=user, session_id=session.id)
    await memory.add_session_to_memory(done)
    everything = set()
    for query in (gym, debt, neighbour, "climbing", "anniversary", "What do I owe?"):
        everything.update(
            texts(await memory.search_memory(app_name=app.name, user_id=user, query=query))
        )
    assert gym not in everything and debt not in everything
    assert neighbour in everything
    assert any("anniversary" in t for t in everything)
    assert not any("remember" in t.lower() or "rather" in t for t in everything)


# Known limits, fresh sentences written for this test (the offline router and subject check;
# the agent's own model is the way past them): strict, so a fix shows up here.
_IMPLICIT = pytest.mark.xfail(
    strict=True, reason="an implicit change the offline router or subject check does not link"
)


@pytest.mark.parametrize(
    ("old", "new", "question"),
    [
        # a lasting change said with a time word is an update, not a note for this session
        (
            "I live in a rented flat in Headingley.",
            "We moved into our own place in Horsforth on Saturday.",
            "Where does the user live?",
        ),
        # stored as a new fact, not read as a change
        pytest.param(
            "My phone is a Samsung Galaxy S20.",
            "Picked up an iPhone 16 on Saturday, the Samsung is going on eBay.",
            "What phone does the user have?",
            marks=_IMPLICIT,
        ),
        # read as a change, sharing no word with the old fact: linked to it, not superseding
        # it (``MAY_UPDATE``), and led at read time when the link is made; whether it is
        # depends on the calendar: the stored text carries the date "yesterday" names, and
        # its similarity to the old fact is 0.3002 with "(2026-12-05)", 0.2999 with
        # "(2026-12-06)", 0.2856 with "(2026-12-04)", against the 0.3 link bar (the same on
        # the code of stop 55): a knife edge, not a behaviour, until the link reads the
        # sentence without its date
        pytest.param(
            "I bank with Lloyds.",
            "Moved all my accounts over to Monzo yesterday.",
            "Which bank is the user with?",
            marks=pytest.mark.xfail(
                strict=False, reason="link similarity within 0.001 of the bar, by date"
            ),
        ),
        # routed as a note for this session
        pytest.param(
            "I'm a staff nurse on the children's ward.",
            "Got made ward sister this morning, my first week in charge starts Monday.",
            "What is the user's job?",
            marks=_IMPLICIT,
        ),
    ],
)
async def test_a_change_said_with_a_time_word_is_answered_current_first_in_a_new_session(
    stack, old, new, question
):
    """Asked in the plain present, without "now": the newer fact leads, the old one reaches
    ``as_of``."""
    app, sessions, memory, user, say = stack
    first = await sessions.create_session(app_name=app.name, user_id=user)
    await say(first.id, old)
    await asyncio.sleep(1.0)
    between = datetime.now(timezone.utc)
    await asyncio.sleep(1.0)
    await say(first.id, new)
    done = await sessions.get_session(app_name=app.name, user_id=user, session_id=first.id)
    await memory.add_session_to_memory(done)

    await sessions.create_session(app_name=app.name, user_id=user)
    found = texts(await memory.search_memory(app_name=app.name, user_id=user, query=question))
    assert found and found[0].startswith(new[:25]), found
    past = texts(
        await memory.search(app_name=app.name, user_id=user, query=question, as_of=between)
    )
    assert old in past, past


def _memory_note(app) -> str:
    """The plugin's note in the newest model request's system instruction ("" if none)."""
    told = str(app.root_agent.model.requests[-1].config.system_instruction or "")
    return told[told.index("[memory]") :] if "[memory]" in told else ""


async def test_an_uncertain_request_is_shown_to_the_user_and_only_what_they_choose_goes(stack):
    """Two memories about Leo match "Leo's football stuff" too weakly to choose: the agent is
    shown both, numbered, in the turn of the request (the state holds ids, never text);
    nothing goes until the user answers, then only the one they name goes, and the agent's
    reply that listed them is never stored as a memory."""
    app, sessions, memory, user, say = stack
    # the agent relays what the plugin tells it, as a real model would
    app.root_agent.model.responder = lambda request: _memory_note(app) or "Noted."
    session = await sessions.create_session(app_name=app.name, user_id=user)
    target = "Leo got picked for the county under-12s squad."
    neighbour = "Leo's school is Kingsmead Primary."
    await store_facts(memory, app.name, user, [target, neighbour], datetime.now(timezone.utc))

    await say(session.id, "Forget Leo's football stuff.")
    note = _memory_note(app)
    shown = dict(re.findall(r"(?m)^(\d)\. (.+)$", note))
    assert set(shown.values()) == {target, neighbour}, note
    state = (
        await sessions.get_session(app_name=app.name, user_id=user, session_id=session.id)
    ).state
    assert len(state[PENDING_FORGET_KEY]["ids"]) == 2
    assert "Leo" not in str(state[PENDING_FORGET_KEY]) + str(state[FORGET_STATE_KEY])
    found = texts(await memory.search_memory(app_name=app.name, user_id=user, query=target))
    assert target in found  # nothing deleted before the user answers

    number = next(n for n, text in shown.items() if text == target)
    answer = ("The first one.", "The second one.")[int(number) - 1]
    await say(session.id, answer)
    assert "1 stored memory was deleted" in _memory_note(app)
    done = await sessions.get_session(app_name=app.name, user_id=user, session_id=session.id)
    assert done.state[FORGET_STATE_KEY]["deleted"] == 1
    assert done.state[FORGET_STATE_KEY]["confirmed"] is True
    assert done.state.get(PENDING_FORGET_KEY) is None
    await memory.add_session_to_memory(done)  # the agent's replies listed both memories
    left = set()
    for query in (target, neighbour, "Leo county squad football"):
        left.update(texts(await memory.search_memory(app_name=app.name, user_id=user, query=query)))
    assert not any("county under-12s" in t for t in left), left
    assert neighbour in left
    answered = texts(await memory.search_memory(app_name=app.name, user_id=user, query=answer))
    assert answer not in answered  # the answer is about the question, never a memory


async def test_an_uncertain_request_the_user_declines_deletes_nothing(stack):
    app, sessions, memory, user, say = stack
    session = await sessions.create_session(app_name=app.name, user_id=user)
    target = "Leo got picked for the county under-12s squad."
    neighbour = "Leo's school is Kingsmead Primary."
    await store_facts(memory, app.name, user, [target, neighbour], datetime.now(timezone.utc))
    for sentence in ("Forget Leo's football stuff.", "No, leave them."):
        await say(session.id, sentence)
    done = await sessions.get_session(app_name=app.name, user_id=user, session_id=session.id)
    assert done.state[FORGET_STATE_KEY] == {**done.state[FORGET_STATE_KEY], "deleted": 0}
    assert done.state[FORGET_STATE_KEY]["confirmed"] is False
    assert done.state.get(PENDING_FORGET_KEY) is None
    assert "nothing was deleted" in _memory_note(app)
    left = set()
    for query in (target, neighbour):
        left.update(texts(await memory.search_memory(app_name=app.name, user_id=user, query=query)))
    assert {target, neighbour} <= left


async def test_the_agent_is_told_in_the_same_turn_what_a_request_deleted(stack):
    app, sessions, memory, user, say = stack
    session = await sessions.create_session(app_name=app.name, user_id=user)
    await say(session.id, "My old flat in Clapham had a damp problem.")
    await say(session.id, "Scrub the information about my old flat in Clapham.")
    note = _memory_note(app)  # the request turn's own model call: before the reply
    assert "1 stored memory about what they named was deleted" in note, note
    assert "Clapham" not in note  # the count, not the text of what was deleted


async def test_a_request_is_acted_on_once_when_two_agents_reply_in_one_turn(db_url, embedder):
    """A workflow whose two agents each call their model: the request is acted on before the
    first reply only (a second run could take the next-closest memory)."""
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    user = f"u-{uuid.uuid4().hex[:8]}"
    held = ["My gym shelf label is 4471.", "My work shelf label is 1290."]
    outcomes: list = []
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(name="step_one", model=ScriptedLlm(responder=lambda _: "one")),
            LlmAgent(name="step_two", model=ScriptedLlm(responder=lambda _: "two")),
        ],
    )
    plugin = MemoryRoutingPlugin(on_outcomes=outcomes.append)
    h = await Harness(pipeline, sessions, memory=memory, plugins=[plugin], user=user).start()
    await store_facts(memory, h.app, user, held, datetime.now(timezone.utc))
    await h.turn("Please forget my gym shelf label.")
    forgets = [o for batch in outcomes for o in batch if o.home is MemoryHome.FORGET]
    assert len(forgets) == 1, forgets
    left = set()
    for query in held:
        left.update(texts(await memory.search_memory(app_name=h.app, user_id=user, query=query)))
    assert held[0] not in left and held[1] in left
    await memory.close()
    await sessions.close()


async def test_a_question_the_model_never_showed_is_closed_without_deleting(stack):
    """A message that also states something is routed at the end of its turn, after the
    reply: a weak match found then was never shown, so the next message deletes nothing."""
    app, sessions, memory, user, say = stack
    session = await sessions.create_session(app_name=app.name, user_id=user)
    held = ["Leo got picked for the county under-12s squad.", "Leo's school is Kingsmead Primary."]
    await store_facts(memory, app.name, user, held, datetime.now(timezone.utc))
    await say(session.id, "We got a new fridge today. Forget Leo's football stuff.")
    await say(session.id, "Yes please.")
    done = await sessions.get_session(app_name=app.name, user_id=user, session_id=session.id)
    assert done.state.get(PENDING_FORGET_KEY) is None
    left = set()
    for query in held:
        left.update(texts(await memory.search_memory(app_name=app.name, user_id=user, query=query)))
    assert set(held) <= left


class _CountingExtractor:
    """The offline router behind a wrapper that hides it is offline (as a model's would)."""

    def __init__(self) -> None:
        from adk_memory_kit.routing.offline import LearnedExtractor

        self.inner = LearnedExtractor()
        self.calls = 0

    async def extract(self, events):
        self.calls += 1
        return await self.inner.extract(events)


async def test_with_a_model_extractor_only_a_request_the_grammar_reads_is_acted_on_early(
    db_url, embedder
):
    """A model extractor is not called twice for a turn that merely mentions telling or
    keeping; a request the grammar reads is still acted on before the reply."""
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    user = f"u-{uuid.uuid4().hex[:8]}"
    extractor = _CountingExtractor()
    llm = ScriptedLlm(responder=lambda _: "ok")
    plugin = MemoryRoutingPlugin(extractor)
    agent = LlmAgent(name="helper", model=llm)
    h = await Harness(agent, sessions, memory=memory, plugins=[plugin], user=user).start()
    await store_facts(
        memory, h.app, user, ["My gym shelf label is 4471."], datetime.now(timezone.utc)
    )
    await h.turn("I told my boss I'd keep the notes from the meeting.")
    assert extractor.calls == 1  # the end of the turn only
    await h.turn("Please forget my gym shelf label.")
    assert extractor.calls == 3  # before the reply, then the end of the turn
    told = str(llm.requests[-1].config.system_instruction or "")
    assert "1 stored memory about what they named was deleted" in told
    await memory.close()
    await sessions.close()
