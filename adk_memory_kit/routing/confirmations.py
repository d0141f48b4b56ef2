"""The user's answer to "Shall I delete these?": yes, no, which ones, or none of those.

A forget request whose matches are too weak or too alike to act on is not guessed at; the
agent shows the user what it found, numbered, and asks (``lifecycle.conversation_edits``).
The reply settles it: a short yes deletes them all, a short reply naming some of them ("the
first one", "2", "both") deletes those; a no, or anything else, keeps them.
"""

from __future__ import annotations

import re

from adk_memory_kit.routing.keep_requests import plain

# longer replies say more than yes or no ("yes, and also my sister's number ..."): not an
# answer to settle a deletion on
MAX_ANSWER_WORDS = 8

_YES = re.compile(
    r"^\s*(?:(?:oh|ah|um|well|ok|okay|right|so)\b[,.!]?\s*)?"
    r"(?:yes|yeah|yea|yep|yup|ya|yah|aye|y|sure|absolutely|definitely|correct|exactly|"
    r"that's (?:it|the one|right|correct)|that one|thats (?:it|the one|right)|right|ok|okay|"
    r"please do|go ahead|do it|delete it|delete (?:that|them|those|both)|"
    r"(?:please )?(?:forget|remove|erase|wipe|bin) (?:it|that|them|those|both)|"
    r"affirmative|indeed|spot on|bingo)\b",
    re.IGNORECASE,
)
_NO = re.compile(
    r"^\s*(?:(?:oh|ah|um|well|hmm)\b[,.!]?\s*)?"
    r"(?:no|nope|nah|na|n|not (?:that|this|those|them|it|really|quite)|wrong|neither|"
    r"keep (?:it|that|them|those)|leave (?:it|that|them|those)|don't|do not|dont|never mind|"
    r"nevermind|cancel|stop)\b",
    re.IGNORECASE,
)
_HEDGE = re.compile(
    r"\b(?:but|not sure|maybe|don't know|dont know|no idea|wait|no|not|nope|nah|never)\b",
    re.IGNORECASE,
)


def answers_yes(reply: str) -> bool | None:
    """``True`` for a short yes ("yes please", "yep that's it", "go ahead"), ``False`` for a
    short no ("no", "not that one", "leave it"), ``None`` for anything else (a longer reply,
    a hedge, another subject): only ``True`` may settle a deletion."""
    text = plain(reply or "").strip()
    if not text or len(text.split()) > MAX_ANSWER_WORDS:
        return None
    if _NO.match(text):
        return False
    if _HEDGE.search(text):
        return None
    return True if _YES.match(text) else None


_ORDINALS = {
    "1": 1, "one": 1, "first": 1, "top": 1, "1st": 1,
    "2": 2, "two": 2, "second": 2, "2nd": 2,
    "3": 3, "three": 3, "third": 3, "3rd": 3,
}  # fmt: skip
_ALL = re.compile(r"\b(?:both|all(?: of them)?|every one|each of them)\b", re.IGNORECASE)
_ITEM = re.compile(
    r"\b(?:1st|2nd|3rd|[1-3]|(?<=number )one|two|three|first|second|third|top|last)\b",
    re.IGNORECASE,
)
_UNSURE = re.compile(r"\b(?:not|maybe|but|don't know|dont know|no idea|wait)\b", re.IGNORECASE)


def chosen_items(reply: str, count: int) -> bool | list[int] | None:
    """The user's answer to a question showing ``count`` memories, numbered from 1: ``True``
    (yes, or "both" / "all": every one), ``False`` (no), the numbers it names ("just the
    first one", "2 and 3"; "the last one" is ``count``), or ``None`` (no answer to it)."""
    text = plain(reply or "").strip()
    if not text or len(text.split()) > MAX_ANSWER_WORDS:
        return None
    if _NO.match(text) and not _ITEM.search(text):
        return False
    if _UNSURE.search(text) or (count > 1 and re.search(r"\bth(?:at|is) one\b", text, re.I)):
        return None
    if _ALL.search(text):
        return True
    named: list[int] = []
    for word in _ITEM.findall(text):
        number = count if word.lower() == "last" else _ORDINALS[word.lower()]
        if number <= count and number not in named:
            named.append(number)
    if named and not _NO.match(text):
        return sorted(named)
    return answers_yes(text)
