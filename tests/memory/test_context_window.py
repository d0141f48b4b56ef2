"""The full-text context window: two turns either side of a turn by default (docs/locomo.md).

A reply is often two turns away from the question it answers (question, clarification,
answer); the window puts that question into the answer's low-weight full-text context, never
into its stored or embedded text."""

from __future__ import annotations

import pytest

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.memory import IndexingOptions
from adk_memory_kit.memory.documents import documents_from_events
from tests.support.memory import session_with, stored_rows, unique

TURNS = [
    ("user", "Could you recommend a bakery in Porto for tomorrow morning?"),
    ("model", "Sure, do you prefer sweet or savoury things?"),
    ("user", "Sweet, and it has to open early."),
    ("model", "Manteigaria opens at eight and its custard tarts are famous."),
    ("user", "Perfect, I will go there."),
    ("model", "Enjoy the tarts and the walk along the river."),
]


def test_a_turn_is_indexed_with_two_turns_either_side_by_default():
    session = session_with("a", "u", TURNS)
    docs = documents_from_events("a", "u", session.id, session.events, IndexingOptions())
    middle = docs[2]
    for n in (0, 1, 3, 4):
        assert TURNS[n][1] in middle.context_text
    assert TURNS[5][1] not in middle.context_text  # three turns away
    assert middle.text == TURNS[2][1]
    assert "Porto" not in middle.embed_text  # the context is not embedded by default
    first, last = docs[0], docs[5]
    assert TURNS[2][1] in first.context_text and TURNS[3][1] not in first.context_text
    assert TURNS[3][1] in last.context_text and TURNS[2][1] not in last.context_text


def test_the_window_is_configurable():
    session = session_with("a", "u", TURNS)
    narrow = IndexingOptions(context_turns=1, context_turns_after=1)
    docs = documents_from_events("a", "u", session.id, session.events, narrow)
    assert TURNS[0][1] not in docs[2].context_text
    assert TURNS[1][1] in docs[2].context_text and TURNS[3][1] in docs[2].context_text
    none = IndexingOptions(context_turns=0, context_turns_after=0, index_date=False)
    assert [d.context_text for d in documents_from_events("a", "u", "s", session.events, none)] == [
        ""
    ] * len(TURNS)


@pytest.mark.slow
async def test_the_service_stores_the_question_two_turns_before_as_the_answers_context(
    db_url, embedder
):
    service = PgVectorMemoryService.from_url(
        db_url, embedder=embedder, write_policy="full_transcript"
    )
    app, user = unique("app"), unique("u")
    try:
        await service.add_session_to_memory(session_with(app, user, TURNS[:3]))
        rows = await stored_rows(service, app, user)
        context = {r["text"]: r["context_text"] for r in rows}
        answer = context[TURNS[2][1]]
        assert "bakery in Porto" in answer
        assert "bakery" not in TURNS[2][1] + TURNS[1][1]
        found = await service.search_memory(app_name=app, user_id=user, query="bakery Porto")
        assert TURNS[2][1] in [m.content.parts[0].text for m in found.memories]
    finally:
        await service.close()
