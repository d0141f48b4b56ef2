"""The conflict rule for recalled memory.

- Current ``user:`` state wins over recalled episodes: a profile value is the current truth,
  a memory that disagrees with it is history.
- Among memories, the newer one wins; a memory the store marked superseded always loses.
- When they disagree the model is shown both dates, so it can weigh them itself.
- A later memory the write path linked to an older one as its likely change (``may_update``,
  not sure enough to supersede it) is shown as such on the older one.

A memory is about a preference when the store keyed it by that subject, when it names the
preference or one of its subject words ("seat", "diet", "home airport"), or when it states one
of the preference's known values ("I am vegetarian" is about ``diet`` without saying "diet").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone

from google.adk.memory.memory_entry import MemoryEntry

from adk_memory_kit.core.markers import MAY_UPDATE
from adk_memory_kit.core.times import parse_time
from adk_memory_kit.profile.presets import DEFAULT_KNOWN_VALUES, DEFAULT_SUBJECT_TERMS
from adk_memory_kit.profile.state import ProfileValue, profile_from_state

__all__ = [
    "DEFAULT_KNOWN_VALUES",
    "DEFAULT_SUBJECT_TERMS",
    "Conflict",
    "ProfileValue",
    "RecalledMemory",
    "find_conflicts",
    "is_about",
    "parse_time",
    "profile_from_state",
]


@dataclass(frozen=True)
class RecalledMemory:
    """A memory entry reduced to what recall needs: text, date, subject, supersession."""

    text: str
    when: datetime | None = None
    author: str | None = None
    memory_id: str | None = None
    subject: str | None = None
    superseded_at: datetime | None = None
    #: the memory (its id) this one was said to change, when the write path linked them
    #: rather than supersede (``MAY_UPDATE``)
    may_update: str | None = None
    #: whose memory it is (issue 47): ``user`` (None: the user's own), ``agent:<name>``,
    #: ``app`` or ``group:<name>``
    scope: str | None = None

    @classmethod
    def from_entry(cls, entry: MemoryEntry) -> RecalledMemory:
        parts = (entry.content.parts or []) if entry.content else []
        text = "\n".join(p.text for p in parts if p.text and not p.thought)
        meta = entry.custom_metadata or {}
        subject = meta.get("subject")
        return cls(
            text=text,
            when=parse_time(entry.timestamp),
            author=entry.author,
            memory_id=entry.id,
            subject=str(subject).lower() if subject else None,
            superseded_at=parse_time(meta.get("superseded_at") or meta.get("valid_to")),
            may_update=str(meta[MAY_UPDATE]) if meta.get(MAY_UPDATE) else None,
            scope=str(meta["scope"]) if meta.get("scope") else None,
        )


@dataclass(frozen=True)
class Conflict:
    """A recalled memory (``loser``, an index) that a newer or authoritative value overrides."""

    subject: str
    loser: int
    winner: str  # "profile", "memory", or "update" (a later memory linked to this one)
    winner_text: str
    winner_date: datetime | None
    loser_date: datetime | None
    winner_index: int | None = None


def _normal(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower().replace("_", " ")).split())


def _says(phrase: str, normal_text: str) -> bool:
    """Whether ``normal_text`` (see :func:`_normal`) contains ``phrase`` as whole words."""
    words = _normal(phrase)
    return bool(words) and re.search(rf"\b{re.escape(words)}s?\b", normal_text) is not None


def is_about(
    name: str,
    memory: RecalledMemory,
    *,
    known_values: Mapping[str, Iterable[str]] | None = None,
    subject_terms: Mapping[str, Iterable[str]] | None = None,
) -> bool:
    """Whether ``memory`` is about the preference ``name`` (subject, name, words or values)."""
    if memory.subject == name:
        return True
    text = _normal(memory.text)
    known_values = DEFAULT_KNOWN_VALUES if known_values is None else known_values
    subject_terms = DEFAULT_SUBJECT_TERMS if subject_terms is None else subject_terms
    phrases = (name, *subject_terms.get(name, ()), *known_values.get(name, ()))
    return any(_says(p, text) for p in phrases)


def _newest_key(memory: RecalledMemory) -> tuple[int, datetime]:
    floor = datetime.min.replace(tzinfo=timezone.utc)
    return (memory.superseded_at is None, memory.when or floor)


def find_conflicts(
    memories: Sequence[RecalledMemory],
    profile: Mapping[str, ProfileValue] | None = None,
    *,
    known_values: Mapping[str, Iterable[str]] | None = None,
    subject_terms: Mapping[str, Iterable[str]] | None = None,
) -> list[Conflict]:
    """Apply the rule: profile beats memories about the same name; newer beats older.

    A memory is about a profile name when :func:`is_about` says so: its subject is that name,
    or its text names it (``seat``, ``home airport``), uses one of its ``subject_terms`` or
    states one of its ``known_values`` (``vegetarian`` for ``diet``; defaults:
    :data:`DEFAULT_KNOWN_VALUES`, :data:`DEFAULT_SUBJECT_TERMS`). It conflicts when it does not
    contain the current value. Memories sharing a subject but saying different things
    conflict; the current, newest wins.
    """
    conflicts: list[Conflict] = []
    decided: set[int] = set()
    for name, current in (profile or {}).items():
        for i, memory in enumerate(memories):
            about = is_about(name, memory, known_values=known_values, subject_terms=subject_terms)
            if about and not _says(current.value, _normal(memory.text)):
                conflicts.append(
                    Conflict(
                        subject=name,
                        loser=i,
                        winner="profile",
                        winner_text=current.value,
                        winner_date=current.written_at,
                        loser_date=memory.when,
                    )
                )
                decided.add(i)
    by_subject: dict[str, list[int]] = {}
    for i, memory in enumerate(memories):
        if memory.subject and i not in decided:
            by_subject.setdefault(memory.subject, []).append(i)
    for subject, indexes in by_subject.items():
        if len({_normal(memories[i].text) for i in indexes}) < 2:
            continue
        best = max(indexes, key=lambda i: _newest_key(memories[i]))
        for i in indexes:
            if i != best and _normal(memories[i].text) != _normal(memories[best].text):
                conflicts.append(
                    Conflict(
                        subject=subject,
                        loser=i,
                        winner="memory",
                        winner_text=memories[best].text,
                        winner_date=memories[best].when,
                        loser_date=memories[i].when,
                        winner_index=best,
                    )
                )
    # a later memory the write path linked to this one, not sure enough to supersede it: the
    # model is told, with both dates, and weighs them (read-time resolution)
    at = {m.memory_id: i for i, m in enumerate(memories) if m.memory_id}
    for i, memory in enumerate(memories):
        j = at.get(memory.may_update) if memory.may_update else None
        if j is None or j == i or j in decided or any(c.loser == j for c in conflicts):
            continue
        conflicts.append(
            Conflict(
                subject="",
                loser=j,
                winner="update",
                winner_text=memory.text,
                winner_date=memory.when,
                loser_date=memories[j].when,
                winner_index=i,
            )
        )
    return sorted(conflicts, key=lambda c: c.loser)
