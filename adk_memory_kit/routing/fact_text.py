"""The wording of a fact the router stores: a sentence a person would write down.

What users say carries conversational padding that means nothing once stored: openers
("oh, and", "by the way", "please"), closers ("..., thanks", "... btw") and a lowercase
start. :func:`readable_fact` removes that padding and nothing else: it never rewrites the
words in between, so values (names, numbers, dates) are kept exactly. The date is not put
into the text: it travels with the memory (its timestamp and ``valid_from``).
"""

from __future__ import annotations

import re

# Padding that may open a sentence; several may follow one another ("oh and btw, ...").
_OPENER = re.compile(
    r"^(?:(?:oh|ah|ok(?:ay)?|so|well|also|and|but|plus|then|anyway|um+|uh+|hey|hi|"
    r"by the way|btw|fyi|just so you know|for the record|for your info(?:rmation)?|"
    r"one more thing|another thing|please|pls|kindly|actually|oh yeah|yeah|yes)"
    r"(?![\w'])[\s,;:!.\-]*)+",
    re.IGNORECASE,
)
# Padding that may close it.
_CLOSER = re.compile(
    r"[\s,;:\-]*(?<![\w'])(?:by the way|btw|fyi|please|pls|thanks|thank you|thx|cheers|"
    r"ok(?:ay)?|if you can|if possible|for me)[\s.!]*$",
    re.IGNORECASE,
)


def readable_fact(text: str) -> str:
    """``text`` without conversational openers and closers, starting with a capital and
    ending with a full stop (a question or exclamation keeps its mark). Text that is all
    padding is returned stripped but otherwise unchanged."""
    original = " ".join(text.split())
    fact = _OPENER.sub("", original)
    while True:
        shorter = _CLOSER.sub("", fact)
        if shorter == fact:
            break
        fact = shorter
    fact = fact.strip(" ,;:-")
    if not re.search(r"\w", fact):
        return original
    first = fact.split(" ", 1)[0]
    if first.islower() and first[:1].isalpha():
        fact = fact[:1].upper() + fact[1:]
    if fact[-1] not in ".!?":
        fact += "."
    return fact
