"""Questions about "the user", asked of memories the user said in the first person.

The memory store holds what the user said ("I'm a data analyst at Unilever"), while agents
and their tools ask about the user in the third person ("Where does the user work?"). MiniLM
scores the two voices far apart (0.25 for that pair against 0.41 for "Where do I work?"), so
such a question can fall under the relevance floor though the answer is stored. The query's
embedded text is put in the first person first; its full-text terms are left as they are.
"""

from __future__ import annotations

import re

_APOSTROPHE = "['\u2019]"
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), replacement)
    for pattern, replacement in (
        (rf"\b(?:the )?user{_APOSTROPHE}s\b", "my"),
        (r"\b(?:does|do) the user\b", "do I"),
        (r"\bis the user\b", "am I"),
        (r"\bhas the user\b", "have I"),
        (r"\bthe user\b", "I"),
    )
)


def first_person(query: str) -> str:
    """``query`` with "the user" / "the user's" in the first person ("Where does the user
    work?" -> "Where do I work?"); any other query unchanged."""
    if "user" not in query.lower():
        return query
    for pattern, replacement in _REWRITES:
        query = pattern.sub(replacement, query)
    return query
