"""One reading of a text shared by every detector: its lower case, whether it holds a digit,
its cue words and its keyword heads.

Several detectors start from a keyword (a password word, a login phrase, a document name, a
health term), each found where one of its lower-case head literals starts a word. Searching
the text once per detector costs a full regex pass each; :class:`TextScan` finds the heads of
every registered set in one pass and hands each detector its positions.

Guarantee: :meth:`TextScan.heads` lists every position where a literal of the set starts and
the character before is not an ASCII letter (overlapping heads included), in order; or it is
``None`` where lower-casing could mislead a head search (the text changes length when
lower-cased, or holds a character that a case-insensitive pattern reads as another ASCII
letter), or the text is longer than ``SHARED_MAX``: the caller then reads the text the way
it would alone. :attr:`TextScan.digits` lets a detector whose every finding holds ``least_digits``
decimal digits be skipped on a text holding fewer; :meth:`TextScan.cues` lists the cue words of
:mod:`.cues` once for the layers that read them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from adk_memory_kit.sensitive.base import LiteralHeads, matches_at_heads, prefix_tree
from adk_memory_kit.sensitive.cues import CUE_PATTERN, Cue, cue_at

#: Characters that lower-case to one ASCII letter or that a case-insensitive pattern matches
#: with one, though they are none: dotless i, long s, the Kelvin sign.
_CASE_ODD = ("\u0131", "\u017f", "\u212a")

_ODD = ""  # the key that marks a text read without the shared pass
#: Longer texts are read by each detector alone: the shared pass lists every head (a Python
#: step each), which a flood of keywords makes slower than the detectors' own scans.
SHARED_MAX = 32_768
_SETS: dict[str, LiteralHeads] = {}
_combined: tuple[re.Pattern[str], dict[str, tuple[str, ...]]] | None = None
_DIGIT = re.compile(r"\d")


def register_heads(name: str, heads: LiteralHeads) -> str:
    """Add a set of head literals to the shared pass (at import time); returns ``name``."""
    global _combined
    if not name or (name in _SETS and _SETS[name] is not heads):
        raise ValueError("a head set of this name is already registered")
    _SETS[name] = heads
    _combined = None
    return name


def _build() -> tuple[re.Pattern[str], dict[str, tuple[str, ...]]]:
    """The pass's pattern (every literal, as a prefix tree, at a word start, zero-width so
    heads may overlap) and, per literal, the sets any literal that is a prefix of it
    belongs to (the tree matches the longest literal at a position; all others there are
    its prefixes)."""
    owners: dict[str, set[str]] = {}
    for name, heads in _SETS.items():
        for word in heads.words:
            owners.setdefault(word, set()).add(name)
    sets_of = {
        word: tuple(sorted({n for w, ns in owners.items() if word.startswith(w) for n in ns}))
        for word in owners
    }
    pattern = re.compile(r"(?<![a-z])(?=(" + prefix_tree(list(owners)) + "))")
    return pattern, sets_of


class TextScan:
    """A text with what several detectors read from it, each computed once, on first use."""

    __slots__ = ("text", "_lower", "_heads", "_digits", "_cues")

    def __init__(self, text: str) -> None:
        self.text = text
        self._lower: str | None = None
        self._heads: dict[str, list[int]] | None = None
        self._digits: int | None = None
        self._cues: list[tuple[int, int, Cue]] | None = None

    @property
    def lower(self) -> str:
        """``text.lower()``."""
        if self._lower is None:
            self._lower = self.text.lower()
        return self._lower

    @property
    def digits(self) -> int:
        """How many decimal digits (what ``\\d`` matches) the text holds."""
        if self._digits is None:
            text = self.text
            self._digits = (
                sum(map(text.count, "0123456789")) if text.isascii() else len(_DIGIT.findall(text))
            )
        return self._digits

    @property
    def cue_text(self) -> str:
        """The text cues are read in: its lower case, or the text itself where lower-casing
        changes its length."""
        return self.lower if len(self.lower) == len(self.text) else self.text

    def cues(self) -> list[tuple[int, int, Cue]]:
        """``(start, end, cue)`` of every whole-word cue in :attr:`cue_text`, in order."""
        if self._cues is None:
            lower = self.cue_text
            self._cues = [
                (m.start(), m.end(), cue)
                for m in CUE_PATTERN.finditer(lower)
                if (cue := cue_at(lower, m.start(), m.end())) is not None
            ]
        return self._cues

    def heads(self, name: str) -> list[int] | None:
        """The start of every head of set ``name`` at a word start (see the module
        docstring), or ``None`` where the caller must read the text itself."""
        if self._heads is None:
            self._heads = self._scan()
        if _ODD in self._heads:
            return None
        return self._heads.get(name, [])

    def _scan(self) -> dict[str, list[int]]:
        global _combined
        if len(self.text) > SHARED_MAX:
            return {_ODD: []}
        lower = self.lower
        if len(lower) != len(self.text) or any(c in self.text for c in _CASE_ODD):
            return {_ODD: []}
        if _combined is None:
            _combined = _build()
        pattern, sets_of = _combined
        found: dict[str, list[int]] = {}
        for m in pattern.finditer(lower):
            start = m.start()
            for name in sets_of[m.group(1)]:
                positions = found.get(name)
                if positions is None:
                    found[name] = [start]
                else:
                    positions.append(start)
        return found


def matches_at(pattern: re.Pattern[str], heads: list[int], text: str) -> list[re.Match[str]]:
    """``pattern``'s matches tried at ``heads`` only: non-overlapping, left to right, the same
    as ``pattern.finditer(text)`` when every match starts at one of them."""
    found: list[re.Match[str]] = []
    pos = 0
    for head in heads:
        if head < pos:
            continue
        m = pattern.match(text, head)
        if m is not None:
            found.append(m)
            pos = max(m.end(), head + 1)
    return found


def keyword_matches(
    scan: TextScan,
    head_set: str,
    pattern: re.Pattern[str],
    heads: LiteralHeads,
    needles: tuple[str, ...],
) -> Iterable[re.Match[str]]:
    """``pattern``'s matches in ``scan``, tried at the heads of ``head_set`` the shared pass
    found. A text the pass cannot read is read alone: without one of ``needles`` in its lower
    case there is no match; else ``pattern`` is tried at ``heads`` found in it."""
    shared = scan.heads(head_set)
    if shared is not None:
        return matches_at(pattern, shared, scan.text)
    if not any(n in scan.lower for n in needles):
        return ()
    return matches_at_heads(pattern, heads, scan.text)
