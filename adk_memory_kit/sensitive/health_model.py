"""The health classifier: a logistic-regression head on the bundled MiniLM embedder.

Weights come from :mod:`~adk_memory_kit.sensitive.health_model_data` (written by
``benchmarks/health_head_train.py``). :func:`health_probabilities` embeds sentences with the
bundled ``LocalMiniLMEmbedder`` (CPU, offline; :func:`use_health_embedder` replaces or turns
it off) and applies the head; it returns ``None`` when it is turned off, the ``[local]``
extra is not installed or the model cannot load, and the caller then decides without it
(fail closed at ``strict``). Probabilities of recent
sentences are kept in a small process-wide cache; no text is logged or put in errors.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Protocol

import numpy as np

from adk_memory_kit.sensitive.health_model_data import (
    HEAD_BIAS,
    HEAD_COEF,
    HEAD_THRESHOLD_BALANCED,
    HEAD_THRESHOLD_STRICT,
)

__all__ = [
    "HEAD_THRESHOLD_BALANCED",
    "HEAD_THRESHOLD_STRICT",
    "health_probabilities",
    "model_available",
    "use_health_embedder",
]

_COEF = np.asarray(HEAD_COEF, dtype=np.float32)
_CACHE_SIZE = 4096
_cache: OrderedDict[str, float] = OrderedDict()
_lock = threading.Lock()


class SentenceEmbedder(Protocol):
    """What the head needs: ``LocalMiniLMEmbedder`` (the vectors it was trained on)."""

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]: ...


def _bundled_minilm() -> SentenceEmbedder:
    """The bundled MiniLM (the vectors the head was trained on), loaded on first use."""
    from adk_memory_kit.embedders.local import LocalMiniLMEmbedder

    return LocalMiniLMEmbedder()


#: Makes the embedder (called once, on first use): the bundled MiniLM unless replaced.
_factory: Callable[[], SentenceEmbedder] | None = _bundled_minilm


def use_health_embedder(factory: Callable[[], SentenceEmbedder] | None) -> None:
    """Replace how the health head's embedder is made (``None``: run without the head)."""
    global _factory
    _factory = factory
    _embedder.cache_clear()


@lru_cache(maxsize=1)
def _embedder() -> SentenceEmbedder | None:
    """The registered embedder, or ``None`` when none is registered or it cannot load (no
    ``[local]`` extra): the detector then decides without the head."""
    if _factory is None:
        return None
    try:
        embedder = _factory()
        embedder.embed_sync(["warm up"])  # load the model now: a failure means "absent"
    except Exception:  # noqa: BLE001 - any failure to load means: decide without the model
        return None
    return embedder


def model_available() -> bool:
    """Whether the MiniLM head can run here."""
    return _embedder() is not None


def health_probabilities(sentences: Sequence[str]) -> list[float] | None:
    """P(about someone's health) for each sentence, or ``None`` without the model."""
    embedder = _embedder()
    if embedder is None:
        return None
    out: list[float | None] = []
    missing: list[str] = []
    with _lock:
        for s in sentences:
            p = _cache.get(s)
            if p is not None:
                _cache.move_to_end(s)
            else:
                missing.append(s)
            out.append(p)
    if missing:
        vectors = np.asarray(embedder.embed_sync(list(dict.fromkeys(missing))), dtype=np.float32)
        probs = 1.0 / (1.0 + np.exp(-(vectors @ _COEF + HEAD_BIAS)))
        fresh = dict(zip(dict.fromkeys(missing), (float(p) for p in probs), strict=True))
        with _lock:
            for s, p in fresh.items():
                _cache[s] = p
                if len(_cache) > _CACHE_SIZE:
                    _cache.popitem(last=False)
        out = [fresh[s] if p is None else p for s, p in zip(sentences, out, strict=True)]
    return [float(p) for p in out if p is not None]
