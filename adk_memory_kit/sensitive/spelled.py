"""Numbers spelled as words, read as digits: "four five five six", "oh nine twenty seven",
"zwei acht null", "trois neuf un".

A number read out loud (a voice note, a careful user) escapes every digit detector. This
module rewrites each run of spelled digits as digits, so the number detectors can read it,
and maps what they find back onto the words.

Guarantees: a *run* is ``RUN_LEAST`` to ``RUN_MOST`` number words (digit words in English,
Spanish, French, German, Portuguese and Italian; English teens and tens, ``twenty seven``
as ``27``; ``double``/``triple`` before a digit word; ``oh`` as zero beside another number
word) joined by spaces or hyphens (one number) or commas (a group break, written as a
space). :func:`spelled_digits` returns the rewritten text and the replaced spans, or
``None`` when the text has no run; :meth:`Respelled.original` maps a span of the rewritten
text back (a span touching a run covers the run's words). Linear: one pass.
"""

from __future__ import annotations

import bisect
import re

from adk_memory_kit.sensitive.vocab import words_of

RUN_LEAST = 3
RUN_MOST = 40

_DIGITS: dict[str, str] = {}
for _digit, _words in enumerate(
    (
        "zero cero zéro zero null zero",
        "one uno un une eins um uma",
        "two dos deux zwei zwo dois duas due",
        "three tres trois drei três tre",
        "four cuatro quatre vier quatro quattro",
        "five cinco cinq fünf funf cinque",
        "six seis sechs sei",
        "seven siete sept sieben sete sette",
        "eight ocho huit acht oito otto",
        "nine nueve neuf neun nove",
    )
):
    for _w in _words.split():
        _DIGITS[_w] = str(_digit)
_TEENS = {
    w: str(10 + i)
    for i, w in enumerate(
        "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
_TENS = {
    w: str(i + 2)
    for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())
}
_REPEAT = {"double": 2, "triple": 3}
_ZERO_BESIDE = frozenset({"oh"})
_WORD = re.compile(r"[^\W\d_]+")
_JOIN = re.compile(r"[ \t]*-?[ \t]*")
_BREAK = re.compile(r"[ \t]*,[ \t]*")
_NUMBER_WORDS = frozenset(_DIGITS) | frozenset(_TEENS) | frozenset(_TENS) | _ZERO_BESIDE


class Respelled:
    """A text with its spelled runs written as digits, and the replaced spans."""

    __slots__ = ("text", "spans", "_starts")

    def __init__(self, text: str, spans: list[tuple[int, int, int, int]]) -> None:
        self.text = text
        #: (start in the rewritten text, end there, start in the original, end there)
        self.spans = spans
        self._starts = [s[0] for s in spans]

    def original(self, start: int, end: int) -> tuple[int, int]:
        """The span of the original text that ``[start, end)`` of the rewritten text reads."""
        return self._map(start, True), self._map(end, False)

    def touches_run(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` of the rewritten text overlaps a rewritten run."""
        i = bisect.bisect_left(self._starts, end) - 1  # the last run starting before end
        return i >= 0 and self.spans[i][1] > start

    def _map(self, pos: int, is_start: bool) -> int:
        i = bisect.bisect_right(self._starts, pos if is_start else pos - 1) - 1
        if i < 0:
            return pos
        a, b, oa, ob = self.spans[i]
        if pos < b or (not is_start and pos == b):
            return oa if is_start else ob
        return pos + (ob - b)


def _value(words: list[re.Match[str]], i: int) -> tuple[str, int] | None:
    """The digits that the number words from ``words[i]`` spell, and how many words they
    take (``None`` when ``words[i]`` is no number word)."""
    word = words[i].group(0).lower()
    nxt = words[i + 1].group(0).lower() if i + 1 < len(words) else ""
    if word in _DIGITS:
        return _DIGITS[word], 1
    if word in _TEENS:
        return _TEENS[word], 1
    if word in _TENS:
        if nxt in _DIGITS and _DIGITS[nxt] != "0":
            return _TENS[word] + _DIGITS[nxt], 2
        return _TENS[word] + "0", 1
    if word in _REPEAT and nxt in _DIGITS:
        return _DIGITS[nxt] * _REPEAT[word], 2
    if word in _ZERO_BESIDE:
        return "0", 1
    return None


def spelled_digits(text: str) -> Respelled | None:
    """``text`` with each run of spelled digits written as digits (see the module
    docstring), or ``None`` when it has none."""
    if len(_NUMBER_WORDS & words_of(text)[1]) < 2:
        return None  # a run of one word repeated ("seven seven seven") is not read
    words = list(_WORD.finditer(text))
    runs: list[tuple[int, int, str]] = []  # original start, end, digits
    i = 0
    while i < len(words):
        start_i, parts, count, prev_end = i, [""], 0, -1
        while i < len(words):
            if count and not _joined(text, prev_end, words[i].start(), parts):
                break
            got = _value(words, i)
            if got is None:
                break
            digits, took = got
            parts[-1] += digits
            count += took
            prev_end = words[i + took - 1].end()
            i += took
        if RUN_LEAST <= count <= RUN_MOST and not _lone_zero_words(words, start_i, i):
            runs.append((words[start_i].start(), prev_end, " ".join(p for p in parts if p)))
        if i == start_i:
            i += 1
    if not runs:
        return None
    out: list[str] = []
    spans: list[tuple[int, int, int, int]] = []
    pos = length = 0
    for a, b, digits in runs:
        out.append(text[pos:a])
        length += a - pos
        spans.append((length, length + len(digits), a, b))
        out.append(digits)
        length += len(digits)
        pos = b
    out.append(text[pos:])
    return Respelled("".join(out), spans)


def _joined(text: str, prev_end: int, start: int, parts: list[str]) -> bool:
    """Whether the gap between two number words keeps them in one run (a comma starts a
    new group)."""
    if _JOIN.fullmatch(text, prev_end, start):
        return True
    if _BREAK.fullmatch(text, prev_end, start):
        parts.append("")
        return True
    return False


def _lone_zero_words(words: list[re.Match[str]], start: int, end: int) -> bool:
    """A run of nothing but "oh" is an exclamation, not a number."""
    return all(w.group(0).lower() in _ZERO_BESIDE for w in words[start:end])
