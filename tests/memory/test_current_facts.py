"""Issue 29 in search: superseded memories are hidden unless ``as_of`` asks for their time,
and a present-tense question puts the newest of equally good answers first."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.core.markers import ANNOUNCES_CHANGE
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.documents import INDEXED_WITH
from adk_memory_kit.memory.rerank import (
    CHANGE_WINDOW,
    asked_about,
    asks_about_now,
    asks_in_the_present,
    rerank,
)
from tests.support.memory import unique

pytestmark = pytest.mark.slow

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


def fact(text: str, **kw) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=text)]), **kw)


def _row(rid: str, score: float, dense: float, days: int, kind: str = "fact") -> dict:
    return {
        "id": rid,
        "memory_type": kind,
        "score": score,
        "dense_score": dense,
        "event_time": T0 + timedelta(days=days),
        "session_id": None,
        "valid_to": None,
    }


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("Where does she work currently?", True),
        ("What car do I drive now?", True),
        ("Is he still in Leeds?", True),
        ("Which band these days?", True),
        ("Where did I work in 2019?", False),
        ("What is my sister's name?", False),
    ],
)
def test_present_tense_questions_are_told_apart(query, expected):
    assert asks_about_now(query) is expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What car does the user drive?", True),
        ("Who is her GP?", True),
        ("Which bank are we with", True),
        ("What car did the user drive?", False),
        ("What was my old phone number?", False),
        ("Where did he live before Leeds?", False),
        ("Which team did I support in 2019?", False),
        ("What is my previous address?", False),
        ("Who was my first manager?", False),
        # where the user comes from, what has happened: no newer fact replaces those
        ("Where did she grow up?", False),
        ("What is his home town?", False),
        ("Which school does the user have a degree from?", False),
        ("Which countries has the user visited?", False),
        ("Which bone has he broken?", False),
        # a lookup by a memory's own words or by keywords is not a question
        ("My manager is Tom Becker.", False),
        ("user car", False),
        ("which car does the user drive", True),
    ],
)
def test_a_plain_present_question_is_told_from_one_about_the_past(query, expected):
    assert asks_in_the_present(query) is expected


def test_a_plain_present_question_puts_the_newest_fact_first_but_leaves_turns_in_place():
    facts = [_row("old", 0.30, 0.62, 0), _row("new", 0.28, 0.58, 30)]
    moved = rerank(facts, session_weight=0, neighbour_weight=0, limit=2, plain_present=True)
    assert [r["id"] for r in moved] == ["new", "old"]
    # conversation turns are events, not states: a later turn does not replace an earlier one
    turns = [_row("old", 0.30, 0.62, 0, "episode"), _row("new", 0.28, 0.58, 30, "episode")]
    kept = rerank(turns, session_weight=0, neighbour_weight=0, limit=2, plain_present=True)
    assert [r["id"] for r in kept] == ["old", "new"]
    # ... unless the question asks about now
    now = rerank(turns, session_weight=0, neighbour_weight=0, limit=2, present_tense=True)
    assert [r["id"] for r in now] == ["new", "old"]


def test_a_fact_said_as_a_change_leads_from_further_below_for_a_present_question():
    # "Moved my account over to Monzo" stored beside "I bank with Barclays" (not tied to it)
    old, new = _row("old", 0.30, 0.62, 0), _row("new", 0.20, 0.50, 30)
    announced = {**new, "metadata": {ANNOUNCES_CHANGE: True}}
    rows = [old, announced]
    moved = rerank(rows, session_weight=0, neighbour_weight=0, limit=2, plain_present=True)
    assert [r["id"] for r in moved] == ["new", "old"]
    # a plain newer fact that far below does not; nor does the change for a question about
    # the past, nor one further than the window below
    for rows, present in (([old, new], True), ([old, announced], False)):
        kept = rerank(rows, session_weight=0, neighbour_weight=0, limit=2, plain_present=present)
        assert [r["id"] for r in kept] == ["old", "new"]
    far = {**announced, "dense_score": 0.62 - CHANGE_WINDOW - 0.02}
    kept = rerank([old, far], session_weight=0, neighbour_weight=0, limit=2, plain_present=True)
    assert [r["id"] for r in kept] == ["old", "new"]


def test_present_tense_puts_the_newest_close_answer_first_and_leaves_far_ones():
    rows = [
        _row("old", 0.30, 0.62, 0),  # the old fact, best by score
        _row("new", 0.28, 0.58, 30),  # the newer answer, about as close
        _row("far", 0.20, 0.40, 60),  # newest of all, but no answer to the question
    ]
    plain = rerank(rows, session_weight=0, neighbour_weight=0, limit=3)
    assert [r["id"] for r in plain] == ["old", "new", "far"]
    now = rerank(rows, session_weight=0, neighbour_weight=0, limit=3, present_tense=True)
    assert [r["id"] for r in now] == ["new", "old", "far"]


async def test_superseded_rows_are_hidden_by_default_and_reached_with_as_of(memory):
    app, user = unique("app"), unique("u")
    for text, when in (("I drive a grey Golf", T0), ("I drive a Tesla now", T0 + timedelta(30))):
        await memory.add_memory(
            app_name=app,
            user_id=user,
            memories=[fact(text, timestamp=when.isoformat())],
            custom_metadata={"subject": "car"},
        )
    texts = lambda found: [m.content.parts[0].text for m in found.memories]  # noqa: E731
    now = await memory.search(app_name=app, user_id=user, query="which car do I drive")
    assert texts(now) == ["I drive a Tesla now"]
    then = await memory.search(
        app_name=app, user_id=user, query="which car do I drive", as_of=T0 + timedelta(days=3)
    )
    assert texts(then) == ["I drive a grey Golf"]
    assert "superseded_at" in then.memories[0].custom_metadata
    # an operator's view of the history (the console) asks for both, current first
    both = await memory.search(
        app_name=app, user_id=user, query="which car do I drive", include_superseded=True
    )
    assert texts(both) == ["I drive a Tesla now", "I drive a grey Golf"]


async def test_a_present_tense_question_ranks_the_newer_of_two_current_facts_first(memory):
    app, user = unique("app"), unique("u")
    # two facts on one subject, neither marked as replacing the other
    for text, when in (
        ("My manager is Priya Sharma.", T0),
        ("My manager is Tom Becker.", T0 + timedelta(days=40)),
    ):
        await memory.add_memory(
            app_name=app, user_id=user, memories=[fact(text, timestamp=when.isoformat())]
        )
    found = await memory.search(app_name=app, user_id=user, query="Who is my manager now?")
    assert [m.content.parts[0].text for m in found.memories][0] == "My manager is Tom Becker."


async def test_a_correction_answers_the_questions_the_memory_it_replaced_answered(memory):
    """The replacement is embedded with the old text (never returned with it): a question that
    found the old fact finds the new one, though the new words alone are below the floor."""
    app, user = unique("app"), unique("u")
    question = "Which gym does the user go to?"
    await memory.add_memory(
        app_name=app, user_id=user, memories=[fact("I go to the PureGym on Hill Street.")]
    )
    (old,) = (await memory.search(app_name=app, user_id=user, query=question)).memories
    new = "Cancelled that membership, I lift in the garage these days."
    await memory.curator.correct_memory(
        app_name=app, user_id=user, memory_id=old.id, new_text=new, reason="changed"
    )
    found = await memory.search(app_name=app, user_id=user, query=question)
    assert [m.content.parts[0].text for m in found.memories] == [new]
    assert INDEXED_WITH not in (found.memories[0].custom_metadata or {})
    # the words alone, stored for another user, are not an answer to the question
    other = unique("u")
    await memory.add_memory(app_name=app, user_id=other, memories=[fact(new)])
    assert not (await memory.search(app_name=app, user_id=other, query=question)).memories


async def test_index_text_that_is_not_text_is_refused(memory):
    with pytest.raises(InvalidInputError, match=INDEXED_WITH):
        await memory.add_memory(
            app_name=unique("app"),
            user_id=unique("u"),
            memories=[fact("I like tea.", custom_metadata={INDEXED_WITH: 42})],
        )


@pytest.mark.parametrize(
    ("query", "asked"),
    [
        ("Where does the user work?", {"I"}),
        ("What car do I drive?", {"I"}),
        ("Where does my sister live?", {"sister"}),
        ("What is the user's wife's job?", {"wife"}),
        ("Where does Tom work?", None),
        # an in-law is not the person the word names
        ("Where does my sister-in-law live?", {"sister-in-law"}),
    ],
)
def test_whom_a_question_asks_about(query, asked):
    assert asked_about(query) == (frozenset(asked) if asked else None)


@pytest.mark.parametrize(
    ("facts", "query", "first"),
    [
        # a newer fact about someone else never leads a question about the user, nor the
        # other way round
        (
            ["I drive a Honda Civic.", "My husband drives a Ford Focus."],
            "What car does the user drive?",
            0,
        ),
        (
            ["My sister lives in Leeds.", "My brother lives in York."],
            "Where does the user's sister live?",
            0,
        ),
        # the user's newest of two answers leads, above another person's newer one
        (
            [
                "My GP is Dr. Evans.",
                "I am registered with Dr. Rowe as my GP these days.",
                "My son's GP is Dr. Shah.",
            ],
            "Who is the user's GP?",
            1,
        ),
    ],
)
async def test_the_newest_answer_leads_only_among_facts_about_whom_the_question_asks(
    memory, facts, query, first
):
    app, user = unique("app"), unique("u")
    for i, text in enumerate(facts):
        when = T0 + timedelta(days=30 * i)
        await memory.add_memory(
            app_name=app, user_id=user, memories=[fact(text, timestamp=when.isoformat())]
        )
    found = await memory.search(app_name=app, user_id=user, query=query)
    assert [m.content.parts[0].text for m in found.memories][0] == facts[first]
