"""LlmConsolidator: the model decides with a strict output schema (ScriptedLlm stands in for
the model); an answer outside the schema falls back to the rule, counted."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.memory import ConsolidationDecision, LlmConsolidator
from adk_memory_kit.testing import ScriptedLlm, last_user_text
from tests.support.memory import unique

pytestmark = pytest.mark.slow


def entry(words: str, day: int, **meta) -> MemoryEntry:
    return MemoryEntry(
        author="user",
        timestamp=datetime(2026, 3, day, tzinfo=timezone.utc).isoformat(),
        content=types.Content(role="user", parts=[types.Part(text=words)]),
        custom_metadata=meta,
    )


def stored_ids(request) -> list[str]:
    body = last_user_text(request)
    stored = body.split("<STORED>\n", 1)[1].split("\n</STORED>", 1)[0]
    return [s["id"] for s in json.loads(stored)]


async def test_the_model_decides_noop_with_the_strict_schema(db_url, embedder):
    def noop(request):
        assert request.config.response_schema is ConsolidationDecision
        return json.dumps({"action": "NOOP", "target_id": stored_ids(request)[0], "reason": "dup"})

    model = ScriptedLlm(responder=noop)
    consolidator = LlmConsolidator(model)
    service = PgVectorMemoryService.from_url(db_url, embedder=embedder, consolidator=consolidator)
    app, user = unique("app"), unique("u")
    try:
        first = await service.add_memory(
            app_name=app, user_id=user, memories=[entry("The user drinks oat milk", 1)]
        )
        assert first.outcomes[0].outcome == "ADD" and not model.requests  # nothing near: no call
        again = await service.add_memory(
            app_name=app, user_id=user, memories=[entry("Oat milk is what the user takes", 2)]
        )
        assert again.outcomes[0].outcome == "NOOP"
        assert again.outcomes[0].memory_id == first.outcomes[0].memory_id
        assert len(model.requests) == 1 and "<NEW>" in last_user_text(model.requests[0])
        assert await service.count_memories(app_name=app, user_id=user) == {"fact": 1}
        assert consolidator.fallbacks == 0
    finally:
        await service.close()


@pytest.mark.parametrize(
    "answer",
    [
        "not json",
        json.dumps({"action": "MERGE", "target_id": None}),
        json.dumps({"action": "NOOP", "target_id": "not-a-stored-id"}),
        json.dumps({"action": "ADD", "extra": 1}),
    ],
)
async def test_an_answer_outside_the_schema_falls_back_to_the_rule(db_url, embedder, answer):
    consolidator = LlmConsolidator(ScriptedLlm(responder=lambda _: answer))
    service = PgVectorMemoryService.from_url(db_url, embedder=embedder, consolidator=consolidator)
    app, user = unique("app"), unique("u")
    try:
        await service.add_memory(
            app_name=app, user_id=user, memories=[entry("Bike: a Brompton", 1, subject="bike")]
        )
        report = await service.add_memory(
            app_name=app, user_id=user, memories=[entry("Bike: a Brompton", 2, subject="bike")]
        )
        assert report.outcomes[0].outcome == "NOOP"  # the rule's answer
        assert consolidator.fallbacks == 1
    finally:
        await service.close()
