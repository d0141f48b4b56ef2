"""Hashed character n-grams: the meaning heads' script-blind input (any language, no list).

Guarantee: :func:`ngram_buckets` depends on the text alone (CRC-32, the same in every
process and on every machine), so weights trained once apply everywhere.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

#: n-grams are hashed into 2**HASH_BITS buckets.
HASH_BITS = 16
_MASK = (1 << HASH_BITS) - 1


def ngram_buckets(text: str, limit: int = 600) -> dict[int, float]:
    """Character 2- to 4-grams of each lower-cased word of ``text[:limit]`` (padded with a
    space at each end), hashed into buckets: L2-normalised counts."""
    counts: dict[int, float] = {}
    crc = zlib.crc32
    for word in text[:limit].lower().split():
        padded = f" {word} ".encode()
        size = len(padded)
        for n in (2, 3, 4):
            for i in range(size - n + 1):
                key = crc(padded[i : i + n]) & _MASK
                counts[key] = counts.get(key, 0.0) + 1.0
    norm = math.sqrt(sum(v * v for v in counts.values())) or 1.0
    return {k: v / norm for k, v in counts.items()}


def dot(weights: np.ndarray, buckets: dict[int, float]) -> float:
    """``weights · buckets`` (``weights``: one float per bucket)."""
    return float(sum(weights[k] * v for k, v in buckets.items()))
