"""Relative dates resolved against the time the user said them."""

from __future__ import annotations

from datetime import date, datetime, timezone

import pytest
from google.adk.events.event import Event
from google.genai import types

from adk_memory_kit.routing import RuleBasedExtractor, resolve_relative_dates

# Wednesday 2026-11-25
SAID = datetime(2026, 11, 25, 15, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("phrase", "expected"),
    [
        ("yesterday", date(2026, 11, 24)),
        ("today", date(2026, 11, 25)),
        ("tomorrow", date(2026, 11, 26)),
        ("last Tuesday", date(2026, 11, 24)),
        ("last Wednesday", date(2026, 11, 18)),
        ("next Monday", date(2026, 11, 30)),
        ("this Friday", date(2026, 11, 27)),
        ("last week", date(2026, 11, 16)),
        ("next month", date(2026, 12, 1)),
        ("last year", date(2025, 1, 1)),
        ("3 days ago", date(2026, 11, 22)),
        ("in 2 weeks", date(2026, 12, 9)),
        ("2 months ago", date(2026, 9, 1)),
    ],
)
def test_each_phrase_resolves_against_the_reference(phrase, expected):
    text, first = resolve_relative_dates(f"We met {phrase} in Lisbon", SAID)
    assert first == expected
    assert text == f"We met {phrase} ({expected.isoformat()}) in Lisbon"


def test_no_reference_or_no_phrase_changes_nothing():
    assert resolve_relative_dates("We met last Tuesday", None) == ("We met last Tuesday", None)
    assert resolve_relative_dates("The last time was fine", SAID) == (
        "The last time was fine",
        None,
    )
    once, _ = resolve_relative_dates("We met last Tuesday", SAID)
    assert resolve_relative_dates(once, SAID) == (once, None)  # never annotated twice


async def test_extracted_facts_carry_the_date_of_the_event_not_of_extraction():
    event = Event(
        id="e1",
        author="user",
        invocation_id="i1",
        timestamp=SAID.timestamp(),
        content=types.Content(
            role="user", parts=[types.Part(text="The hotel in Lisbon last Tuesday was noisy.")]
        ),
    )
    (fact,) = [c for c in await RuleBasedExtractor().extract([event]) if not c.sensitive]
    assert "last Tuesday (2026-11-24)" in fact.text
    assert fact.valid_from == datetime(2026, 11, 24, tzinfo=timezone.utc)
    assert fact.observed_at == SAID
