"""The shapes every detector shares: kinds, :class:`Finding`, the :class:`Detector` protocol."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

PAYMENT_CARD = "payment_card"
IBAN = "iban"
CREDENTIAL = "credential"
GOVERNMENT_ID = "government_id"
HEALTH = "health"
#: Bank details that are not an IBAN: routing/ABA, sort code, BSB, IFSC, account numbers.
BANK_ACCOUNT = "bank_account"
#: One-time and recovery material: 2FA codes, recovery codes, seed phrases, setup keys.
RECOVERY = "recovery"
#: A phone number or e-mail address the message asks to keep private (an ordinary one is a
#: lasting fact, not a secret).
PRIVATE_CONTACT = "private_contact"


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
    """Anything with a ``name`` and a ``find(text)`` returning findings.

    Optional: ``find_in(scan)``, the same findings from a :class:`~.scan.TextScan` shared by
    every detector, and ``least_digits``: a detector finds nothing in a text holding fewer
    decimal digits (``detect_sensitive`` then skips it there).
    """

    @property
    def name(self) -> str: ...

    def find(self, text: str) -> Iterable[Finding]: ...


def as_detectors(value: object) -> tuple[Detector, ...] | None:
    """``value`` as a tuple of detectors (``None`` stays ``None``); a ``ValueError`` when it
    is not a sequence of objects with ``find(text)`` (for configuration validators)."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError("must be a sequence of Detectors or None")
    detectors = tuple(value)
    if not all(callable(getattr(d, "find", None)) for d in detectors):
        raise ValueError("every item must be a Detector (an object with find(text))")
    return detectors


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


def ascii_digits(text: str) -> str:
    """``text`` with the decimal digits of every script (Bengali, Persian, Arabic-Indic,
    Devanagari, full-width ...) written as ASCII digits; same length, so spans carry over."""
    if text.isascii() or _OTHER_DIGIT.search(text) is None:
        return text
    return _OTHER_DIGIT.sub(lambda m: str(unicodedata.decimal(m.group(0))), text)


#: A decimal digit (``str.isdecimal``: category Nd, what ``\d`` matches) other than ASCII.
_OTHER_DIGIT = re.compile(r"(?![0-9])\d")


def window_before(text: str, start: int, size: int) -> str:
    """The ``size`` characters before ``start``, lower-cased (context cues)."""
    return text[max(0, start - size) : start].lower()


class LiteralHeads:
    """An alternation of lower-case literals (``"diag|canc|..."``; a ``[xy]`` class is
    expanded), searched through a prefix tree of them.

    ``re`` tries a flat alternation's branches one by one at every position; the tree
    tries one branch per character, several times faster on long text. Matches are the
    same as the flat pattern's: the tree finds the leftmost position where any literal
    starts, then the flat pattern is matched there (so the same literal wins)."""

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.flat = re.compile(pattern)
        words: list[str] = []
        for alt in pattern.split("|"):
            cls = re.search(r"\[([^\]]+)\]", alt)
            if cls is None:
                words.append(alt)
            else:
                words.extend(alt[: cls.start()] + c + alt[cls.end() :] for c in cls.group(1))
        self.words = tuple(words)
        self.tree = re.compile(prefix_tree(words))
        # no literal starts another: at most one matches at a position, the tree's is it
        self.prefix_free = not any(
            a != b and b.startswith(a) for a in set(words) for b in set(words)
        )

    def search(self, text: str, pos: int = 0) -> re.Match[str] | None:
        hit = self.tree.search(text, pos)
        if hit is None or self.prefix_free:
            return hit
        return self.flat.match(text, hit.start())

    def finditer(self, text: str, pos: int = 0) -> Iterator[re.Match[str]]:
        if self.prefix_free:
            yield from self.tree.finditer(text, pos)
            return
        while (m := self.search(text, pos)) is not None:
            yield m
            pos = m.end() if m.end() > m.start() else m.start() + 1


def prefix_tree(words: Iterable[str]) -> str:
    """A regex that matches exactly where one of ``words`` starts (a prefix tree)."""
    root: dict[str, dict] = {}
    for word in words:
        node = root
        for c in word:
            node = node.setdefault(c, {})
        node[""] = {}

    def emit(node: dict[str, dict]) -> str:
        alts = [re.escape(c) + emit(sub) for c, sub in sorted(node.items()) if c]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(root)


_CASE_ODD, _CASE_ODD_2 = "\u0131", "\u017f"  # dotless i, long s


def matches_at_heads(
    pattern: re.Pattern[str], heads: re.Pattern[str] | LiteralHeads, text: str
) -> Iterator[re.Match[str]]:
    """``pattern``'s matches, tried only where ``heads`` (lower-case literals, one of which
    starts every match) occurs in the lower-cased text: a C-speed scan instead of the full
    pattern at every position. Non-overlapping, left to right, like ``finditer``."""
    lower = text.lower()
    if len(lower) != len(text) or _CASE_ODD in text or _CASE_ODD_2 in text:
        # a character that lower-cases to two (positions shift), or one that a
        # case-insensitive pattern takes for "i" or "s" though its lower case is not
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
