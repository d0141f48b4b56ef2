"""The embedder contract the memory service depends on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into fixed-size vectors. ``model_id`` and ``dim`` are recorded in the schema.

    Optional: :class:`QueryEmbedder` (``embed_query``) for models that embed a search query
    differently from a stored document.
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed a batch of texts; returns one vector of length ``dim`` per text."""
        ...


@runtime_checkable
class QueryEmbedder(Protocol):
    """An embedder that embeds search queries its own way (asymmetric retrieval).

    E.g. Gemini's ``RETRIEVAL_QUERY`` vs ``RETRIEVAL_DOCUMENT`` task types: ``search_memory``
    embeds the query with ``embed_query``; an embedder without it has the query go through
    ``embed``.
    """

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed a batch of search queries; one vector of length ``dim`` per text."""
        ...


async def embed_queries(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """Embed search queries: ``embed_query`` for a :class:`QueryEmbedder`, else ``embed``."""
    if isinstance(embedder, QueryEmbedder):
        return await embedder.embed_query(texts)
    return await embedder.embed(texts)
