"""A production embedder on Google's Gemini embedding API (``google-genai``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adk_memory_kit.errors import EmbedderError


class GeminiEmbedder:
    """Embeds with ``client.aio.models.embed_content``; needs ``GOOGLE_API_KEY`` or Vertex AI.

    ``dim`` is sent as ``output_dimensionality`` so the stored vectors have a fixed size.
    Stored texts are embedded with ``task_type`` (``RETRIEVAL_DOCUMENT``) and search queries,
    through :meth:`embed_query`, with ``query_task_type`` (``RETRIEVAL_QUERY``).
    """

    def __init__(
        self,
        model: str = "gemini-embedding-001",
        *,
        dim: int = 768,
        task_type: str = "RETRIEVAL_DOCUMENT",
        query_task_type: str = "RETRIEVAL_QUERY",
        client: Any | None = None,
        batch_size: int = 100,
    ) -> None:
        if dim <= 0:
            raise EmbedderError(f"dim must be positive, got {dim}")
        if batch_size <= 0:
            raise EmbedderError(f"batch_size must be positive, got {batch_size}")
        self._model = model
        self._dim = dim
        self._task_type = task_type
        self._query_task_type = query_task_type
        self._client = client
        self._batch_size = batch_size

    @property
    def model_id(self) -> str:
        return f"gemini:{self._model}"

    @property
    def dim(self) -> int:
        return self._dim

    def build_request(
        self, texts: Sequence[str], *, task_type: str | None = None
    ) -> dict[str, Any]:
        """The keyword arguments passed to ``embed_content`` for one batch."""
        from google.genai import types

        return {
            "model": self._model,
            "contents": list(texts),
            "config": types.EmbedContentConfig(
                task_type=task_type or self._task_type, output_dimensionality=self._dim
            ),
        }

    def _get_client(self) -> Any:
        if self._client is None:
            from google import genai

            self._client = genai.Client()
        return self._client

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed texts to store (``task_type``, by default ``RETRIEVAL_DOCUMENT``)."""
        return await self._embed(texts, self._task_type)

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed search queries (``query_task_type``, by default ``RETRIEVAL_QUERY``)."""
        return await self._embed(texts, self._query_task_type)

    async def _embed(self, texts: Sequence[str], task_type: str) -> list[list[float]]:
        texts = list(texts)
        if not texts:
            return []
        vectors: list[list[float]] = []
        client = self._get_client()
        for start in range(0, len(texts), self._batch_size):
            batch = texts[start : start + self._batch_size]
            request = self.build_request(batch, task_type=task_type)
            try:
                response = await client.aio.models.embed_content(**request)
            except Exception as exc:
                raise EmbedderError(f"Gemini embedding call failed: {exc}") from exc
            embeddings = list(response.embeddings or [])
            if len(embeddings) != len(batch):  # per batch, so vectors never shift to other texts
                raise EmbedderError(
                    f"Gemini returned {len(embeddings)} vectors for {len(batch)} texts"
                )
            for emb in embeddings:
                values = list(emb.values or [])
                if len(values) != self._dim:
                    raise EmbedderError(
                        f"Gemini returned {len(values)} dimensions, expected {self._dim}"
                    )
                vectors.append(values)
        return vectors
