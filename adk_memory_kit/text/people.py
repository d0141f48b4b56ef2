"""Words naming people other than the user, and whether a sentence is about one of them.

The router reads a preference ("prefers the aisle", "allergic to eggs") as the user's own
only when the sentence is about the user: "My husband prefers the aisle seat" is a fact
about the husband, kept as a lasting fact, never the user's ``user:pref_seat``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from adk_memory_kit.text.signals import words

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
    "friend friends mate mates pal pals buddy buddies bestie bff",
    "flatmate roommate housemate",
    "colleague colleagues coworker",
    "neighbour neighbor neighbours neighbors",
)
#: Each person word -> the first word of its group.
PERSON_GROUP = {w: g.split()[0] for g in PEOPLE_GROUPS for w in g.split()}
PEOPLE = frozenset(PERSON_GROUP)


def people(text: str) -> set[str]:
    """The people ``text`` names besides the user, one word per person ("My mum's dentist
    ..." -> {"mum"})."""
    plain = (w.split("'")[0] for w in words(text))
    return {PERSON_GROUP[w] for w in plain if w in PERSON_GROUP}


_PERSON_WORDS = "|".join(sorted((re.escape(w) for w in PEOPLE), key=len, reverse=True))
_SAID_OF = (
    r"(?:is|isn't|are|aren't|was|has|have|can't|cannot|doesn't|don't|won't|prefers?|loves?|"
    r"likes?|hates?|needs?|wants?|eats?|drinks?|only eats?|always|never)"
)
# the sentence opens with someone else: "My husband ...", "Both my kids ...", "The kids ...",
# "She's ...", or a name and a verb ("Maya can't eat peanuts", "Tom is vegan")
_KIN = re.compile(
    rf"^\s*(?:(?:both|all|one|each|two|three) (?:of )?)?(?:my|our|the)\s+(?:\w+\s+)?"
    rf"(?:{_PERSON_WORDS})\b(?:['\u2019]s?)?",
    re.IGNORECASE,
)
_PRONOUN = re.compile(r"^\s*(?:she|he|they)\b", re.IGNORECASE)
_NAME = re.compile(rf"^\s*(?!I\b)([A-Z][a-z]+)\s+{_SAID_OF}\b")
# the user is in it too ("My husband and I prefer the aisle", "She and I are vegan"); after a
# name, "my" counts as well ("London is my home airport")
_THE_USER = re.compile(r"\b(?:I|I'm|I've|I'd|me|myself|we|us)\b", re.IGNORECASE)
_THE_USERS = re.compile(r"\b(?:my|our|mine)\b", re.IGNORECASE)
_MAX_CHARS = 500


def users_part(sentence: str, is_value: Callable[[str], bool] = lambda _: False) -> str | None:
    """What of ``sentence`` is said of the user: all of it when it does not open with someone
    else; from where the user is named when it does ("My partner prefers the window, I like
    the aisle" -> "I like the aisle"; after a name, all of it: "London is my home airport");
    ``None`` when it never names the user ("My daughter
    is allergic to eggs", "Tom is vegan", "She's allergic to shellfish"). ``is_value``:
    whether a capitalised first word is a preference value rather than a name ("Window is
    fine", "English is fine")."""
    text = sentence[:_MAX_CHARS]
    if opening := _KIN.match(text) or _PRONOUN.match(text):
        user = _THE_USER.search(text, opening.end())
        if user is None:
            return None
        if user.group(0).lower() in ("me", "us", "myself"):
            return text  # said to the user, of the user: "My friends call me Bea"
        return text[user.start() :]
    if (named := _NAME.match(text)) and not is_value(named.group(1)):
        # a name that the user goes on to claim is theirs ("London is my home airport")
        user = _THE_USER.search(text, named.end()) or _THE_USERS.search(text, named.end())
        return text if user else None
    return text


def about_someone_else(sentence: str, is_value: Callable[[str], bool] = lambda _: False) -> bool:
    """Whether ``sentence`` opens with someone other than the user and never names the user
    (:func:`users_part` is ``None``)."""
    return users_part(sentence, is_value) is None
