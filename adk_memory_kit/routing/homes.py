"""Where a candidate memory belongs: the six homes and the routing rule.

The rule asks its questions in a fixed order because earlier answers override later ones:

1. sensitive -> ``DROP`` (never persisted; only the fact that something was dropped is logged)
2. changes how the agent behaves -> ``PROCEDURAL_REVIEW`` (a human edits instructions or code)
3. needed in future sessions -> ``USER_STATE`` when it is an exact single-valued fact about the
   user (one current value, overwritten on change), else ``LONG_TERM`` (found by search)
4. needed later in this session only -> ``SESSION_STATE``
5. otherwise -> ``TURN_SCRATCH`` (``temp:`` state, gone when the turn ends)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime
from enum import Enum

from adk_memory_kit.errors import InvalidInputError

_KEY_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")


class MemoryHome(str, Enum):
    """The store a fact is written to (see the table in the design notes)."""

    DROP = "drop"
    TURN_SCRATCH = "turn_scratch"
    SESSION_STATE = "session_state"
    USER_STATE = "user_state"
    LONG_TERM = "long_term"
    PROCEDURAL_REVIEW = "procedural_review"


def normalize_key(key: str | None) -> str | None:
    """Lower-case ``key`` with spaces/dashes as ``_``; ``None`` for empty, error if malformed."""
    if key is None:
        return None
    if not isinstance(key, str):
        raise InvalidInputError(f"a memory key must be a string, got {type(key).__name__}")
    norm = re.sub(r"[\s\-]+", "_", key.strip().lower())
    if not norm:
        return None
    if not _KEY_RE.match(norm):
        raise InvalidInputError(
            f"memory key {key!r} is not usable; use 1-64 characters a-z, 0-9 and _, "
            "starting with a letter (e.g. 'seat' or 'trip_destination')"
        )
    return norm


@dataclass(frozen=True)
class Candidate:
    """A fact that might be remembered, with the answers the routing rule needs.

    ``key``/``value`` name an exact fact (``seat`` = ``aisle``); ``text`` is the fact in words.
    ``observed_at`` is when it was said (the date stored with it); ``ttl_seconds`` and
    ``importance`` are passed to long-term memory as hygiene metadata.
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

    def __post_init__(self) -> None:
        if not isinstance(self.text, str) or not self.text.strip():
            raise InvalidInputError("a Candidate needs non-empty text")
        object.__setattr__(self, "key", normalize_key(self.key))
        if self.value is not None and not isinstance(self.value, str):
            object.__setattr__(self, "value", str(self.value))

    def __repr__(self) -> str:  # never echo the text: it may be sensitive
        return (
            f"Candidate(key={self.key!r}, home={route(self).value}, text=<{len(self.text)} chars>)"
        )

    def with_sensitive(self, sensitive: bool = True) -> Candidate:
        """A copy with the ``sensitive`` flag set."""
        return replace(self, sensitive=sensitive)


def route(candidate: Candidate) -> MemoryHome:
    """Decide where ``candidate`` belongs (pure: looks only at its flags)."""
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
