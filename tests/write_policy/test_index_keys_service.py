"""Index-only keys through the real default (routed) service: a left-out question finds its
answer, is never returned, and turning the option off indexes as before. Real Postgres, real
MiniLM embedder."""

from __future__ import annotations

import pytest

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.memory import IndexingOptions
from tests.support.memory import session_with, stored_rows, texts, unique

pytestmark = pytest.mark.slow  # Postgres-heavy

TURNS = [
    ("user", "Hey there! How did the glassblowing workshop go?"),
    ("agent", "Thanks for asking, I finished a small green vase on Saturday."),
    ("user", "Lovely. Which museum would you suggest for a rainy afternoon?"),
    ("agent", "The Rijksmuseum: book the 2 pm slot online to skip the queue."),
    ("user", "My card number is 4111 1111 1111 1111, can you keep it?"),
    ("agent", "I will not store card numbers."),
]


async def test_a_left_out_question_finds_its_answer_and_is_never_returned(db_url, embedder):
    app, user = unique("app"), unique("u")
    session = session_with(app, user, TURNS)
    async with PgVectorMemoryService(db_url, embedder=embedder) as service:  # defaults: ROUTED
        await service.add_session_to_memory(session)
        rows = await stored_rows(service, app, user)
        stored = " ".join(r["text"] for r in rows)
        assert "glassblowing" not in stored  # the question is not stored ...
        vase = next(r for r in rows if "green vase" in r["text"])
        assert "glassblowing workshop" in vase["context_text"]  # ... but indexes its answer
        assert all("4111" not in r["context_text"] + r["text"] for r in rows)
        found = await service.search_memory(app_name=app, user_id=user, query="glassblowing")
        assert any("green vase" in t for t in texts(found))
        assert all("glassblowing" not in t for t in texts(found))
        # re-ingesting the same session rewrites nothing
        again = await service.add_session_to_memory(session)
        assert again.rows_written == 0

    off = IndexingOptions(index_left_out=False)
    async with PgVectorMemoryService.from_url(db_url, embedder=embedder, indexing=off) as service:
        await service.add_session_to_memory(session)
        rows = await stored_rows(service, app, user)
        assert all("glassblowing" not in r["context_text"] for r in rows)
        found = await service.search_memory(app_name=app, user_id=user, query="glassblowing")
        assert not any("green vase" in t for t in texts(found))


async def test_the_word_user_in_a_query_does_not_match_every_user_turn(db_url, embedder):
    """ADK names every user turn's author ``user``: indexing that label would make every user
    turn a full-text match (and pass the relevance floor) for "what does the user ...?"."""
    app, user = unique("app"), unique("u")
    home = [
        ("user", "I adopted a beagle puppy called Biscuit last spring."),
        ("user", "Our kitchen renovation finally finished, new oak cabinets everywhere."),
    ]
    travel = [("user", "I commute on the 7:40 regional train to Utrecht every weekday.")]
    async with PgVectorMemoryService(db_url, embedder=embedder) as service:
        await service.add_session_to_memory(session_with(app, user, home))
        await service.add_session_to_memory(session_with(app, user, travel))
        found = texts(
            await service.search_memory(
                app_name=app, user_id=user, query="Which train does the user take?"
            )
        )
        assert any("regional train" in t for t in found)
        assert not any("beagle" in t or "kitchen" in t for t in found)
        # a named author is still an index key (LoCoMo-style "What did Caroline say?")
        named = session_with(app, user, [("Caroline", "The bakery opens at six.")])
        await service.add_session_to_memory(named)
        found = texts(await service.search_memory(app_name=app, user_id=user, query="Caroline"))
        assert found == ["The bakery opens at six."]
