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
or cannot load (the ``[local]`` extra is missing): callers then decide as without it.
Messages are read in windows of at most :data:`WINDOW` characters. Verdicts of recent texts
are cached; no text is logged or put in an error.
"""

from __future__ import annotations

import re
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib import resources
from typing import Protocol

import numpy as np

#: The head reads at most this many characters of a text at once (the training length).
WINDOW = 600
#: Character n-grams are hashed into 2**HASH_BITS buckets (CRC-32: the same in every process).
HASH_BITS = 16
_MASK = (1 << HASH_BITS) - 1
_WEIGHTS = "data/secret_head.npz"
_CACHE_SIZE = 4096
_cache: OrderedDict[str, float] = OrderedDict()
_lock = threading.Lock()


class SentenceEncoder(Protocol):
    """What the head needs: USE multilingual v3's 512-d unit vectors (what it was trained on)."""

    def embed_array(self, texts: Sequence[str]) -> np.ndarray: ...


def _bundled_encoder() -> SentenceEncoder:
    from adk_memory_kit.embedders.multilingual import MultilingualEncoder

    return MultilingualEncoder()


_factory: Callable[[], SentenceEncoder] | None = _bundled_encoder


def use_secret_encoder(factory: Callable[[], SentenceEncoder] | None) -> None:
    """Replace how the head's encoder is made (``None``: run without the head)."""
    global _factory
    _factory = factory
    _encoder.cache_clear()
    with _lock:
        _cache.clear()


@lru_cache(maxsize=1)
def _encoder() -> SentenceEncoder | None:
    if _factory is None:
        return None
    try:
        encoder = _factory()
        encoder.embed_array(["warm up"])  # load now: a failure means "absent"
    except Exception:  # noqa: BLE001 - any failure to load means: decide without the head
        return None
    return encoder


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


def head_available() -> bool:
    """Whether the head can run here (its encoder loads)."""
    return _encoder() is not None


def ngram_buckets(text: str) -> dict[int, float]:
    """Character 2- to 4-grams of each lower-cased word (padded with a space at each end),
    hashed into 2**HASH_BITS buckets, L2-normalised counts."""
    counts: dict[int, float] = {}
    crc = zlib.crc32
    for word in text[:WINDOW].lower().split():
        padded = f" {word} ".encode()
        size = len(padded)
        for n in (2, 3, 4):
            for i in range(size - n + 1):
                key = crc(padded[i : i + n]) & _MASK
                counts[key] = counts.get(key, 0.0) + 1.0
    norm = float(np.sqrt(sum(v * v for v in counts.values()))) or 1.0
    return {k: v / norm for k, v in counts.items()}


_QUOTED = re.compile(r"[\"'«“][^\"'»”\n]{4,40}[\"'»”]")
_MASKED_OR_SAMPLE = re.compile(r"0000|xxxx|1234", re.IGNORECASE)
_SHORT_NUMBER = re.compile(r"(?<!\w)\d{3,8}(?!\w)")


def shape_features(text: str) -> np.ndarray:
    """A few value shapes of the first :data:`WINDOW` characters (the head's third input)."""
    text = text[:WINDOW]
    tokens = text.split()
    digit_run = any(re.search(r"\d{4,}", t) for t in tokens)
    mixed = any(len(t) >= 6 and re.search(r"[^\W\d_]", t) and re.search(r"\d", t) for t in tokens)
    cased = any(re.search(r"[a-z]", t) and re.search(r"[A-Z]", t) and re.search(r"\d", t)
                for t in tokens)  # fmt: skip
    return np.asarray(
        [
            digit_run,
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


def features(texts: Sequence[str], vectors: np.ndarray) -> tuple[np.ndarray, list, np.ndarray]:
    """The head's three inputs for ``texts`` (``vectors``: their encoder rows)."""
    return vectors, [ngram_buckets(t) for t in texts], np.stack([shape_features(t) for t in texts])


def secret_probabilities(texts: Sequence[str]) -> list[float] | None:
    """P(gives a secret) for each text (its first :data:`WINDOW` characters), or ``None``
    without the encoder."""
    encoder = _encoder()
    if encoder is None:
        return None
    windows = [t[:WINDOW] for t in texts]
    out: list[float | None] = []
    missing: list[str] = []
    with _lock:
        for w in windows:
            p = _cache.get(w)
            if p is not None:
                _cache.move_to_end(w)
            else:
                missing.append(w)
            out.append(p)
    if missing:
        fresh_texts = list(dict.fromkeys(missing))
        vectors = np.asarray(encoder.embed_array(fresh_texts), dtype=np.float32)
        use, ngrams, shapes, bias = _weights()
        logits = vectors @ use + np.stack([shape_features(t) for t in fresh_texts]) @ shapes + bias
        for i, t in enumerate(fresh_texts):
            logits[i] += sum(ngrams[k] * v for k, v in ngram_buckets(t).items())
        probs = 1.0 / (1.0 + np.exp(-logits))
        fresh = dict(zip(fresh_texts, (float(p) for p in probs), strict=True))
        with _lock:
            for t, p in fresh.items():
                _cache[t] = p
                if len(_cache) > _CACHE_SIZE:
                    _cache.popitem(last=False)
        out = [fresh[w] if p is None else p for w, p in zip(windows, out, strict=True)]
    return [float(p) for p in out if p is not None]
