"""Recovery material that has a shape of its own: BIP-39 seed phrases, BitLocker recovery keys
and authenticator setup keys (base32 in groups); lists of codes are :mod:`.code_lists`.

Guarantees: a run of ``SEED_WORDS`` or more words, at most ``SEED_OUTSIDE`` of them off the
list and all others from one BIP-39 word list (every list the ``mnemonic`` package ships but
the Chinese ones; accents folded, so ``abaco`` matches ``ábaco``), mostly distinct, is a
finding when it is numbered, near a seed cue (before or after) or ``SEED_WORDS_ALONE`` long;
so is a BitLocker key (eight groups of six digits) and base32 groups of 16+ characters
mixing letters and digits. Linear: one pass per shape.
"""

from __future__ import annotations

import itertools
import math
import operator
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from adk_memory_kit.sensitive.base import RECOVERY, Finding
from adk_memory_kit.sensitive.code_lists import code_list_spans
from adk_memory_kit.sensitive.scan import TextScan
from adk_memory_kit.sensitive.vocab import words_of

#: Fewest words of a phrase (a phrase has 12 to 24); at most ``SEED_OUTSIDE`` of them may be
#: off the list (a mistyped or misremembered word); without a cue or numbering,
#: ``SEED_WORDS_ALONE`` (a list of 12 groceries can be all on the English list).
SEED_WORDS = 12
SEED_OUTSIDE = 2
SEED_WORDS_ALONE = 18
_SEED_CUE = re.compile(
    r"seed|phrase|mnemonic|wallet|recovery|backup|words|metamask|ledger|trezor|phantom|"
    r"exodus|coinbase|crypto|bitcoin|btc|eth|semilla|frase|phrase|palavras|parole|wörter|"
    r"wiederherstellung|récupération|recuperación|recuperação|recupero|シード|単語|復元|"
    r"krypto|cripto|portfel|billetera|carteira|portafoglio|portefeuille|geldbörse|binance|"
    r"trust|keystore|12 words|24 words",
    re.IGNORECASE,
)
_LISTS = (
    "english", "spanish", "french", "italian", "portuguese", "czech", "japanese", "korean",
    "russian", "turkish",
)  # fmt: skip
#: A word standing alone: "detail0" (glued to a digit) is no phrase word.
_WORD = re.compile(r"(?<![^\W_])[^\W\d_]+(?![^\W_])")
_ASCII_WORD = re.compile(r"(?<![a-z0-9])[a-z]+(?![a-z0-9])")  # _WORD in lower-case ASCII
#: What may stand between two words of a phrase: spaces, commas, a number ("1. abandon").
_GAP = re.compile(r"[\s,;|/-]*(?:\d{1,2}[.):]?[\s,;|/-]*)?")
_BITLOCKER = re.compile(r"\d(?<!\d\d)\d{5}(?:-\d{6}){7}(?!\d)")  # (a digit first: fast)
_BASE32 = re.compile(r"(?<![A-Za-z0-9])[A-Za-z2-7]{4}(?:[ -][A-Za-z2-7]{4}){3,7}(?![A-Za-z0-9])")


def fold(word: str) -> str:
    """``word`` in lower case without accents (``Ébano`` -> ``ebano``)."""
    word = word.lower()
    if word.isascii():
        return word
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


@lru_cache(maxsize=1)
def _wordlists() -> tuple[frozenset[str], ...]:
    """The BIP-39 word lists, folded (read once from the ``mnemonic`` package)."""
    pkg = resources.files("mnemonic") / "wordlist"
    return tuple(
        frozenset(fold(w.strip()) for w in (pkg / f"{name}.txt").read_text("utf-8").split())
        for name in _LISTS
    )


@lru_cache(maxsize=1)
def _union() -> frozenset[str]:
    return frozenset().union(*_wordlists())


def _seed_spans(text: str, lower: str) -> list[tuple[int, int]]:
    """Seed phrases, read closely only where some ``SEED_WORDS`` words in a row hold
    ``SEED_WORDS - SEED_OUTSIDE`` list words, mostly distinct (one counting pass);
    ``lower`` is ``text.lower()``."""
    union = _union()
    need = SEED_WORDS - SEED_OUTSIDE
    # a window needs `need` list words and 3/4 distinct words: so some distinct list words
    least = need - (SEED_WORDS - math.ceil(0.75 * SEED_WORDS))
    if lower.isascii():
        # its words (no accent to fold) are among the text's letter runs, which the word
        # lists of every layer read once (vocab.words_of): too few there, too few here
        if len(union.intersection(words_of(text)[1])) < least:
            return []
        words = _ASCII_WORD.findall(lower)  # _WORD, read by ASCII classes (faster)
    else:
        words = [w if w.isascii() else fold(w) for w in _WORD.findall(lower)]
    if len(union.intersection(words)) < least:
        return []
    flags = bytes(map(union.__contains__, words))  # 1 where a word is on a list
    # 10 ones among 12 places leave at most two zeros: some run of ones is 4 long
    if flags.count(1) < need or b"\x01\x01\x01\x01" not in flags:
        return []
    ones = [0, *itertools.accumulate(flags)]
    # the windows (by their end) holding `need` list words, counted at C speed; then one
    # with 3/4 of its words distinct
    full = map(need.__le__, map(operator.sub, ones[SEED_WORDS:], ones))
    for end in itertools.compress(range(SEED_WORDS, len(words) + 1), full):
        if len(set(words[end - SEED_WORDS : end])) >= 0.75 * SEED_WORDS:
            return _seed_runs(text)
    return []


class _Run:
    """A run of words from one list: where it starts, its words, the words off the list."""

    __slots__ = ("start", "end", "words", "on_list", "outside", "last", "trail")

    def __init__(self) -> None:
        self.start = self.end = self.last = -1
        self.words = self.on_list = self.outside = self.trail = 0

    def span(self) -> tuple[int, int] | None:
        """The run less the words off the list at its end, when it is long enough."""
        if self.on_list >= SEED_WORDS - SEED_OUTSIDE and self.words - self.trail >= SEED_WORDS:
            return self.start, self.end
        return None


def _seed_runs(text: str) -> list[tuple[int, int]]:
    return [(a, b) for a, b in _word_runs(text) if _seed_like(text, a, b)]


#: Twelve or more single Han characters set apart by spaces: how a Chinese phrase is written.
_HAN_RUN = re.compile(r"[\u4e00-\u9fff](?:[ \t,、，]+[\u4e00-\u9fff]){11,}(?![\u4e00-\u9fff])")


def may_hold_a_seed(text: str) -> bool:
    """Whether ``text`` holds ``SEED_WORDS`` words of the BIP-39 lists, or a run of single Han
    characters set apart by spaces (one pass; a cheap first look before :func:`seed_runs`)."""
    union = _union()
    words = sum(1 for w in _WORD.findall(text.lower()) if (w if w.isascii() else fold(w)) in union)
    return words >= SEED_WORDS or _HAN_RUN.search(text) is not None


def seed_runs(text: str) -> list[tuple[int, int]]:
    """Runs of ``SEED_WORDS`` or more seed words, mostly distinct, with or without a cue (a
    caller that knows the text gives a secret); Chinese phrases as twelve or more single Han
    characters set apart by spaces."""
    runs = [(a, b) for a, b in _word_runs(text) if _distinct(text, a, b)]
    return runs + [m.span() for m in _HAN_RUN.finditer(text)]


def _distinct(text: str, start: int, end: int) -> bool:
    found = [fold(w) for w in _WORD.findall(text, start, end)]
    return len(found) >= SEED_WORDS and len(set(found)) >= 0.75 * len(found)


def _word_runs(text: str) -> list[tuple[int, int]]:
    """Runs of words from one BIP-39 list (at most ``SEED_OUTSIDE`` off it), long enough."""
    lists = _wordlists()
    found: list[tuple[int, int]] = []
    runs = [_Run() for _ in lists]
    for m in _WORD.finditer(text):
        word = fold(m.group(0))
        for i, words in enumerate(lists):
            run = runs[i]
            on = word in words
            if not on and not run.words:
                continue  # no run of this list, and the word starts none
            joined = run.words > 0 and _GAP.fullmatch(text, run.last, m.start()) is not None
            if on or (joined and run.outside < SEED_OUTSIDE and m.group(0).islower()):
                if not joined:
                    span = run.span()
                    if span is not None:
                        found.append(span)
                    run.start, run.words, run.on_list, run.outside = m.start(), 0, 0, 0
                    run.trail = 0
                run.words += 1
                run.last = m.end()
                if on:
                    run.on_list += 1
                    run.end = m.end()
                    run.trail = 0
                else:
                    run.outside += 1
                    run.trail += 1
                continue
            span = run.span()
            if span is not None:
                found.append(span)
            run.words = 0
    for run in runs:
        span = run.span()
        if span is not None:
            found.append(span)
    return found


def _seed_like(text: str, start: int, end: int) -> bool:
    """A run counts when its words are mostly distinct (a phrase is drawn at random) and it is
    long, numbered or near a seed cue (200 characters before, 120 after)."""
    if not _distinct(text, start, end):
        return False
    words = len(_WORD.findall(text, start, end))
    if words >= SEED_WORDS_ALONE:
        return True
    numbered = sum(c.isdigit() for c in text[start:end]) >= words // 2
    if numbered or _SEED_CUE.search(text, max(0, start - 200), start) is not None:
        return True
    return _SEED_CUE.search(text, end, end + 120) is not None


@dataclass(frozen=True)
class RecoveryDetector:
    """Seed phrases, BitLocker keys, lists of codes, base32 setup keys."""

    name: str = "recovery"

    def find(self, text: str) -> list[Finding]:
        return self.find_in(TextScan(text))

    def find_in(self, scan: TextScan) -> list[Finding]:
        """:meth:`find` on a text read once for every detector."""
        text = scan.text
        spans = _seed_spans(text, scan.lower)
        if scan.digits or "-" in text:  # a key, and most codes of a list, hold one
            spans += code_list_spans(text)
        if scan.digits:  # every BitLocker and setup key holds one
            if scan.digits >= 48:  # a BitLocker key's count
                spans += [m.span() for m in _BITLOCKER.finditer(text)]
            for m in _BASE32.finditer(text):
                compact = m.group(0).replace(" ", "").replace("-", "")
                if any(c.isdigit() for c in compact) and any(c.isalpha() for c in compact):
                    spans.append(m.span())
        return [Finding(RECOVERY, self.name, a, b) for a, b in spans]
