"""The health head: P(a sentence reveals someone's health), a linear head, numpy only.

Inputs: USE multilingual v3 of the sentence (:mod:`.meaning_encoder`: one space for many
languages) and its hashed character n-grams (:mod:`.ngrams`: any script). One logistic
regression trained on the sentences of six independent writers in about eighty languages and
on the health rows and look-alikes of the first-read privacy corpora
(``benchmarks/health_head_train.py``; weights in ``data/health_head.npz``, thresholds
chosen leave-one-writer-out there).

:func:`health_probabilities` returns ``None`` when the encoder is turned off or cannot load;
the detector then decides without it (fail closed at ``strict``). No text is logged.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from adk_memory_kit.sensitive.meaning_encoder import available, use_meaning_encoder, vectors
from adk_memory_kit.sensitive.ngrams import dot, ngram_buckets

__all__ = ["health_probabilities", "model_available", "thresholds", "use_health_embedder"]

_WEIGHTS = "data/health_head.npz"
#: The head reads at most this many characters of a sentence.
WINDOW = 600


@lru_cache(maxsize=1)
def _weights() -> tuple[np.ndarray, np.ndarray, float, float, float]:
    """(encoder coefficients, n-gram coefficients, bias, strict and balanced thresholds)."""
    with resources.files("adk_memory_kit.sensitive").joinpath(_WEIGHTS).open("rb") as fh:
        data = np.load(fh)
        return (
            data["use"].astype(np.float32),
            data["ngrams"].astype(np.float32),
            float(data["bias"]),
            float(data["strict"]),
            float(data["balanced"]),
        )


def thresholds() -> tuple[float, float]:
    """The head's bars: (``strict``, ``balanced``)."""
    return _weights()[3], _weights()[4]


def model_available() -> bool:
    """Whether the head can run here."""
    return available()


def health_probabilities(sentences: Sequence[str]) -> list[float] | None:
    """P(about someone's health) for each sentence, or ``None`` without the encoder."""
    windows = [s[:WINDOW] for s in sentences]
    rows = vectors(windows)
    if rows is None:
        return None
    use, grams, bias, _, _ = _weights()
    logits = [
        float(r @ use) + dot(grams, ngram_buckets(w)) + bias
        for r, w in zip(rows, windows, strict=True)
    ]
    return [1.0 / (1.0 + float(np.exp(-x))) for x in logits]


def use_health_embedder(factory: Callable[[], Any] | None) -> None:
    """Deprecated (stop 57): the health head reads the gate's multilingual encoder now;
    use :func:`~adk_memory_kit.sensitive.meaning_encoder.use_meaning_encoder`. ``None`` still
    turns the head off (both meaning heads); a MiniLM factory has no effect."""
    warnings.warn(
        "use_health_embedder is deprecated: the health head reads the multilingual encoder; "
        "use adk_memory_kit.sensitive.meaning_encoder.use_meaning_encoder",
        DeprecationWarning,
        stacklevel=2,
    )
    if factory is None:
        use_meaning_encoder(None)


_OLD_THRESHOLDS = {"HEAD_THRESHOLD_STRICT": 0, "HEAD_THRESHOLD_BALANCED": 1}


def __getattr__(name: str) -> float:
    """The MiniLM head's threshold names, deprecated: :func:`thresholds` gives the bars."""
    if name in _OLD_THRESHOLDS:
        warnings.warn(f"{name} is deprecated: use thresholds()", DeprecationWarning, stacklevel=2)
        return thresholds()[_OLD_THRESHOLDS[name]]
    raise AttributeError(name)
