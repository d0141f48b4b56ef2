"""Where a candidate memory belongs: the six homes and the routing rule.

The rule asks its questions in a fixed order because earlier answers override later ones:

0. a request to forget -> ``FORGET`` (acted on; the request itself is never stored)
1. sensitive -> ``DROP`` (never persisted; only the fact that something was dropped is logged)
2. changes how the agent behaves -> ``PROCEDURAL_REVIEW`` (a human edits instructions or code)
3. needed in future sessions -> ``USER_STATE`` when it is an exact single-valued fact about the
   user (one current value, overwritten on change), else ``LONG_TERM`` (found by search)
4. needed later in this session only -> ``SESSION_STATE``
5. otherwise -> ``TURN_SCRATCH`` (``temp:`` state, gone when the turn ends)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum

from typing_extensions import override

from adk_memory_kit.core.validation import normalize_key
from adk_memory_kit.errors import InvalidInputError

__all__ = ["Candidate", "MemoryHome", "normalize_key", "route"]


class MemoryHome(str, Enum):
    """The store a fact is written to (see the table in the design notes)."""

    DROP = "drop"
    TURN_SCRATCH = "turn_scratch"
    SESSION_STATE = "session_state"
    USER_STATE = "user_state"
    LONG_TERM = "long_term"
    PROCEDURAL_REVIEW = "procedural_review"
    FORGET = "forget"
    """A request to delete memories: acted on, never stored itself."""


@dataclass(frozen=True)
class Candidate:
    """A fact that might be remembered, with the answers the routing rule needs.

    ``key``/``value`` name an exact fact (``seat`` = ``aisle``); ``text`` is the fact in words.
    ``observed_at`` is when it was said (the date stored with it); ``ttl_seconds`` and
    ``importance`` are passed to long-term memory as hygiene metadata, with ``valid_from``
    (when it became true, e.g. a resolved "last Tuesday") and ``memory_type``.
    ``replaces_earlier``: the fact replaces an earlier one on the same subject (an update);
    ``forget_request``: the sentence asks to delete memories (routed to ``FORGET``);
    ``retires_value``: the sentence says the preference ``key`` no longer has this value ("I'm
    not vegetarian any more"): the applier clears that ``user:`` value when it is the one
    stored. ``in_own_words``: ``value`` is the user's whole sentence, not a value a finder
    read; the applier writes it only where the preference holds no value yet, and keeps the
    sentence in long-term memory otherwise (a value said before is never overwritten by it).
    """

    text: str
    key: str | None = None
    value: str | None = None
    exact_value: bool = False
    about_user: bool = False
    needed_later_this_session: bool = False
    needed_in_future_sessions: bool = False
    changes_agent_behaviour: bool = False
    sensitive: bool = False
    observed_at: datetime | None = None
    ttl_seconds: float | None = None
    importance: float | None = None
    valid_from: datetime | None = None
    memory_type: str | None = None
    replaces_earlier: bool = False
    forget_request: bool = False
    retires_value: str | None = None
    in_own_words: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise InvalidInputError("a Candidate needs non-empty text")
        object.__setattr__(self, "key", normalize_key(self.key))
        if self.value is not None and not isinstance(self.value, str):
            object.__setattr__(self, "value", str(self.value))

    @override
    def __repr__(self) -> str:  # never echo the text: it may be sensitive
        return (
            f"Candidate(key={self.key!r}, home={route(self).value}, text=<{len(self.text)} chars>)"
        )

    def with_sensitive(self, sensitive: bool = True) -> Candidate:
        """A copy with the ``sensitive`` flag set."""
        return replace(self, sensitive=sensitive)


def route(candidate: Candidate) -> MemoryHome:
    """Decide where ``candidate`` belongs (pure: looks only at its flags)."""
    if candidate.forget_request:
        return MemoryHome.FORGET
    if candidate.sensitive:
        return MemoryHome.DROP
    if candidate.changes_agent_behaviour:
        return MemoryHome.PROCEDURAL_REVIEW
    if candidate.needed_in_future_sessions:
        if candidate.about_user and candidate.exact_value:
            return MemoryHome.USER_STATE
        return MemoryHome.LONG_TERM
    if candidate.needed_later_this_session:
        return MemoryHome.SESSION_STATE
    return MemoryHome.TURN_SCRATCH
