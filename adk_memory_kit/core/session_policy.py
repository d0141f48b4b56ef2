"""The one thing long-term storage asks of language: which of a session's text to keep.

The memory service stores what a :class:`SessionSelector` hands it and knows nothing of how
the choice is made. :class:`TranscriptSelector` (keep every text event) needs no language; the
routed selector lives with the router (``adk_memory_kit.routing.write_policy``) and is wired in
by :func:`adk_memory_kit.assembly.default_selector`. What a selector may add to an event for
the indexer is defined in :mod:`adk_memory_kit.core.index_keys`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from enum import Enum
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from adk_memory_kit.core.validation import short
from adk_memory_kit.errors import InvalidInputError

if TYPE_CHECKING:
    from google.adk.events.event import Event
    from google.adk.sessions.session import Session


class WritePolicy(str, Enum):
    """What ``add_session_to_memory`` stores: the routed sentences (default) or every text."""

    ROUTED = "routed"
    FULL_TRANSCRIPT = "full_transcript"


#: Environment variable naming the policy when none is passed (``adk web``, the CLIs).
POLICY_ENV = "ADK_MEMORY_KIT_WRITE_POLICY"


def resolve_policy(value: WritePolicy | str | None) -> WritePolicy:
    """A :class:`WritePolicy` from an enum member or its name/value.

    ``None`` means ``$ADK_MEMORY_KIT_WRITE_POLICY`` when set (so ``adk web`` with
    ``pgvector://`` and the ``ingest-idle`` command can switch modes), else ``ROUTED``.
    """
    if value is None:
        value = os.environ.get(POLICY_ENV) or WritePolicy.ROUTED
    if isinstance(value, WritePolicy):
        return value
    if isinstance(value, str):
        norm = value.strip().lower().replace("-", "_")
        for member in WritePolicy:
            if norm in (member.value, member.name.lower()):
                return member
    raise InvalidInputError(
        f"write_policy must be one of {', '.join(m.value for m in WritePolicy)} "
        f"(argument or ${POLICY_ENV}), got {short(value)}"
    )


@runtime_checkable
class SessionSelector(Protocol):
    """Chooses what of a session reaches long-term memory.

    ``select`` returns copies of ``events`` holding only the text to store (an event left with
    nothing is left out); with ``index_context`` a copy may also carry index-only keys
    (:mod:`adk_memory_kit.core.index_keys`). It must not write anything.
    """

    async def select(
        self, session: Session, events: Sequence[Event], *, index_context: bool = False
    ) -> list[Event]:
        """The events (copies) whose text is stored."""
        ...


class TranscriptSelector:
    """``WritePolicy.FULL_TRANSCRIPT``: every text event as it is (the indexer still redacts)."""

    async def select(
        self, session: Session, events: Sequence[Event], *, index_context: bool = False
    ) -> list[Event]:
        """``events``, unchanged."""
        return list(events)
