"""The shapes every detector shares: kinds, :class:`Finding`, the :class:`Detector` protocol."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

PAYMENT_CARD = "payment_card"
IBAN = "iban"
CREDENTIAL = "credential"
GOVERNMENT_ID = "government_id"
HEALTH = "health"


@dataclass(frozen=True)
class Finding:
    """One sensitive span: its kind (e.g. ``payment_card``), the detector and the position.

    Never the matched text, so a finding is safe to log.
    """

    kind: str
    detector: str
    start: int
    end: int


@runtime_checkable
class Detector(Protocol):
    """Anything with a ``name`` and a ``find(text)`` returning findings."""

    name: str

    def find(self, text: str) -> Iterable[Finding]: ...


@dataclass(frozen=True)
class RegexDetector:
    """A regular expression, optionally confirmed by ``validate(matched_text)``.

    For a caller's own identifiers, e.g.
    ``RegexDetector("employee_id", "government_id", r"EMP-\\d{6}")``; keep the pattern free
    of nested unbounded repeats so it stays linear.
    """

    name: str
    kind: str
    pattern: str
    flags: int = 0
    validate: Callable[[str], bool] | None = None

    def find(self, text: str) -> list[Finding]:
        found = []
        for match in re.finditer(self.pattern, text, self.flags):
            if self.validate is None or self.validate(match.group(0)):
                found.append(Finding(self.kind, self.name, match.start(), match.end()))
        return found


@dataclass(frozen=True)
class TermDetector:
    """Whole-word terms (each a regex fragment), case-insensitive unless ``case_sensitive``."""

    name: str
    kind: str
    terms: tuple[str, ...]
    case_sensitive: tuple[str, ...] = ()

    def find(self, text: str) -> list[Finding]:
        found = []
        for terms, flags in ((self.terms, re.IGNORECASE), (self.case_sensitive, 0)):
            if not terms:
                continue
            pattern = r"(?<![\w-])(?:" + "|".join(terms) + r")(?![\w-])"
            for match in re.finditer(pattern, text, flags):
                found.append(Finding(self.kind, self.name, match.start(), match.end()))
        return found


def window_before(text: str, start: int, size: int) -> str:
    """The ``size`` characters before ``start``, lower-cased (context cues)."""
    return text[max(0, start - size) : start].lower()


def matches_at_heads(
    pattern: re.Pattern[str], heads: re.Pattern[str], text: str
) -> Iterator[re.Match[str]]:
    """``pattern``'s matches, tried only where ``heads`` (lower-case literals, one of which
    starts every match) occurs in the lower-cased text: a C-speed scan instead of the full
    pattern at every position. Non-overlapping, left to right, like ``finditer``."""
    lower = text.lower()
    if len(lower) != len(text):  # a character that lower-cases to two: positions shift
        yield from pattern.finditer(text)
        return
    pos = 0
    for head in heads.finditer(lower):
        if head.start() < pos:
            continue
        m = pattern.match(text, head.start())
        if m is not None:
            yield m
            pos = max(m.end(), head.start() + 1)
