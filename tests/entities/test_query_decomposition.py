"""The optional query decomposer (issue 48): a scripted model's sub-questions are searched
and fused with the question's own search; a failing model changes nothing."""

from __future__ import annotations

import json
import logging

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit import PgVectorMemoryService, QueryDecomposer, SearchOptions
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.query_decomposition import fuse_searches
from adk_memory_kit.testing.llm import ScriptedLlm
from tests.support.memory import texts, unique

HENS = "Sólrun gave me three hens in the spring."
GREW_UP = "Sólrun grew up on a farm outside Klaksvík."
OTHERS = [
    "The ferry was cancelled because of the storm.",
    "I repainted the kitchen a pale green.",
    "My knee is stiffer in the cold weather.",
]
QUESTION = "Where did the woman who gave me hens grow up?"


def _entry(text: str) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=text)]))


def test_fused_searches_rank_by_reciprocal_rank():
    a = [{"id": 1, "score": 9.0}, {"id": 2, "score": 8.0}]
    b = [{"id": 3, "score": 1.0}, {"id": 1, "score": 0.5}]
    fused = fuse_searches([a, b], limit=10, rrf_k=20)
    assert [r["id"] for r in fused] == [1, 2, 3]
    assert fuse_searches([a, b], limit=1, rrf_k=20)[0]["id"] == 1


def test_max_parts_is_checked():
    with pytest.raises(InvalidInputError):
        QueryDecomposer(ScriptedLlm(), max_parts=0)


async def test_parts_are_deduplicated_and_capped():
    answer = {"questions": ["Who gave me hens?", "who gave me  hens?", QUESTION, "A?", "B?"]}
    decomposer = QueryDecomposer(ScriptedLlm(turns=[json.dumps(answer)]), max_parts=2)
    assert await decomposer.parts(QUESTION) == ["Who gave me hens?", "A?"]


async def test_a_model_answer_outside_the_schema_is_no_decomposition(caplog):
    decomposer = QueryDecomposer(ScriptedLlm(turns=["not json at all " + QUESTION]))
    with caplog.at_level(logging.WARNING):
        assert await decomposer.parts(QUESTION) == []
    assert decomposer.failures == 1
    assert "hens" not in caplog.text  # no user text in the log


@pytest.mark.slow
async def test_a_decomposed_question_finds_both_hops(db_url, embedder):
    model = ScriptedLlm(
        responder=lambda _: json.dumps(
            {"questions": ["Who gave me hens?", "Where did Sólrun grow up?"]}
        )
    )
    plain_options = SearchOptions(entity_weight=0.0)
    plain = PgVectorMemoryService.from_url(db_url, embedder=embedder, search=plain_options)
    decomposing = PgVectorMemoryService.from_url(
        db_url, embedder=embedder, search=plain_options, query_decomposer=QueryDecomposer(model)
    )
    app, user = unique("qd"), unique("u")
    try:
        await plain.add_memory(
            app_name=app, user_id=user, memories=[_entry(t) for t in [HENS, GREW_UP, *OTHERS]]
        )
        alone = texts(await plain.search_memory(app_name=app, user_id=user, query=QUESTION))
        assert GREW_UP not in alone  # the second hop shares nothing with the question
        found = texts(await decomposing.search_memory(app_name=app, user_id=user, query=QUESTION))
        assert HENS in found and GREW_UP in found
        assert len(model.requests) == 1
        request_text = model.requests[0].contents[0].parts[0].text
        assert request_text == QUESTION  # the model sees the question, no stored memory
    finally:
        await plain.close()
        await decomposing.close()
