"""A request to change a detail the assistant holds ("Change my dentist to Dr Reyes", "can you
update my emergency contact to my wife Rachel"): the user states a lasting fact that replaces
an earlier one. It names no deletion, so it is never a forget request, whatever the example
bank says of it."""

from __future__ import annotations

import re

from adk_memory_kit.routing.edits.keep_requests import OPENER, POLITE, plain

_CHANGE = re.compile(
    rf"^\s*{OPENER}{POLITE}(?:change|update|set|switch|correct|amend|edit)\s+"
    r"(?:my|our)\s+(?:[\w'-]+\s+){0,3}?[\w'-]+\s+(?:to|as)\s+\S",
    re.IGNORECASE,
)


# ... to no value at all is a deletion ("Update my records to remove my old address", "Set
# my address to blank, I don't want it stored")
_TO_NOTHING = re.compile(
    r"\b(?:remove|removed|delete|deleted|erase|erased|forget|forgotten|wipe|wiped|exclude|"
    r"take out|leave out|drop|blank|empty|nothing|none|not show|not keep|not store|"
    r"don'?t (?:want|keep|store|show|need)|do not|no longer|stop)\b",
    re.IGNORECASE,
)


def asks_to_change(sentence: str) -> bool:
    """Whether ``sentence`` asks (after an interjection and politeness) to change one of the
    user's details to a new value ("Please update my work email to ...", "Switch our
    dentist to ..."), not to nothing ("Update my records to remove my old address")."""
    text = plain(sentence)
    return _CHANGE.match(text) is not None and _TO_NOTHING.search(text) is None
