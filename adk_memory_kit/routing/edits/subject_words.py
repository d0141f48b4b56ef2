"""How the words of a forget request's subject relate to a memory's text (pure text, no model).

The subject is what a request names ("my sister's phone number"); these helpers read whose
it is (:func:`possessor`), the words naming it (:func:`naming_stems`), and whether a memory's
text holds what it names: every naming word, the identifier it ends with, the time it says,
or an owner word ("My gym locker code ...") that makes the memory someone else's.
"""

from __future__ import annotations

import re
from typing import Any

from adk_memory_kit.routing.edits.forget_requests import VAGUE_WORDS
from adk_memory_kit.routing.edits.named_people import ROLE_WORDS
from adk_memory_kit.text.people import PEOPLE
from adk_memory_kit.text.signals import content_stems, overlap, words


def names_it(naming: set[str], name: str, value: Any) -> bool:
    """Whether a state value under ``name`` (a preference, a session fact) shares a naming
    word of a forget request ("my trip to Lima": ``trip_destination`` = "Lima")."""
    said = content_stems(f"{name.replace('_', ' ')} {value}")
    return bool(naming) and overlap(said, naming) > 0


#: Words that qualify a subject without naming it: "my old job" is named by "job" alone, so a
#: memory sharing only "old" (or "number", "name") with the subject does not match it on its own
GENERIC = content_stems(
    "old new previous former current latest first last number numbers name names information "
    "info detail details plan plans history record records data personal private favourite "
    "against"
)


_SUBJECT_NAME = re.compile(r"\b(?!I\b)[A-Z][a-z]+\b")


def names_in(subject: str) -> set[str]:
    """The stems of the capitalised names in a forget request's subject ("Instagram")."""
    return {s for n in _SUBJECT_NAME.findall(subject) for s in content_stems(n)}


# a subject ending in one of these names an identifier ("my passport number"): "details" or
# "information" add nothing ("my flight details" is any memory about the flight)
_IDENTIFIER = content_stems("number numbers name names")


def identifier_word(subject: str) -> str | None:
    """The subject's last word when it names an identifier ("number" in "my passport
    number"): a memory holding the other words only ("My passport expires in August") is
    not it."""
    last = [w for w in words(subject) if content_stems(w)][-1:]
    stems = content_stems(last[0]) if last else set()
    return next(iter(stems & _IDENTIFIER), None)


def holds_identifier(head: str, text: str) -> bool:
    """Whether a memory can hold the identifier a subject ends with: it says the word, or
    holds a number (for "number") or a capitalised name (for "name")."""
    if head in content_stems(text):
        return True
    if head.startswith("numbe"):  # digits, but not only a year ("expires in August 2027")
        return any(not _YEAR.fullmatch(run) for run in re.findall(r"\d+", text))
    return bool(NAME.search(text))


_YEAR = re.compile(r"(?:19|20)\d\d")
_DATE_STEMS = content_stems("date dates")
# a date said in a memory: "14 October", "on the 3rd", "12/05"
_MONTHS = r"january|february|march|april|june|july|august|september|october|november|december"
_A_DATE = re.compile(
    rf"\b(?:{_MONTHS}|jan|feb|apr|jun|jul|aug|sept|oct|nov|dec)\b|(?-i:\bMay\b)"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{1,2}[/.-]\d{1,2}\b",
    re.IGNORECASE,
)


_MONTH = re.compile(rf"\b(?:{_MONTHS})\b|(?-i:\bMay\b)", re.IGNORECASE)
_BEFORE_NOW = re.compile(r"\b(?:last|yesterday|ago|past|previous|earlier)\b", re.IGNORECASE)
_AFTER_NOW = re.compile(r"\b(?:next|tomorrow|upcoming|coming|soon)\b", re.IGNORECASE)


def another_time(subject: str, text: str) -> bool:
    """Whether a memory is dated other than the subject says: other months only ("my blood
    test in May" / "... in October"), or after now where the subject is before it ("my
    blood results from last week" / "the next blood test"), or the other way round."""
    wanted = {m.lower() for m in _MONTH.findall(subject)}
    held = {m.lower() for m in _MONTH.findall(text)}
    if wanted and held and not wanted & held:
        return True
    before, after = bool(_BEFORE_NOW.search(subject)), bool(_AFTER_NOW.search(subject))
    if before != after:
        side, other = (_BEFORE_NOW, _AFTER_NOW) if before else (_AFTER_NOW, _BEFORE_NOW)
        return bool(other.search(text)) and not side.search(text)
    return False


def holds_words(stems: set[str], text: str) -> bool:
    """Whether a memory holds every one of a subject's naming stems; "date" is held by a date
    ("my court date": "... court on 14 October")."""
    missing = stems - content_stems(text)
    if missing and missing <= _DATE_STEMS:
        return bool(_A_DATE.search(text))
    return not missing


# a capitalised name (not an acronym, not "I"), anywhere but a sentence's first word
NAME = re.compile(r"(?<=[\w,] )(?!I\b)[A-Z][a-z]+\b")


# a subject opening with someone's name as its possessor ("Sarah's pregnancy")
NAMED_OWNER = re.compile(r"^(?!(?:I|My|Our|The|Your|That|This|It)\b)([A-Z][a-z]+)['\u2019]s?\s")


def owner_of(text: str) -> tuple[str, str] | None:
    """What a memory starting "my ..." / "our ..." is about, as (word, stem) ("My sister's
    number is ..." -> sister), skipping generic words ("my old flat" -> flat); else ``None``,
    also when the user is one of them ("My husband and I are ...": the user's own too)."""
    tokens = words(text)
    if not tokens or tokens[0] not in ("my", "our"):
        return None
    for i, token in enumerate(tokens[1:4], start=1):
        stems = content_stems(token) - GENERIC
        if stems:
            with_user = tokens[i + 1 : i + 3] in (["and", "i"], ["and", "me"])
            if with_user and not _THEIRS.intersection(tokens[i + 3 :]):
                return None  # "My wife and I have a mortgage", not "... about her mortgage"
            return token.split("'")[0], next(iter(stems))
    return None


# words that give a detail to someone other than the user
_THEIRS = frozenset("her his their hers theirs him them she he".split())
# "in-laws" is read as "in", "laws"
_IN_LAW = frozenset({"law", "in-law"})


def modifies(owner: str, text: str, naming: set[str]) -> bool:
    """Whether the word a memory opens with ("my gym ...") only qualifies the very thing a
    request names, said right after it ("my gym locker code" for "the locker code"; "My
    debit card PIN" for "my PIN"): it is the user's, not another owner's. Never when a word
    up to the thing names someone ("My dads wifi password", "My gym buddy's locker code",
    "My boss laptop password") or is a possessive."""
    tokens = words(text)
    at = next((i for i, t in enumerate(tokens[:4]) if t.split("'")[0] == owner), None)
    if at is None or not naming:
        return False
    upto = tokens[at : at + 4]
    thing = next(
        (i for i in range(len(upto)) if naming <= content_stems(" ".join(upto[1 : i + 1]))),
        None,
    )
    return thing is not None and not any(names_someone(t) for t in upto[:thing])


def names_someone(token: str) -> bool:
    """Whether a word names a person or says whose ("dads", "neighbours", "boss", "mum's")."""
    if token.endswith(("'s", "s'")):
        return True
    bare = token.split("'")[0]
    singular = bare[:-1] if bare.endswith("s") else bare
    return bool({bare, singular} & (PEOPLE | ROLE_WORDS | _IN_LAW))


_POSSESSIVE = re.compile(r"\b([a-z][a-z-]*?)(?:'s|(?<=s)')(?=\s|$)")


def possessor(subject: str) -> str | None:
    """Whose detail a subject names when it is someone else's ("my wife's phone number" ->
    "wife", "the kids' school" -> "kids"); ``None`` for the user's own."""
    match = _POSSESSIVE.search(subject.lower().replace("\u2019", "'"))
    if match is None or not (content_stems(match.group(1)) - VAGUE_WORDS):
        return None  # "what's on my mind", "that's": a contraction, not a possessor
    return match.group(1)


def without_possessor(subject: str, whose: str) -> str:
    """The subject without its possessor ("wife's phone number" -> "phone number")."""
    text = subject.lower().replace("\u2019", "'")
    text = re.sub(rf"\b(?:my|our|the)?\s*{re.escape(whose)}'s?(?=\s|$)", " ", text)
    return " ".join(text.split()) or subject


def naming_stems(subject: str) -> set[str]:
    """The words that name what a subject is about: its head's content stems (someone
    else's possessor left out), generic and vague words aside."""
    whose = possessor(subject)
    return (
        content_stems(without_possessor(subject, whose) if whose else subject)
        - GENERIC
        - VAGUE_WORDS
    )
