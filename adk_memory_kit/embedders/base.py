"""The embedder contract the memory service depends on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into fixed-size vectors. ``model_id`` and ``dim`` are recorded in the schema.

    Optional: ``async def embed_query(texts) -> list[list[float]]``. Models that embed a
    search query differently from a stored document (asymmetric retrieval, e.g. Gemini's
    ``RETRIEVAL_QUERY`` vs ``RETRIEVAL_DOCUMENT`` task types) implement it, and
    ``search_memory`` uses it for the query; without it the query goes through ``embed``.
    It is not part of the protocol, so an embedder with only ``embed`` still satisfies it.
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dim(self) -> int: ...

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed a batch of texts; returns one vector of length ``dim`` per text."""
        ...


async def embed_queries(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """Embed search queries: ``embedder.embed_query`` when it has one, else ``embed``."""
    embed_query = getattr(embedder, "embed_query", None)
    if callable(embed_query):
        return await embed_query(texts)
    return await embedder.embed(texts)
