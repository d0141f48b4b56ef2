"""The labelled example bank the offline router learns from (shipped as package data).

Each line of ``data/bank.jsonl`` is ``{"text", "label", "split"}``. Labels:

=========================  ==================================================================
label                      decision
=========================  ==================================================================
``user_state:<name>``      an exact preference -> ``user:pref_<name>``
``long_term``              a lasting fact or episode about the user -> long-term memory
``update``                 a lasting fact that replaces an earlier one on the same subject
``session_state``          needed for the rest of this conversation only
``review``                 changes how the agent behaves -> the human review queue
``drop``                   sensitive (credentials, payment, health, ids) -> never stored
``nothing``                questions, chit-chat, acknowledgements -> nothing to keep
``forget``                 a precise request to delete memories about something
``forget_vague``           a deletion request too vague to act on -> the review queue
=========================  ==================================================================

``split`` is ``tune`` or ``heldout``, fixed by a hash of the text (a quarter held out), so the
split never changes when examples are added elsewhere in the file.

``data/bank_other_writers.jsonl`` (written by ``benchmarks/bank_other_writers_build.py``) holds
the messages of the routing corpora other writers wrote for first reads, once read: sentences
in 25+ languages and dialects the kit's English bank lacks, split the same way. The router
for sentences in other languages (:func:`load_world_bank`) learns from both, a row there
counting :data:`OTHER_WRITERS_WEIGHT` of one of the kit's.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.routing.rule import MemoryHome

USER_STATE_PREFIX = "user_state:"

#: The home each non-preference label routes to (``None``: nothing is kept).
LABEL_HOMES: dict[str, MemoryHome | None] = {
    "long_term": MemoryHome.LONG_TERM,
    "update": MemoryHome.LONG_TERM,
    "session_state": MemoryHome.SESSION_STATE,
    "review": MemoryHome.PROCEDURAL_REVIEW,
    "drop": MemoryHome.DROP,
    "nothing": None,
    "forget": MemoryHome.FORGET,
    "forget_vague": MemoryHome.PROCEDURAL_REVIEW,
}


#: Where a row comes from: the kit's own bank, or the corpora other writers wrote.
KIT, OTHER_WRITERS = "kit", "other_writers"
#: How much an other writer's row counts in training against one of the kit's (their labels
#: follow each writer's reading of the homes; the kit's rows set the conventions).
OTHER_WRITERS_WEIGHT = 0.5


@dataclass(frozen=True)
class Example:
    """One labelled utterance."""

    text: str
    label: str
    split: str = "tune"
    source: str = KIT

    @property
    def weight(self) -> float:
        """How much the row counts in training."""
        return OTHER_WRITERS_WEIGHT if self.source == OTHER_WRITERS else 1.0

    @property
    def preference(self) -> str | None:
        """The preference name of a ``user_state:<name>`` label."""
        return self.label.removeprefix(USER_STATE_PREFIX) if is_preference(self.label) else None


def is_preference(label: str) -> bool:
    return label.startswith(USER_STATE_PREFIX)


def label_home(label: str) -> MemoryHome | None:
    """The home a label routes to (``None``: nothing to keep)."""
    if is_preference(label):
        return MemoryHome.USER_STATE
    if label not in LABEL_HOMES:
        raise InvalidInputError(f"unknown routing label {label!r}")
    return LABEL_HOMES[label]


def split_of(text: str) -> str:
    """``heldout`` for a quarter of texts (by hash), else ``tune``: stable per text."""
    return "heldout" if int(hashlib.sha1(text.encode()).hexdigest(), 16) % 4 == 0 else "tune"


def bank_text() -> str:
    return resources.files("adk_memory_kit.routing").joinpath("data/bank.jsonl").read_text("utf-8")


def _rows(text: str, source: str) -> list[Example]:
    out = []
    for line in text.splitlines():
        if line.strip():
            row = json.loads(line)
            label_home(row["label"])  # validates the label
            out.append(Example(row["text"], row["label"], row.get("split", "tune"), source))
    return out


@lru_cache(maxsize=1)
def load_bank() -> tuple[Example, ...]:
    """Every example of the shipped bank, in file order."""
    return tuple(_rows(bank_text(), KIT))


def other_writers_text() -> str:
    name = "data/bank_other_writers.jsonl"
    return resources.files("adk_memory_kit.routing").joinpath(name).read_text("utf-8")


@lru_cache(maxsize=1)
def load_world_bank() -> tuple[Example, ...]:
    """The bank and the other writers' rows: what the router for other languages learns."""
    return (*load_bank(), *_rows(other_writers_text(), OTHER_WRITERS))


def world_digest() -> str:
    """A digest of what the router for other languages learns from (rows and their weight)."""
    body = f"{bank_text()}\x1f{other_writers_text()}\x1f{OTHER_WRITERS_WEIGHT}"
    return hashlib.sha256(body.encode()).hexdigest()


def bank_digest() -> str:
    """A digest of the bank's text (the cached embeddings are valid only for it)."""
    return hashlib.sha256(bank_text().encode()).hexdigest()
