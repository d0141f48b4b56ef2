"""A word list asked one question, fast: does a text hold one of its entries?

Entries are lower case, separated by ``|``: a single word matches a whole word of the text;
an entry ending in ``*`` matches a word start ("hälytys*" matches "hälytyskoodi"); an entry
holding a space, hyphen or apostrophe is a phrase matched between word boundaries; an entry
in a script written without spaces matches anywhere. Guarantee: :meth:`Vocabulary.found_in`
is exactly "some entry occurs as described"; one word split of the text (C speed) and set
look-ups, then a boundary check only for a phrase found as a substring. Linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from adk_memory_kit.sensitive.base import prefix_tree

_WORD = re.compile(r"[^\W\d_]+")
_ASCII_WORD = re.compile(r"[a-z]+")  # _WORD in lower-case ASCII (a faster class)


def _spaced_script(entry: str) -> bool:
    """Whether ``entry`` is written in a script with spaces between words (Latin, Greek,
    Cyrillic, Hebrew, Arabic ...): CJK, kana, hangul and Thai match anywhere."""
    return not any(
        "\u0e00" <= c <= "\u0e7f" or "\u3040" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7af"
        for c in entry
    )


@lru_cache(maxsize=4)
def words_of(text: str) -> tuple[str, frozenset[str]]:
    """``text`` in lower case and its distinct words (split once for every vocabulary)."""
    lower = text.lower()
    return lower, frozenset((_ASCII_WORD if lower.isascii() else _WORD).findall(lower))


def _at_word_start(pattern: re.Pattern[str], lower: str) -> bool:
    """Whether ``pattern`` (letters only) matches where a word starts: searched at C speed,
    each hit's start checked here (a lookbehind in the pattern would defeat the search's
    first-character scan)."""
    pos = 0
    while (m := pattern.search(lower, pos)) is not None:
        start = m.start()
        if start == 0 or not _LETTER_BEFORE.match(lower, start - 1):
            return True
        pos = start + 1
    return False


_LETTER_BEFORE = re.compile(r"[^\W\d_]")
#: Past this many phrases one prefix-tree search beats a substring test per phrase.
_MANY_PHRASES = 32


class Vocabulary:
    """Entries of the module docstring, compiled once."""

    __slots__ = ("words", "stems", "phrases", "anywhere", "_phrase", "_stems", "_phrase_any")

    def __init__(self, entries: str | Iterable[str]) -> None:
        items = entries.split("|") if isinstance(entries, str) else list(entries)
        words: set[str] = set()
        stems: list[str] = []
        phrases: list[str] = []
        anywhere: list[str] = []
        for raw in items:
            entry = raw.strip().lower()
            if not entry:
                continue
            if not _spaced_script(entry):
                anywhere.append(entry)
            elif entry.endswith("*"):
                stems.append(entry[:-1])
            elif _WORD.fullmatch(entry):
                words.add(entry)
            else:
                phrases.append(entry)
        self.words = frozenset(words)
        self.stems = tuple(stems)
        self.phrases = tuple(phrases)
        self.anywhere = tuple(anywhere)
        # one C-speed search each: a stem at the start of a word (a stem holding a character
        # that is not a letter can start no word: left out); any phrase, where there are many
        letter_stems = sorted(s for s in stems if _WORD.fullmatch(s))
        self._stems = re.compile(prefix_tree(letter_stems)) if letter_stems else None
        self._phrase_any = re.compile(prefix_tree(sorted(phrases)) if phrases else "(?!)")
        self._phrase = (
            re.compile(
                r"(?<![^\W\d_])(?:"
                + "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
                + r")(?![^\W\d_])"
            )
            if phrases
            else None
        )

    def found_in(self, text: str) -> bool:
        """Whether ``text`` holds an entry (see the module docstring)."""
        lower, found = words_of(text)
        if any(e in lower for e in self.anywhere):  # few entries: substring tests are fastest
            return True
        if not self.words.isdisjoint(found):
            return True
        if self._stems is not None and _at_word_start(self._stems, lower):
            return True
        if self._phrase is not None:
            if len(self.phrases) > _MANY_PHRASES:
                if self._phrase_any.search(lower) is None:
                    return False
            elif not any(p in lower for p in self.phrases):
                return False
            return self._phrase.search(lower) is not None
        return False
