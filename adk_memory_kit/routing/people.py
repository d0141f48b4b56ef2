"""Words naming people other than the user, and whether a sentence is about one of them.

The router reads a preference ("prefers the aisle", "allergic to eggs") as the user's own
only when the sentence is about the user: "My husband prefers the aisle seat" is a fact
about the husband, kept as a lasting fact, never the user's ``user:pref_seat``.
"""

from __future__ import annotations

import re

#: Words naming a person other than the user, one group per person (MiniLM puts "wife" and
#: "husband", "sister" and "brother" too close to tell them apart by similarity).
PEOPLE_GROUPS = (
    "wife",
    "husband",
    "partner spouse",
    "fiance fiancee",
    "girlfriend",
    "boyfriend",
    "son sons stepson",
    "daughter daughters stepdaughter",
    "kid kids child children baby twins",
    "mum mom mother mummy stepmother",
    "dad father daddy stepfather",
    "parents parent in-laws",
    "brother brothers",
    "sister sisters",
    "sibling siblings",
    "cousin cousins",
    "niece",
    "nephew",
    "aunt auntie",
    "uncle",
    "grandmother grandma granny gran nan",
    "grandfather grandpa grandad",
    "grandparents",
    "grandson granddaughter grandchildren",
    "friend friends",
    "flatmate roommate housemate",
    "colleague colleagues coworker",
    "neighbour neighbor neighbours neighbors",
)
#: Each person word -> the first word of its group.
PERSON_GROUP = {w: g.split()[0] for g in PEOPLE_GROUPS for w in g.split()}
PEOPLE = frozenset(PERSON_GROUP)

_PERSON_WORDS = "|".join(sorted((re.escape(w) for w in PEOPLE), key=len, reverse=True))
# the sentence opens with someone else: "My husband ...", "Our kids ...", "My wife's ...",
# or a name and a verb said of a person ("Maya can't eat peanuts", "Tom prefers ..."; not
# "is", which a value takes as well: "Window is fine", "English is my first language")
_OPENS_WITH_SOMEONE = re.compile(
    rf"^\s*(?:(?i:my|our)\s+(?:\w+\s+)?(?:{_PERSON_WORDS})\b(?:['\u2019]s?)?"
    r"|(?!I\b)[A-Z][a-z]+\s+(?:can't|cannot|doesn't|won't|prefers|loves|likes|hates|needs|"
    r"wants|eats|drinks)\b)",
)
# the user is in it too ("My husband and I prefer the aisle", "... like me")
_THE_USER = re.compile(r"\b(?:I|I'm|I've|I'd|me|myself|we|us|my|our|mine)\b", re.IGNORECASE)
_MAX_CHARS = 500


def about_someone_else(sentence: str) -> bool:
    """Whether ``sentence`` opens with someone other than the user as its subject and never
    names the user ("My daughter is allergic to eggs"; not "My wife and I are vegan")."""
    text = sentence[:_MAX_CHARS]
    opening = _OPENS_WITH_SOMEONE.match(text)
    return opening is not None and not _THE_USER.search(text, opening.end())
