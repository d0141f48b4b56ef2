"""The entity keys a text names (text/entities.py): names, relations by owner, apposition,
titles and dates; what is never a name."""

from __future__ import annotations

import pytest

from adk_memory_kit.text.entities import MAX_KEYS, entities


@pytest.mark.parametrize(
    ("text", "author", "expected"),
    [
        ("Thanks, Mel! Your backing means a lot.", "Caroline", {"n:mel"}),
        ("Hey Melanie! How is it going?", "Caroline", {"n:melanie"}),
        ("My sister lives in Oslo now.", "user", {"r:me:sister", "n:oslo"}),
        ("My sister lives in Oslo now.", "Caroline", {"r:caroline:sister", "n:oslo"}),
        ("What did Caroline's mentor recommend?", None, {"r:caroline:mentor", "n:caroline"}),
        ("Good! Mette, my charge nurse, made me run.", "Rannva", {"n:mette", "r:rannva:nurse"}),
        ('I loved reading "Charlotte\'s Web" as a kid.', "user", {"t:charlotte's web"}),
        ("We moved to New York City in May 2019.", "user", {"n:new york city", "d:2019-05"}),
        ("Mom said the Tokyo trip is off.", "user", {"r:me:mum", "n:tokyo"}),
    ],
)
def test_keys_named(text, author, expected):
    assert expected <= set(entities(text, author))


@pytest.mark.parametrize(
    ("text", "alias"),
    [
        ("Good! Mette, my charge nurse, made me run.", "a:mette=r:me:nurse"),
        ("We went with my sister Mel.", "a:mel=r:me:sister"),
        ("Priya (my mentor) said to apply.", "a:priya=r:me:mentor"),
        ("My dog is called Oliver.", "a:oliver=r:me:dog"),
    ],
)
def test_apposition_says_a_name_and_a_relation_are_one(text, alias):
    assert alias in entities(text, "user")


@pytest.mark.parametrize(
    "text",
    [
        "It's fine. That's all. What a day! Here's the thing.",
        "Wow, great news! Thanks so much.",
        "😂 My charge nurse laughed.",  # "My" after an emoji opens a sentence
        "I think I'm done, OK?",
        "Monday works, or Friday.",
    ],
)
def test_words_capitalised_by_position_are_no_names(text):
    assert not [k for k in entities(text, "user") if k.startswith("n:")]


def test_a_redaction_placeholder_is_never_a_key():
    keys = entities("My API key is [REDACTED_SECRET] for Stripe.", "user")
    assert not any("redacted" in k for k in keys)
    assert "n:stripe" in keys


def test_her_sister_names_no_owner():
    assert not [k for k in entities("Her sister lives in Oslo.", "user") if k.startswith("r:")]


def test_keys_are_bounded_and_stable():
    text = " ".join(f"I met Person{chr(65 + i % 26)}{i} today." for i in range(200))
    first = entities(text, "user")
    assert len(first) == MAX_KEYS
    assert first == entities(text, "user")
    assert entities("", "user") == []


def test_an_agents_my_is_not_the_users():
    assert "r:concierge:boss" in entities("My boss approved the refund.", "concierge")
    assert "r:me:boss" in entities("My boss approved the refund.", "user")
