"""The one sentence encoder the gate's two meaning heads read (secrets and health).

USE multilingual v3 (:mod:`adk_memory_kit.embedders.multilingual`): one vector space for many
languages, so what the heads learned from one writer's language carries to the rest. It is
registered, not imported at module load (``sensitive`` sits beside ``embedders``):
:func:`use_meaning_encoder` replaces the factory (``None``: both heads off, and the gate
decides as without them, failing closed at ``strict``). :func:`vectors` returns ``None``
when the encoder is off or cannot load (the ``[local]`` extra is missing).

Vectors of recent texts are kept in one process-wide cache, so a sentence read by both heads
(the router calls the gate one sentence at a time) is encoded once. No text is logged.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Protocol

import numpy as np

_CACHE_SIZE = 4096
_cache: OrderedDict[str, np.ndarray] = OrderedDict()
_lock = threading.Lock()


class SentenceEncoder(Protocol):
    """What the heads need: 512-d unit vectors of USE multilingual v3 (what they learned on)."""

    def embed_array(self, texts: Sequence[str]) -> np.ndarray: ...


def _bundled() -> SentenceEncoder:
    from adk_memory_kit.embedders.multilingual import MultilingualEncoder

    return MultilingualEncoder()


_factory: Callable[[], SentenceEncoder] | None = _bundled
#: Listeners told when the encoder changes (each head clears its verdict cache).
_on_change: list[Callable[[], None]] = []


def use_meaning_encoder(factory: Callable[[], SentenceEncoder] | None) -> None:
    """Replace how the encoder is made (``None``: run the gate without its meaning heads)."""
    global _factory
    _factory = factory
    _encoder.cache_clear()
    with _lock:
        _cache.clear()
    for listener in _on_change:
        listener()


def on_change(listener: Callable[[], None]) -> None:
    """Call ``listener`` whenever :func:`use_meaning_encoder` changes the encoder."""
    _on_change.append(listener)


@lru_cache(maxsize=1)
def _encoder() -> SentenceEncoder | None:
    if _factory is None:
        return None
    try:
        encoder = _factory()
        encoder.embed_array(["warm up"])  # load now: a failure means "absent"
    except Exception:  # noqa: BLE001 - any failure to load means: decide without the heads
        return None
    return encoder


def available() -> bool:
    """Whether the encoder runs here."""
    return _encoder() is not None


def vectors(texts: Sequence[str]) -> np.ndarray | None:
    """One row per text (float32), or ``None`` without the encoder."""
    encoder = _encoder()
    if encoder is None:
        return None
    rows: list[np.ndarray | None] = []
    with _lock:
        for t in texts:
            v = _cache.get(t)
            if v is not None:
                _cache.move_to_end(t)
            rows.append(v)
    missing = list(dict.fromkeys(t for t, v in zip(texts, rows, strict=True) if v is None))
    if missing:
        fresh = dict(
            zip(missing, np.asarray(encoder.embed_array(missing), np.float32), strict=True)
        )
        with _lock:
            for t, v in fresh.items():
                _cache[t] = v
                if len(_cache) > _CACHE_SIZE:
                    _cache.popitem(last=False)
        rows = [fresh[t] if v is None else v for t, v in zip(texts, rows, strict=True)]
    return np.stack([v for v in rows if v is not None]) if rows else np.zeros((0, 512), np.float32)
