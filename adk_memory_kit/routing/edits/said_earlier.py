"""What the user said earlier in the session that no router stored yet, weighed as memories.

An update's old fact or what a forget request names may be a sentence of an earlier turn that
ingestion would store only later: :func:`unstored_sentences` finds them (only while the
routing plugin records what is decided about them, ``RECORDING_EARLIER``), and
:func:`said_entry` makes one a memory-like entry to be scored beside the stored memories.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types as genai_types

from adk_memory_kit.routing.cue_words import scoped_to_now
from adk_memory_kit.routing.extractors import event_text, event_time
from adk_memory_kit.routing.outcomes import RECORDING_EARLIER
from adk_memory_kit.routing.records import RoutingDecisions
from adk_memory_kit.routing.rule import MemoryHome
from adk_memory_kit.routing.unstored import unstored_reason
from adk_memory_kit.text.sentences import split_sentences

if TYPE_CHECKING:
    from google.adk.agents.context import Context


@dataclass(frozen=True)
class SaidEarlier:
    """A user sentence of an earlier turn of the session that no router stored anywhere."""

    event_id: str
    index: int
    text: str
    when: datetime | None


#: The id prefix of a scored entry standing for such a sentence.
SAID_KEY = "said-earlier:"
#: A pending confirmation's item for such a sentence: ``said:<event id>:<index>``
SAID_ITEM = "said:"


def said_entry(key: str, said: SaidEarlier) -> MemoryEntry:
    """A memory-like entry for a sentence not stored yet (``key`` as its id), to be scored."""
    return MemoryEntry(
        id=key,
        content=genai_types.Content(role="user", parts=[genai_types.Part(text=said.text)]),
        author="user",
    )


def _only_a_session_note(homes: set[MemoryHome], sentence: str) -> bool:
    """Whether a recorded sentence is only this session's note and not scoped to now:
    ingestion may still store it (``write_policy``: an unsure session note is stored), so an
    update or a request to forget weighs it like a sentence no router stored."""
    return homes == {MemoryHome.SESSION_STATE} and not scoped_to_now(sentence)


def unstored_sentences(context: Context, limit: int) -> list[SaidEarlier]:
    """The user's last ``limit`` sentences of earlier turns of this session that no routing
    record gives a home but this session's note (not scoped to now), and that ingestion would
    store (not sensitive, filler or a question without a fact), oldest first; the sentence
    indexes are the write policy's.
    Empty unless the routing plugin records what the caller decides about them
    (``RECORDING_EARLIER``)."""
    if limit <= 0 or not RECORDING_EARLIER.get():
        return []
    session = context.session
    decisions = RoutingDecisions(session.events)
    found: list[SaidEarlier] = []  # newest first: a long session's older turns are not read
    for event in reversed(session.events):
        if (
            event.author != "user"
            or event.invocation_id == context.invocation_id
            or event.partial
            or not event.content
            or not event.id
        ):
            continue
        for index, sentence in reversed(list(enumerate(split_sentences(event_text(event))))):
            homes = decisions.homes(event.id, index)
            if (homes and not _only_a_session_note(homes, sentence)) or unstored_reason(sentence):
                continue
            found.append(SaidEarlier(event.id, index, sentence, event_time(event)))
            if len(found) >= limit:
                return found[::-1]
    return found[::-1]
