"""Whether a message gives away a secret, judged by meaning: a linear head, numpy only.

The format layers (checksums, vendor prefixes, shapes) are sure of what they find; the
layers without a format (a value near a cue word, a long digit run, a short code, a
password-shaped token) are not, and cue words exist only in the languages someone listed.
This head reads the whole message instead: USE multilingual v3 (one space for many
languages), hashed character n-grams (any script, no word list) and a few value shapes,
in one logistic regression trained on corpora written by many independent writers who never
read the kit (``benchmarks/secret_head_train.py``; weights in ``data/secret_head.npz``).

:func:`secret_probabilities` returns P(the message gives a secret: a password, code, key,
account, card or id number of someone) per text, or ``None`` when the encoder is turned off
or cannot load (:mod:`.meaning_encoder`): callers then decide as without it. A text is read
up to :data:`WINDOW` characters. No text is logged or put in an error.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources

import numpy as np

from adk_memory_kit.sensitive.meaning_encoder import vectors
from adk_memory_kit.sensitive.ngrams import dot, ngram_buckets

#: The head reads at most this many characters of a text at once (the training length).
WINDOW = 600
_WEIGHTS = "data/secret_head.npz"


@lru_cache(maxsize=1)
def _weights() -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """(encoder coefficients, n-gram coefficients, shape coefficients, bias)."""
    with resources.files("adk_memory_kit.sensitive").joinpath(_WEIGHTS).open("rb") as fh:
        data = np.load(fh)
        return (
            data["use"].astype(np.float32),
            data["ngrams"].astype(np.float32),
            data["shapes"].astype(np.float32),
            float(data["bias"]),
        )


_QUOTED = re.compile(r"[\"'«“][^\"'»”\n]{4,40}[\"'»”]")
_MASKED_OR_SAMPLE = re.compile(r"0000|xxxx|1234", re.IGNORECASE)
_SHORT_NUMBER = re.compile(r"(?<!\w)\d{3,8}(?!\w)")
_DIGITS4 = re.compile(r"\d{4,}")
_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")


def shape_features(text: str) -> np.ndarray:
    """A few value shapes of the first :data:`WINDOW` characters (the head's third input)."""
    text = text[:WINDOW]
    tokens = text.split()
    mixed = cased = False
    for t in tokens:
        if _DIGIT.search(t) is None:
            continue
        mixed = mixed or (len(t) >= 6 and _LETTER.search(t) is not None)
        cased = cased or (t.lower() != t and t.upper() != t)
    return np.asarray(
        [
            any(_DIGITS4.search(t) for t in tokens),
            mixed,
            cased,
            _QUOTED.search(text) is not None,
            _MASKED_OR_SAMPLE.search(text) is not None,
            min(len(text) / 300.0, 2.0),
            _SHORT_NUMBER.search(text) is not None,
            text.count("\n") > 2,
        ],
        dtype=np.float32,
    )


def secret_probabilities(texts: Sequence[str]) -> list[float] | None:
    """P(gives a secret) for each text (its first :data:`WINDOW` characters), or ``None``
    without the encoder."""
    windows = [t[:WINDOW] for t in texts]
    rows = vectors(windows)
    if rows is None:
        return None
    use, grams, shapes, bias = _weights()
    logits = [
        float(row @ use) + float(shape_features(w) @ shapes) + dot(grams, ngram_buckets(w)) + bias
        for row, w in zip(rows, windows, strict=True)
    ]
    return [1.0 / (1.0 + float(np.exp(-x))) for x in logits]
