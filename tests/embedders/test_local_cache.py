"""The local MiniLM embedder's vector cache and length-sorted batching (real model)."""

from __future__ import annotations

import numpy as np
import pytest

from adk_memory_kit.embedders import LocalMiniLMEmbedder
from adk_memory_kit.embedders.cache import EmbeddingCache
from adk_memory_kit.errors import InvalidInputError

TEXTS = [
    "My sister lives in Ghent.",
    "A much longer sentence about the allotment, the tomatoes and the shed by the river.",
    "",
    "Short.",
    "My sister lives in Ghent.",
]


async def test_cached_and_batched_vectors_equal_one_text_at_a_time():
    uncached = LocalMiniLMEmbedder(cache=False)
    alone = np.array([uncached.embed_sync([t])[0] for t in TEXTS])
    cached = LocalMiniLMEmbedder(batch_size=2)
    cached.cache.clear()
    first = np.array(await cached.embed(TEXTS))
    assert cached.cache.misses == len(TEXTS) and len(cached.cache) == len(set(TEXTS))
    second = np.array(await cached.embed(list(reversed(TEXTS))))
    assert cached.cache.hits == len(TEXTS)
    np.testing.assert_allclose(first, alone, atol=1e-5)
    np.testing.assert_array_equal(second, first[::-1])
    assert np.allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)


def test_the_cache_is_bounded_and_evicts_the_least_recently_used():
    cache = EmbeddingCache(2)
    cache.put_many([("a", np.ones(3)), ("b", np.zeros(3))])
    assert cache.get_many(["a"])[0] is not None  # "a" is now the most recent
    cache.put_many([("c", np.ones(3))])
    assert [v is not None for v in cache.get_many(["a", "b", "c"])] == [True, False, True]
    assert len(cache) == 2
    off = EmbeddingCache(0)
    off.put_many([("a", np.ones(3))])
    assert len(off) == 0


def test_bad_arguments_are_named():
    with pytest.raises(InvalidInputError, match="max_tokens"):
        LocalMiniLMEmbedder(max_tokens=0)
    with pytest.raises(InvalidInputError, match="batch_size"):
        LocalMiniLMEmbedder(batch_size=0)
