"""Recovery material that has a shape of its own: BIP-39 seed phrases, BitLocker recovery
keys, authenticator setup keys (base32 in groups) and lists of grouped recovery codes.

Guarantees: a run of ``SEED_WORDS`` or more consecutive words from one BIP-39 word list
(the ``mnemonic`` package's lists: English, Spanish, French, Italian, Portuguese, Czech,
Japanese), numbered or not, is a finding; so is a BitLocker key (eight groups of six
digits), three or more codes of one grouped shape in a row (``3f9a2-b81c4``), and base32
groups of 16+ characters mixing letters and digits. Linear: one pass per shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from adk_memory_kit.sensitive.base import RECOVERY, Finding

#: Fewest consecutive BIP-39 words that count (a phrase has 12 to 24) after a seed cue or
#: numbered; without either, ``SEED_WORDS_ALONE`` (a list of 12 groceries can be all on the
#: English list).
SEED_WORDS = 12
SEED_WORDS_ALONE = 18
_SEED_CUE = re.compile(
    r"seed|phrase|mnemonic|wallet|recovery|backup|words|metamask|ledger|trezor|phantom|"
    r"exodus|coinbase|crypto|bitcoin|btc|eth|semilla|frase|phrase|palavras|parole|wörter|"
    r"wiederherstellung|récupération|recuperación|recuperação|recupero|シード|単語|復元",
    re.IGNORECASE,
)
_LISTS = ("english", "spanish", "french", "italian", "portuguese", "czech", "japanese")
#: A word standing alone: "detail0" (glued to a digit) is no phrase word.
_WORD = re.compile(r"(?<![^\W_])[^\W\d_]+(?![^\W_])")
#: What may stand between two words of a phrase: spaces, commas, a number ("1. abandon").
_GAP = re.compile(r"[\s,;|/-]*(?:\d{1,2}[.):]?[\s,;|/-]*)?")
_BITLOCKER = re.compile(r"(?<!\d)\d{6}(?:-\d{6}){7}(?!\d)")
_GROUPED = re.compile(
    r"(?<![\w-])(?=[a-z0-9-]*\d)(?=[a-z0-9-]*[a-z])[a-z0-9]{4,6}-[a-z0-9]{4,6}(?![\w-])"
)
_BASE32 = re.compile(r"(?<![A-Za-z0-9])[A-Za-z2-7]{4}(?:[ -][A-Za-z2-7]{4}){3,7}(?![A-Za-z0-9])")


@lru_cache(maxsize=1)
def _wordlists() -> tuple[frozenset[str], ...]:
    """The BIP-39 word lists (read once from the ``mnemonic`` package)."""
    pkg = resources.files("mnemonic") / "wordlist"
    return tuple(
        frozenset(w.strip() for w in (pkg / f"{name}.txt").read_text("utf-8").split())
        for name in _LISTS
    )


@lru_cache(maxsize=1)
def _union() -> frozenset[str]:
    return frozenset().union(*_wordlists())


_RUN = re.compile(f"1{{{SEED_WORDS},}}")


def _seed_spans(text: str) -> list[tuple[int, int]]:
    """Runs of words from one list (read closely only where ``SEED_WORDS`` words in a row are
    on some list, whatever stands between them: one C-speed pass finds those)."""
    union = _union()
    flags = "".join("1" if w in union else "0" for w in _WORD.findall(text.lower()))
    if _RUN.search(flags) is None:
        return []
    return _seed_runs(text)


def _seed_runs(text: str) -> list[tuple[int, int]]:
    lists = _wordlists()
    found: list[tuple[int, int]] = []
    runs: list[list[int]] = [[0, -1, -1, -1] for _ in lists]  # count, start, end, last end
    for m in _WORD.finditer(text):
        word = m.group(0).lower()
        for i, words in enumerate(lists):
            run = runs[i]
            if word in words:
                joined = run[0] and _GAP.fullmatch(text, run[3], m.start()) is not None
                if not joined:
                    if run[0] >= SEED_WORDS:
                        found.append((run[1], run[2]))
                    run[0], run[1] = 0, m.start()
                run[0] += 1
                run[2] = run[3] = m.end()
            else:
                if run[0] >= SEED_WORDS:
                    found.append((run[1], run[2]))
                run[0] = 0
    for run in runs:
        if run[0] >= SEED_WORDS:
            found.append((run[1], run[2]))
    return [(a, b) for a, b in found if _seed_like(text, a, b)]


def _seed_like(text: str, start: int, end: int) -> bool:
    """A run counts when its words are mostly distinct (a phrase is drawn at random) and it is
    long, numbered, or after a seed cue (200 characters before)."""
    found = _WORD.findall(text.lower(), start, end)
    words = len(found)
    if len(set(found)) < 0.75 * words:
        return False
    if words >= SEED_WORDS_ALONE:
        return True
    numbered = sum(c.isdigit() for c in text[start:end]) >= words // 2
    return numbered or _SEED_CUE.search(text, max(0, start - 200), start) is not None


def _grouped_lists(text: str) -> list[tuple[int, int]]:
    """Three or more grouped codes of one shape with only separators between them."""
    found: list[tuple[int, int]] = []
    group: list[re.Match[str]] = []
    for m in _GROUPED.finditer(text.lower()):
        if group and (
            len(m.group(0)) != len(group[-1].group(0))
            or text[group[-1].end() : m.start()].strip(" \t\n,;|") != ""
        ):
            if len(group) >= 3:
                found.extend(g.span() for g in group)
            group = []
        group.append(m)
    if len(group) >= 3:
        found.extend(g.span() for g in group)
    return found


@dataclass(frozen=True)
class RecoveryDetector:
    """Seed phrases, BitLocker keys, grouped recovery codes, base32 setup keys."""

    name: str = "recovery"

    def find(self, text: str) -> list[Finding]:
        spans = _seed_spans(text) + _grouped_lists(text)
        spans += [m.span() for m in _BITLOCKER.finditer(text)]
        for m in _BASE32.finditer(text):
            compact = m.group(0).replace(" ", "").replace("-", "")
            if any(c.isdigit() for c in compact) and any(c.isalpha() for c in compact):
                spans.append(m.span())
        return [Finding(RECOVERY, self.name, a, b) for a, b in spans]
