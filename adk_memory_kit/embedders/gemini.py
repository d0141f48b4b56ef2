"""A production embedder on Google's Gemini embedding API (``google-genai``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adk_memory_kit.errors import EmbedderError


class GeminiEmbedder:
    """Embeds with ``client.aio.models.embed_content``; needs ``GOOGLE_API_KEY`` or Vertex AI.

    ``dim`` is sent as ``output_dimensionality`` so the stored vectors have a fixed size.
    """

    def __init__(
        self,
        model: str = "gemini-embedding-001",
        *,
        dim: int = 768,
        task_type: str = "RETRIEVAL_DOCUMENT",
        client: Any | None = None,
        batch_size: int = 100,
    ) -> None:
        if dim <= 0:
            raise EmbedderError(f"dim must be positive, got {dim}")
        self._model = model
        self._dim = dim
        self._task_type = task_type
        self._client = client
        self._batch_size = batch_size

    @property
    def model_id(self) -> str:
        return f"gemini:{self._model}"

    @property
    def dim(self) -> int:
        return self._dim

    def build_request(self, texts: Sequence[str]) -> dict[str, Any]:
        """The keyword arguments passed to ``embed_content`` for one batch."""
        from google.genai import types

        return {
            "model": self._model,
            "contents": list(texts),
            "config": types.EmbedContentConfig(
                task_type=self._task_type, output_dimensionality=self._dim
            ),
        }

    def _get_client(self) -> Any:
        if self._client is None:
            from google import genai

            self._client = genai.Client()
        return self._client

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        vectors: list[list[float]] = []
        client = self._get_client()
        for start in range(0, len(texts), self._batch_size):
            batch = texts[start : start + self._batch_size]
            try:
                response = await client.aio.models.embed_content(**self.build_request(batch))
            except Exception as exc:
                raise EmbedderError(f"Gemini embedding call failed: {exc}") from exc
            for emb in response.embeddings or []:
                values = list(emb.values or [])
                if len(values) != self._dim:
                    raise EmbedderError(
                        f"Gemini returned {len(values)} dimensions, expected {self._dim}"
                    )
                vectors.append(values)
        if len(vectors) != len(texts):
            raise EmbedderError(f"Gemini returned {len(vectors)} vectors for {len(texts)} texts")
        return vectors
