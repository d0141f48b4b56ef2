"""Dialogue acts the write policy reads: what a sentence *does*, beside what it is about.

A request or a command to the agent ("flights please", "flights again", "show me cheaper
ones", "Summarize my findings") asks for work; it states nothing about the user, so it is no
fact for long-term memory. The cues are the grammar of a directive, not a list of phrases:

* it opens with an order: an imperative verb, after discourse markers and "please"
  ("Show me ...", "Please rebook ...", "OK, hold it");
* or it is a short fragment with a request marker ("please", "again", "pls") and no subject
  that states something ("flights please", "cheaper ones again").

A sentence that also states something of the user ("I'm vegetarian, please deliver to ...",
"Please rebook me: I want an aisle seat") or reports their life ("The hotel upgraded us")
is never a bare request, nor is a standing order ("always ...", "from now on ..."): that is
an instruction the router sends to review. Pure functions of the text: every process decides
the same way.
"""

from __future__ import annotations

import re

from adk_memory_kit.routing.offline import reports_the_users_life
from adk_memory_kit.text.signals import strip_tags

__all__ = ["is_request_to_agent", "states_something"]

_MARKERS = (
    r"(?:ok|okay|also|and|so|now|then|just|please|pls|plz|kindly|hey|hi|right|alright|"
    r"yes|yeah|no|quick one|one more thing|actually|oh)"
)

# the verbs a user orders an assistant with: its work (search, show, compare, book, draft...)
_IMPERATIVE = re.compile(
    rf"^\s*(?:{_MARKERS}[:,!.]?\s+)*"
    r"(?:find|search|look|show|get|fetch|pull|bring|give|list|summari[sz]e|sum up|compare|"
    r"recommend|suggest|plan|pick|choose|sort|filter|narrow|rank|check|try|redo|repeat|retry|"
    r"refresh|reload|go|run|open|read|print|draft|write|email|send|text|call|ring|"
    r"book|rebook|reserve|order|hold|cancel|confirm|change|switch|add|remove|drop|skip|"
    r"use|tell|explain|translate|calculate|convert|answer|reply|respond|continue|proceed|"
    r"keep going|carry on|start|stop|wait|hurry|help|take|make|set|turn|move|put|let)\b",
    re.IGNORECASE,
)
_REQUEST_MARKER = re.compile(r"\b(?:please|pls|plz|again)\b", re.IGNORECASE)
#: A fragment is short: a marker in a longer sentence ("Good to talk to you again") is no
#: request on its own.
FRAGMENT_WORDS = 5
# a standing order ("always deliver to ...", "from now on ...") is an instruction for the
# review queue, not a one-off request: the router decides it, never this cue
_STANDING = re.compile(
    r"\b(?:always|never|from now on|from here on|going forward|in future|in the future|"
    r"every time|each time|next time|by default|whenever|anymore|any more)\b",
    re.IGNORECASE,
)

# a subject that states something: "I ...", "we ...", "my/our <noun> is/has/...", or a
# third-person clause with a finite verb of being/having ("the flight is cancelled")
_STATEMENT = re.compile(
    r"\b(?:i|i'm|i've|i'd|i'll|we|we're|we've|we'd|im|ive)\b"
    r"|\b(?:my|our|his|her|their|the|this|that|it)\s+(?:\w+\s+){0,3}?"
    r"(?:is|are|was|were|has|have|had|'s|isn't|aren't|wasn't|weren't|hasn't|haven't)\b",
    re.IGNORECASE,
)


# a verb of being or having anywhere ("The office wifi network is OrchardGuest"), a contact
# ("email me at x@y.com", "@mira_writes"), or a named or possessed subject with a verb in the
# third person ("Dad lives in Enugu", "My manager prefers email")
_FINITE = re.compile(
    r"\b(?:am|is|are|was|were|has|have|had|isn't|aren't|wasn't|weren't|hasn't|haven't)\b",
    re.IGNORECASE,
)
_CONTACT = re.compile(r"\S+@\S+\.\w+|(?<!\S)@\w{3,}")
_THIRD_PERSON = re.compile(
    r"^(?:(?i:my|our|his|her|their)(?:\s+\w+){1,3}|[A-Z][a-z]+(?:\s+(?:and|&)\s+[A-Z][a-z]+)?)"
    r"\s+[a-z]{1,}[^s\W]s\b"
)


def states_something(sentence: str) -> bool:
    """Whether ``sentence`` may state something: a first-person clause, a verb of being or
    having, a contact, a named subject with a verb in the third person, or a report of the
    user's life (a directive opening with an order is judged by its clauses after it)."""
    text = strip_tags(sentence)
    if _STATEMENT.search(text) or _FINITE.search(text) or _CONTACT.search(text):
        return True
    if _THIRD_PERSON.match(text) and not _IMPERATIVE.match(text):
        return True
    return reports_the_users_life(text)


def is_request_to_agent(sentence: str) -> bool:
    """Whether ``sentence`` only asks the agent for work (a directive that states nothing):
    an imperative opening or a fragment with a request marker, with no statement in it."""
    text = strip_tags(sentence)
    if not text or states_something(text) or _STANDING.search(text):
        return False
    if _IMPERATIVE.match(text):
        return True
    return len(text.split()) <= FRAGMENT_WORDS and bool(_REQUEST_MARKER.search(text))
