"""The user's answer to a forget request's question, and what the agent is told."""

from __future__ import annotations

import pytest

from adk_memory_kit.routing.edits.confirmations import chosen_items
from adk_memory_kit.routing.edits.forget_notes import answer_note, request_note


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ("Yes please.", True),
        ("yep, go ahead", True),
        ("Both of them.", True),
        ("Just the second one.", [2]),
        ("1 and 3", [1, 3]),
        ("the last one pls", [3]),
        ("Number one.", [1]),
        ("No.", False),
        ("nah leave them", False),
        ("Neither.", False),
        # not an answer that may delete anything
        ("Not the first one.", None),
        ("maybe the second?", None),
        ("That one.", None),  # which one, of three?
        ("What's the weather like in Leeds tomorrow?", None),
        ("Yes, and book me a table for two at eight tonight please.", None),
        ("Keep the first one.", None),
        ("Keep the second, delete the first", None),
        ("I have two dogs, any walking tips?", None),
        ("Remind me at 2", None),
        ("What did I say last week?", None),
        ("Right, now tell me a joke", None),
        ("ok, set an alarm for 7", None),
    ],
)
def test_a_reply_is_read_as_yes_no_the_items_it_names_or_no_answer(reply, answer):
    assert chosen_items(reply, 3) == answer


def test_a_number_beyond_what_was_shown_names_nothing():
    assert chosen_items("the third one", 2) is None
    assert chosen_items("yes, that one", 1) is True  # only one was shown
    assert chosen_items("okay no", 1) is False  # a yes taken back keeps


def test_the_note_for_a_question_lists_the_memories_and_how_to_answer():
    record = {"deleted": 0, "homes": [], "needs_confirmation": 2}
    note = request_note(record, ["My gym locker code is 4471.", "My work locker is 12."])
    assert "1. My gym locker code is 4471.\n2. My work locker is 12." in note
    assert "nothing was deleted" in note and "ask whether to delete" in note


@pytest.mark.parametrize(
    ("record", "words"),
    [
        ({"deleted": 2, "homes": ["long_term"]}, "2 stored memories about what they named were"),
        ({"deleted": 0, "homes": []}, "no stored memory matched"),
        ({"deleted": 0, "homes": [], "needs_confirmation": "vague"}, "without saying what"),
        ({"deleted": 0, "homes": [], "needs_confirmation": 1}, "Ask them which memory"),
    ],
)
def test_the_note_for_a_request_says_what_was_done(record, words):
    assert words in request_note(record, [])


def test_an_answer_note_counts_what_went_and_says_nothing_for_no_answer():
    assert "1 stored memory was deleted" in answer_note(1, [2])
    assert "nothing was deleted" in answer_note(0, False)
    assert answer_note(0, None) is None
    assert request_note(None, []) is None
