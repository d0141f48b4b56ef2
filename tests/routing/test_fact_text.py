"""Stored facts read as facts: conversational padding goes, every value stays."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone

import pytest

from adk_memory_kit.core.markers import ANNOUNCES_CHANGE
from adk_memory_kit.routing.apply import long_term_entry
from adk_memory_kit.routing.fact_text import readable_fact
from adk_memory_kit.routing.rule import Candidate


@pytest.mark.parametrize(
    ("said", "stored"),
    [
        ("oh and my brother Tomas lives in Vilnius, btw", "My brother Tomas lives in Vilnius."),
        ("please send invoices to billing@acme.example", "Send invoices to billing@acme.example."),
        ("So, I take my coffee black", "I take my coffee black."),
        ("also my gym closes at 21:30 on Sundays thanks", "My gym closes at 21:30 on Sundays."),
        ("Fyi: the car is a 2019 Škoda Octavia", "The car is a 2019 Škoda Octavia."),
        ("iPad mini is what I read on", "iPad mini is what I read on."),
        ("Do you remember my locker number?", "Do you remember my locker number?"),
        ("I was born in 1987.", "I was born in 1987."),
    ],
)
def test_padding_goes_and_values_stay(said: str, stored: str) -> None:
    assert readable_fact(said) == stored


def test_text_that_is_only_padding_is_not_emptied() -> None:
    assert readable_fact("  okay thanks ") == "okay thanks"


def test_the_routed_entry_stores_the_worded_fact_with_its_date() -> None:
    when = datetime(2026, 3, 4, 9, 30, tzinfo=timezone.utc)
    entry, _ = long_term_entry(
        Candidate(text="and by the way, the spare tyre is in the boot", observed_at=when)
    )
    assert entry.content.parts[0].text == "The spare tyre is in the boot."
    assert entry.timestamp == when.isoformat()


def test_a_fact_said_as_a_change_is_marked_so_the_read_path_can_prefer_it():
    changed = Candidate(
        text="Moved my savings over to Nationwide.",
        about_user=True,
        needed_in_future_sessions=True,
        replaces_earlier=True,
    )
    entry, _ = long_term_entry(changed)
    assert entry.custom_metadata[ANNOUNCES_CHANGE] is True
    plain, _ = long_term_entry(replace(changed, replaces_earlier=False))
    assert ANNOUNCES_CHANGE not in plain.custom_metadata
