"""Embedders offline: GeminiEmbedder against a fake client, and the optional embed_query."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from adk_memory_kit.embedders import Embedder, GeminiEmbedder
from adk_memory_kit.embedders.base import embed_queries
from adk_memory_kit.errors import EmbedderError


class FakeModels:
    """Stands in for ``client.aio.models``: records calls, answers with tagged vectors."""

    def __init__(self, dim: int, *, drop: int = 0, dims: int | None = None, fail: bool = False):
        self.dim, self.drop, self.dims, self.fail = dim, drop, dims, fail
        self.calls: list[dict] = []

    async def embed_content(self, *, model, contents, config):
        self.calls.append({"model": model, "contents": list(contents), "config": config})
        if self.fail:
            raise RuntimeError("quota exceeded")
        size = self.dims or self.dim
        # each vector starts with the text's length, so the order can be checked
        answer = [[float(len(text))] + [0.5] * (size - 1) for text in contents]
        return SimpleNamespace(
            embeddings=[SimpleNamespace(values=v) for v in answer[: len(answer) - self.drop]]
        )


def gemini(models: FakeModels, **kw) -> GeminiEmbedder:
    client = SimpleNamespace(aio=SimpleNamespace(models=models))
    return GeminiEmbedder("gemini-embedding-001", dim=models.dim, client=client, **kw)


async def test_gemini_batches_in_order_with_fixed_dimension_and_document_task_type():
    models = FakeModels(dim=4)
    texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    vectors = await gemini(models, batch_size=2).embed(texts)
    assert [len(c["contents"]) for c in models.calls] == [2, 2, 1]
    assert [c["contents"] for c in models.calls] == [["a", "bb"], ["ccc", "dddd"], ["eeeee"]]
    assert [v[0] for v in vectors] == [1.0, 2.0, 3.0, 4.0, 5.0]
    assert all(len(v) == 4 for v in vectors)
    for call in models.calls:
        assert call["model"] == "gemini-embedding-001"
        assert call["config"].task_type == "RETRIEVAL_DOCUMENT"
        assert call["config"].output_dimensionality == 4


async def test_gemini_embeds_queries_with_the_query_task_type():
    models = FakeModels(dim=3)
    embedder = gemini(models)
    (vector,) = await embedder.embed_query(["where did I park?"])
    assert vector[0] == len("where did I park?")
    assert models.calls[-1]["config"].task_type == "RETRIEVAL_QUERY"
    await embed_queries(embedder, ["via the helper"])
    assert models.calls[-1]["config"].task_type == "RETRIEVAL_QUERY"
    await embedder.embed(["a stored text"])
    assert models.calls[-1]["config"].task_type == "RETRIEVAL_DOCUMENT"
    custom = gemini(FakeModels(dim=3), task_type="SEMANTIC_SIMILARITY", query_task_type="QA")
    await custom.embed_query(["q"])
    await custom.embed(["d"])
    assert [c["config"].task_type for c in custom._client.aio.models.calls] == [
        "QA",
        "SEMANTIC_SIMILARITY",
    ]


async def test_gemini_refuses_a_wrong_dimension():
    with pytest.raises(EmbedderError, match="3 dimensions, expected 4"):
        await gemini(FakeModels(dim=4, dims=3)).embed(["x"])


async def test_gemini_refuses_a_wrong_vector_count_per_batch():
    with pytest.raises(EmbedderError, match="1 vectors for 2 texts"):
        await gemini(FakeModels(dim=2, drop=1), batch_size=2).embed(["a", "b", "c"])
    with pytest.raises(EmbedderError, match="0 vectors for 1 texts"):
        await gemini(FakeModels(dim=2, drop=1)).embed_query(["a"])


async def test_gemini_wraps_api_errors_and_skips_empty_input():
    with pytest.raises(EmbedderError, match="quota exceeded"):
        await gemini(FakeModels(dim=2, fail=True)).embed(["a"])
    models = FakeModels(dim=2)
    assert await gemini(models).embed([]) == []
    assert await gemini(models).embed_query([]) == []
    assert models.calls == []


def test_gemini_rejects_bad_settings():
    with pytest.raises(EmbedderError, match="dim"):
        GeminiEmbedder(dim=0, client=object())
    with pytest.raises(EmbedderError, match="batch_size"):
        GeminiEmbedder(batch_size=0, client=object())


class EmbedOnly:
    """The protocol's required surface: model_id, dim and embed."""

    model_id, dim = "embed-only", 2

    def __init__(self):
        self.calls = 0

    async def embed(self, texts):
        self.calls += 1
        return [[1.0, 0.0] for _ in texts]


async def test_embed_query_is_optional():
    plain = EmbedOnly()
    assert isinstance(plain, Embedder)
    assert isinstance(gemini(FakeModels(dim=2)), Embedder)
    assert await embed_queries(plain, ["q"]) == [[1.0, 0.0]]
    assert plain.calls == 1


async def test_local_embedder_embeds_queries_like_documents(embedder):
    texts = ["where is the Pune office?"]
    assert await embedder.embed_query(texts) == await embedder.embed(texts)
