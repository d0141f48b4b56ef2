"""Who a sentence is about, with the words that make two people of one ("ex", "-in-law")."""

from __future__ import annotations

import pytest

from adk_memory_kit.routing.edits.named_people import qualified_people, relation, someone_else


@pytest.mark.parametrize(
    ("text", "people"),
    [
        ("My ex-husband kept the car.", {"husband": {"ex"}}),
        ("my former manager", {"manager": {"ex"}}),
        ("My late grandmother's ring", {"grandmother": {"late"}}),
        ("my stepbrother", {"brother": {"step"}}),
        ("My step-daughter Lily", {"daughter": {"step"}}),
        ("Her father-in-law is a judge.", {"dad": {"in-law"}}),
        ("my previous landlord", {"landlord": {"ex"}}),
        ("My new boss starts Monday.", {"boss": {"now"}}),
        # a qualifier counts only right before the person
        ("My ex-army husband drives a bus.", {"husband": {""}}),
        ("My son in law school loves it.", {"son": {""}}),
        ("My mother in law lives in Bristol.", {"mum": {"in-law"}}),
        ("Too late, mum said no.", {"mum": {""}}),
        (
            "the ex from university",
            {
                g: {"ex"}
                for g in ("wife", "husband", "partner", "girlfriend", "boyfriend", "fiance")
            },
        ),
        (
            "all my exes",
            {
                g: {"ex"}
                for g in ("wife", "husband", "partner", "girlfriend", "boyfriend", "fiance")
            },
        ),
        ("I like old film cameras.", {}),
    ],
)
def test_people_come_with_their_qualifiers(text, people):
    assert qualified_people(text) == people


@pytest.mark.parametrize(
    ("subject", "memory", "other"),
    [
        ("my ex-girlfriend", "My current girlfriend is a dentist.", True),
        # a bare word may predate the change: the same person, not decided here
        ("my ex-girlfriend", "My girlfriend Sara and I broke up.", False),
        ("my late dad", "My dad passed away in 2019.", False),
        ("my old boss", "My former boss Carla was strict.", False),
        ("my girlfriend", "My ex-girlfriend moved abroad.", True),
        ("my ex-girlfriend", "My ex-girlfriend moved abroad.", False),
        ("my father-in-law", "My dad plays golf.", True),
        ("my former landlord", "Our new landlord fixed the boiler.", True),
        # partners stand for each other; a relative named through another is not decided
        ("my wife", "My fiancee Anna loves sailing.", False),
        ("my stepmum", "My dad's wife Carol is a nurse.", False),
        # a name ties them, whatever its letters
        ("my friend José", "José is my neighbour.", False),
        # other kin, no one in common
        ("my half-brother's wedding", "My aunt runs a cafe.", True),
        # a group covers its members, a member its group
        ("my parents", "My mum sings in a choir.", False),
        ("my dad", "My parents live by the sea.", False),
        # a name ties them
        ("my cousin Ravi", "Ravi is my neighbour.", False),
        # a memory naming no one is not decided here
        ("my ex-wife", "We divorced in 2015.", False),
        ("my holiday", "My sister lives in Rome.", False),
    ],
)
def test_a_memory_about_someone_else_is_told_apart(subject, memory, other):
    assert someone_else(subject, memory) is other


@pytest.mark.parametrize(
    ("subject", "memory", "verdict"),
    [
        # a bare word may be the same person, told before the break-up
        ("my ex-boyfriend", "My boyfriend works at a bank.", "unsure"),
        # ... unless the memory says it ended, or a name ties them
        ("my ex-wife", "My wife and I divorced in 2019.", "same"),
        ("my ex-girlfriend Maya", "My girlfriend Maya is a nurse.", "same"),
        ("my ex-wife", "My current wife is a pilot.", "other"),
        ("my holiday", "My wife booked Crete.", "same"),
    ],
)
def test_the_relation_of_a_memory_to_the_people_asked_about(subject, memory, verdict):
    assert relation(subject, memory) == verdict
