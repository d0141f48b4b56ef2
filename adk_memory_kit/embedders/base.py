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


def embedder_name(embedder: object) -> str:
    """``ClassName (model 'id')``: how error messages name an embedder."""
    try:
        model = f" (model {embedder.model_id!r})"  # type: ignore[attr-defined]
    except Exception:
        model = ""
    return f"{type(embedder).__name__}{model}"


async def checked_embed(
    embedder: Embedder, texts: Sequence[str], *, queries: bool = False
) -> list[list[float]]:
    """Embed ``texts`` (as search queries when ``queries``) and check what came back.

    Raises :class:`~adk_memory_kit.errors.EmbedderError` naming the embedder (never the
    texts) when the embedder raises, or returns anything but one vector of ``dim`` finite
    numbers per text, so a broken embedder never writes a bad vector or fails inside SQL.
    """
    from adk_memory_kit.errors import EmbedderError, MemoryKitError

    if not texts:
        return []  # nothing to embed: the embedder is not called
    name = embedder_name(embedder)
    try:
        vectors = await (embed_queries(embedder, texts) if queries else embedder.embed(texts))
    except MemoryKitError as exc:
        if isinstance(exc, EmbedderError):
            raise
        raise EmbedderError(f"embedder {name} failed: {exc}") from exc
    except Exception as exc:
        raise EmbedderError(
            f"embedder {name} raised {type(exc).__name__} while embedding {len(texts)} "
            "text(s); check the model and its credentials"
        ) from exc
    import numpy as np

    try:
        dim = int(embedder.dim)
        count = len(vectors)
    except Exception as exc:
        kind = type(vectors).__name__
        raise EmbedderError(f"embedder {name} returned {kind}, not vectors") from exc
    if count != len(texts):
        raise EmbedderError(f"embedder {name} returned {count} vectors for {len(texts)} texts")
    if not count:
        return []
    try:
        matrix = np.asarray([np.asarray(v, dtype=np.float64) for v in vectors])
    except Exception as exc:
        raise EmbedderError(f"embedder {name} returned vectors that are not numbers") from exc
    if matrix.ndim != 2 or matrix.shape[1] != dim:
        raise EmbedderError(
            f"embedder {name} returned vectors of shape {matrix.shape}; it declares dim={dim}"
        )
    if not np.isfinite(matrix).all():
        raise EmbedderError(f"embedder {name} returned NaN, infinity or None in a vector")
    return list(vectors)
