"""The user's answer to "Shall I delete these?": yes, no, which ones, or none of those.

A forget request whose matches are too weak or too alike to act on is not guessed at; the
agent shows the user what it found, numbered, and asks (``routing.edits.conversation_edits``).
The reply settles it: a short yes deletes them all, a short reply naming some of them ("the
first one", "2", "both") deletes those; a no, or anything else, keeps them.
"""

from __future__ import annotations

import re

from adk_memory_kit.routing.edits.keep_requests import plain

# longer replies say more than yes or no ("yes, and also my sister's number ..."): not an
# answer to settle a deletion on
MAX_ANSWER_WORDS = 8

_ORDINALS = {
    "1": 1, "first": 1, "top": 1, "1st": 1, "one": 1,
    "2": 2, "second": 2, "2nd": 2, "two": 2,
    "3": 3, "third": 3, "3rd": 3, "three": 3,
}  # fmt: skip
# an answer is made of these words only: a yes or a no, the items it names, politeness
_AFFIRM = frozenset(
    "yes yeah yea yep yup ya yah aye y sure ok okay correct exactly absolutely definitely "
    "indeed right go ahead do delete remove forget erase wipe bin".split()
)
_DENY = frozenset("no nope nah na n neither none keep leave don't dont not".split())
_ITEM_WORDS = frozenset("first second third last top 1st 2nd 3rd 1 2 3 number #".split())
_ALL_WORDS = frozenset("both all every each".split())
_FILLER = frozenset(
    "please pls plz thanks thank you the one ones it them that those this these just only "
    "and of course fine is that's thats it's its too also lol cheers mate ta".split()
)
_WORD = re.compile(r"[a-z0-9#']+")


def chosen_items(reply: str, count: int) -> bool | list[int] | None:
    """The user's answer to a question showing ``count`` memories, numbered from 1: ``True``
    (yes, or "both" / "all": every one), ``False`` (no), the numbers it names ("just the
    first one", "2 and 3"; "the last one" is ``count``), or ``None``: anything but such an
    answer (a question, another subject, "keep the first one" mixed with a yes). Only a reply
    made of answer words counts, so "I have two dogs" or "Ok, set an alarm for 7" name none."""
    text = plain(reply or "").strip().lower()
    tokens = _WORD.findall(text)
    if not tokens or "?" in text or len(tokens) > MAX_ANSWER_WORDS:
        return None
    if any(t not in _AFFIRM | _DENY | _ITEM_WORDS | _ALL_WORDS | _FILLER for t in tokens):
        return None
    denies = any(t in _DENY for t in tokens)
    named: list[int] = []
    for i, token in enumerate(tokens):
        number = None
        if token == "last":
            number = count
        elif token in ("one", "two", "three"):
            # a number word only after "number" ("number two"): "the first one" is no "1"
            number = _ORDINALS[token] if i and tokens[i - 1] in ("number", "#") else None
        elif token in _ORDINALS:
            number = _ORDINALS[token]
        if number is not None and number not in named:
            named.append(number)
    if denies:
        return False if not named and not any(t in _ALL_WORDS for t in tokens) else None
    if any(n > count for n in named):
        return None
    if named:
        return sorted(named)
    if any(t in _ALL_WORDS for t in tokens):
        return True
    if count > 1 and ("that" in tokens or "this" in tokens) and "one" in tokens:
        return None  # "that one", of several?
    return True if any(t in _AFFIRM for t in tokens) else None
