"""Special categories a user states of themselves are found (the router drops them); the same
words about something else are not."""

from __future__ import annotations

import pytest

from adk_memory_kit.sensitive import detect_sensitive, redact_for_store
from adk_memory_kit.sensitive.special import SPECIAL_CATEGORY


@pytest.mark.parametrize(
    "said",
    [
        "I'm gay and my partner is travelling with me.",
        "As a practising Muslim I need halal options.",
        "Soy católica, así que nada de carne los viernes.",
        "Ich bin Jüdin und feiere Pessach.",
        "I made this painting to show my path as a trans woman.",
        "I wanted to feel closer to my faith.",
        "I came out to my parents last year.",
        "I had a DUI in 2021 so the insurer won't cover me.",
        "im DACA so some of the loan stuff doesnt apply to me",
        "I've voted Labour all my life.",
        "As a supporter of the Green Party I care about this.",
    ],
)
def test_a_special_category_stated_of_oneself_is_found(said):
    assert SPECIAL_CATEGORY in {f.kind for f in detect_sensitive(said)}


@pytest.mark.parametrize(
    "said",
    [
        "The Catholic church in the square has a lovely choir.",
        "I am bi-weekly paid.",
        "It was intense but I came out on top!",
        "We visited a Buddhist temple in Kyoto.",
        "The party was great, I voted for the blue cake design.",
        "My visa card expires next month.",
    ],
)
def test_the_same_words_about_something_else_are_not(said):
    assert SPECIAL_CATEGORY not in {f.kind for f in detect_sensitive(said)}


def test_a_security_answer_is_a_credential_and_the_store_gate_keeps_topic_words():
    said = "Mum's maiden name is Kowalski, the answer to my bank's security question."
    assert "credential" in {f.kind for f in detect_sensitive(said)}
    # a topic word is not rewritten by the store's gate (the router drops the sentence)
    assert "Catholic" in redact_for_store("The Catholic church in the square.")
