"""Issue 29 in search: superseded memories are hidden unless ``as_of`` asks for their time,
and a present-tense question puts the newest of equally good answers first."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.memory.rerank import asks_about_now, rerank
from tests.support.memory import unique

pytestmark = pytest.mark.slow

T0 = datetime(2026, 3, 1, tzinfo=timezone.utc)


def fact(text: str, **kw) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=text)]), **kw)


def _row(rid: str, score: float, dense: float, days: int) -> dict:
    return {
        "id": rid,
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
