"""Listing a user's memories without a query, exporting them, and editing type, tags and
importance as a correction (``memory/browse.py``, ``correct_memory``)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.browse import export_memories, list_memories

pytestmark = pytest.mark.slow


def _entry(text: str, when: datetime, **meta) -> MemoryEntry:
    return MemoryEntry(
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        author="user",
        timestamp=when.isoformat(),
        custom_metadata=meta,
    )


def _texts(page) -> list[str]:
    return [e.content.parts[0].text for e in page.items]


@pytest.fixture
async def stocked(memory):
    app = f"browse-{uuid.uuid4().hex[:6]}"
    now = datetime.now(timezone.utc)
    facts = [
        ("Ines rides a blue bicycle.", 5, 0.2, "fact", ["sport"]),
        ("Ines prefers green tea.", 3, 0.9, "preference", ["food"]),
        ("Ines lives in Porto.", 1, 0.6, "fact", ["home"]),
    ]
    await memory.add_memory(
        app_name=app,
        user_id="ines",
        memories=[
            _entry(t, now - timedelta(days=d), importance=i, memory_type=k, tags=g)
            for t, d, i, k, g in facts
        ],
    )
    await memory.add_memory(
        app_name=app, user_id="other", memories=[_entry("Other user's fact.", now)]
    )
    return app


async def test_list_sorts_filters_pages_and_stays_in_scope(memory, stocked):
    page = await list_memories(memory.store, app_name=stocked, user_id="ines")
    assert _texts(page) == [
        "Ines lives in Porto.",
        "Ines prefers green tea.",
        "Ines rides a blue bicycle.",
    ]
    assert page.total == 3 and not page.has_next
    by_importance = await list_memories(
        memory.store, app_name=stocked, user_id="ines", sort="importance", descending=False
    )
    assert _texts(by_importance)[0] == "Ines rides a blue bicycle."
    first = await list_memories(memory.store, app_name=stocked, user_id="ines", limit=2)
    second = await list_memories(memory.store, app_name=stocked, user_id="ines", limit=2, offset=2)
    assert first.has_next and _texts(first) + _texts(second) == _texts(page)
    prefs = await list_memories(
        memory.store, app_name=stocked, user_id="ines", types=["preference"]
    )
    assert _texts(prefs) == ["Ines prefers green tea."]
    tagged = await list_memories(
        memory.store, app_name=stocked, user_id="ines", tags=["home", "sport"]
    )
    assert sorted(_texts(tagged)) == ["Ines lives in Porto.", "Ines rides a blue bicycle."]
    found = await list_memories(memory.store, app_name=stocked, user_id="ines", contains="PORTO")
    assert _texts(found) == ["Ines lives in Porto."]
    for bad in ({"sort": "random"}, {"state": "deleted"}, {"limit": 0}, {"offset": -1}):
        with pytest.raises(InvalidInputError):
            await list_memories(memory.store, app_name=stocked, user_id="ines", **bad)


async def test_edit_type_tags_importance_keeps_the_old_version(memory, stocked):
    (tea,) = (
        await list_memories(memory.store, app_name=stocked, user_id="ines", contains="tea")
    ).items
    fixed = await memory.curator.correct_memory(
        app_name=stocked,
        user_id="ines",
        memory_id=tea.id,
        reason="a standing habit",
        by="ops",
        memory_type="fact",
        tags=["drinks"],
        importance=0.4,
    )
    (now,) = (
        await list_memories(memory.store, app_name=stocked, user_id="ines", contains="tea")
    ).items
    meta = now.custom_metadata
    assert now.id == fixed.new_id and now.content.parts[0].text == "Ines prefers green tea."
    assert (meta["memory_type"], meta["tags"], meta["importance"]) == ("fact", ["drinks"], 0.4)
    old = await list_memories(
        memory.store, app_name=stocked, user_id="ines", contains="tea", state="superseded"
    )
    assert [e.id for e in old.items] == [tea.id]
    assert old.items[0].custom_metadata["superseded_reason"] == "a standing habit"
    with pytest.raises(InvalidInputError):
        await memory.curator.correct_memory(
            app_name=stocked, user_id="ines", memory_id=now.id, reason="nothing to change"
        )
    with pytest.raises(InvalidInputError):
        await memory.curator.correct_memory(
            app_name=stocked, user_id="ines", memory_id=now.id, reason="x", importance=1.5
        )


async def test_export_holds_every_row_of_the_user_only(memory, stocked):
    rows = await export_memories(memory.store, app_name=stocked, user_id="ines")
    assert {r["text"] for r in rows} == {
        "Ines rides a blue bicycle.",
        "Ines prefers green tea.",
        "Ines lives in Porto.",
    }
    assert all("embedding" not in r and "search_text" not in r for r in rows)
    assert all(isinstance(r["event_time"], str) for r in rows)
