"""The lexical features of a sentence for the health pre-filter (shared by training and
inference, so both read a sentence the same way): each lower-case word, its first five
letters (``diabét`` and ``diabetes`` share ``diabe``), and pairs of CJK characters."""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-zà-ÿ0-9]+(?:'[a-z]+)?")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]+")


def lexical_features(sentence: str) -> set[str]:
    """The feature names of ``sentence`` (a set: each counts once)."""
    lower = sentence.lower()
    out: set[str] = set()
    for w in _WORD.findall(lower):
        out.add(w)
        if len(w) > 5:
            out.add(w[:5] + "~")
    if not lower.isascii():
        for run in _CJK.findall(lower):
            out.update(run[i : i + 2] for i in range(len(run) - 1))
            if len(run) == 1:
                out.add(run)
    return out
