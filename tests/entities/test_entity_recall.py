"""Entities through the real service and database (issue 48): a second hop found only
through a shared entity, and the entity table kept with every write and forget."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import text as sql

from adk_memory_kit import PgVectorMemoryService, SearchOptions
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.memory.entities import ENTITIES
from tests.support.memory import texts, unique

pytestmark = pytest.mark.slow

START = datetime(2025, 3, 1, tzinfo=timezone.utc)
APPOSITION = "Mette, my charge nurse, got me into running this spring."
SECOND_HOP = "My charge nurse entered the Copenhagen half marathon in October."
OTHERS = [
    "I bought a new kettle for the flat.",
    "The bakery on Nørrebrogade sells the best cardamom buns.",
    "My brother Anders is moving to Malmö.",
    "I started a pottery class on Thursday evenings.",
    "The ferry to Nólsoy was cancelled because of the storm.",
    "I repainted the hallway a pale green.",
]
QUESTION = "What is Mette preparing for?"


def _entry(text: str, days: int) -> MemoryEntry:
    return MemoryEntry(
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        author="user",
        timestamp=(START + timedelta(days=days)).isoformat(),
    )


async def _entities(service: PgVectorMemoryService, app: str, user: str) -> dict[str, int]:
    async with operator_connect(service.engine) as conn:
        found = await conn.execute(
            sql(f"SELECT entity, rows FROM {ENTITIES} WHERE app_name = :a AND user_id = :u"),
            {"a": app, "u": user},
        )
        return {r.entity: int(r.rows) for r in found}


@pytest.fixture(params=[True, False], ids=["adds-only", "reorders"])
async def services(request, db_url, embedder):
    on = PgVectorMemoryService.from_url(
        db_url,
        embedder=embedder,
        search=SearchOptions(entity_weight=0.5, entity_adds_only=request.param),
    )
    off = PgVectorMemoryService.from_url(db_url, embedder=embedder)  # the default: off
    yield on, off
    await on.close()
    await off.close()


async def test_a_two_hop_question_is_answered_through_a_shared_entity(services):
    """The question names Mette; the memory holding the answer never does, and shares no
    word with the question: only "Mette, my charge nurse" links the two."""
    on, off = services
    app, user = unique("ent"), unique("u")
    entries = [_entry(APPOSITION, 0), _entry(SECOND_HOP, 40)]
    entries += [_entry(t, 5 + i) for i, t in enumerate(OTHERS)]
    await on.add_memory(app_name=app, user_id=user, memories=entries)

    without = texts(await off.search_memory(app_name=app, user_id=user, query=QUESTION))
    assert APPOSITION in without
    assert SECOND_HOP not in without  # the first pass alone cannot reach it

    found = texts(await on.search_memory(app_name=app, user_id=user, query=QUESTION))
    assert APPOSITION in found
    assert SECOND_HOP in found


async def test_another_users_entities_link_nothing(services):
    on, _ = services
    app, alice, bob = unique("ent"), unique("u"), unique("u")
    await on.add_memory(app_name=app, user_id=alice, memories=[_entry(APPOSITION, 0)])
    await on.add_memory(
        app_name=app,
        user_id=bob,
        memories=[_entry(SECOND_HOP, 1), _entry(OTHERS[0], 2), _entry(OTHERS[1], 3)],
    )
    found = texts(await on.search_memory(app_name=app, user_id=bob, query=QUESTION))
    assert APPOSITION not in found and SECOND_HOP not in found


async def test_entity_rows_follow_every_write_and_are_gone_after_a_forget(services):
    on, _ = services
    app, user = unique("ent"), unique("u")
    await on.add_memory(
        app_name=app, user_id=user, memories=[_entry(APPOSITION, 0), _entry(SECOND_HOP, 1)]
    )
    counts = await _entities(on, app, user)
    assert counts["r:me:nurse"] == 2
    assert counts["n:mette"] == 1 and counts["a:mette=r:me:nurse"] == 1
    assert counts["n:copenhagen"] == 1

    hit = await on.search_memory(app_name=app, user_id=user, query="Copenhagen marathon")
    second = next(m for m in hit.memories if SECOND_HOP in texts_of(m))
    assert await on.delete_memory(app_name=app, user_id=user, memory_id=second.id) == 1
    counts = await _entities(on, app, user)
    assert "n:copenhagen" not in counts  # its last row is gone
    assert counts["r:me:nurse"] == 1  # still named by the other row

    await on.delete_user_memories(app_name=app, user_id=user)
    assert await _entities(on, app, user) == {}


def texts_of(entry: MemoryEntry) -> str:
    return " ".join(p.text or "" for p in (entry.content.parts or []))


async def test_a_redacted_secret_never_becomes_an_entity(services):
    on, _ = services
    app, user = unique("ent"), unique("u")
    secret = "sk_live_" + "51H8cQ2eZvKYlo2C9x7Ttq0pLmNb"
    await on.add_memory(
        app_name=app, user_id=user, memories=[_entry(f"My Stripe key is {secret} for Acme.", 0)]
    )
    keys = " ".join(await _entities(on, app, user))
    assert secret.lower() not in keys and "51h8" not in keys


async def test_an_export_carries_each_rows_entities(services):
    from adk_memory_kit.memory.browse import export_memories

    on, _ = services
    app, user = unique("ent"), unique("u")
    await on.add_memory(app_name=app, user_id=user, memories=[_entry(APPOSITION, 0)])
    (row,) = await export_memories(on.store, app_name=app, user_id=user)
    assert set(row["entities"]) == {
        "n:mette",
        "r:me:nurse",
        "a:mette=r:me:nurse",
        "b:r:me:nurse=mette",
    }
