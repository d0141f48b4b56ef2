"""A correction's new memory is found by what found the memory it replaced: the old text is an
index key of the new row (embedded and low-weight full text), never its stored text."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.memory.documents import REPLACED_TEXT_KEY
from tests.support.memory import unique

pytestmark = pytest.mark.slow


def said(response) -> list[str]:
    return [m.content.parts[0].text for m in response.memories]


@pytest.fixture(scope="module")
async def service(db_url, embedder, test_partitions):
    memory = PgVectorMemoryService.from_url(
        db_url, embedder=embedder, storage={"partitions": test_partitions}, access_flush_delay=60
    )
    yield memory
    await memory.close()


async def test_the_replacement_answers_what_the_old_memory_answered(service):
    app, user = unique("app"), unique("u")
    old = "I sing tenor in the cathedral choir on Thursdays."
    new = "These days my evenings go on pottery classes instead."
    await service.add_memory(
        app_name=app,
        user_id=user,
        memories=[
            MemoryEntry(
                author="user",
                timestamp=datetime(2026, 3, 1, tzinfo=timezone.utc).isoformat(),
                content=types.Content(role="user", parts=[types.Part(text=old)]),
            )
        ],
    )
    before = datetime.now(timezone.utc)
    await asyncio.sleep(0.01)
    # the words of the old memory alone find nothing of the new text before the correction
    assert said(await service.search(app_name=app, user_id=user, query="tenor choir")) == [old]
    fixed = await service.curator.correct_memory(
        app_name=app,
        user_id=user,
        query="choir",
        new_text=new,
        reason="the user said it changed",
    )
    now = await service.search(app_name=app, user_id=user, query="tenor choir")
    assert said(now) == [new]
    found = now.memories[0]
    assert found.id == fixed.new_id
    assert REPLACED_TEXT_KEY not in (found.custom_metadata or {})
    assert old not in str(found.custom_metadata)
    # its own words still find it, and as_of before the correction still reaches the old text
    assert said(await service.search(app_name=app, user_id=user, query="pottery")) == [new]
    then = await service.search(app_name=app, user_id=user, query="tenor choir", as_of=before)
    assert said(then) == [old]


async def test_a_correction_that_keeps_the_text_adds_no_index_key(service):
    app, user = unique("app"), unique("u")
    text = "My allotment is plot 14 by the canal."
    await service.add_memory(
        app_name=app,
        user_id=user,
        memories=[MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=text)]))],
    )
    fixed = await service.curator.correct_memory(
        app_name=app, user_id=user, query="allotment", tags=["garden"], reason="tagged"
    )
    got = await service.search(app_name=app, user_id=user, query="allotment")
    assert said(got) == [text] and got.memories[0].id == fixed.new_id
    assert REPLACED_TEXT_KEY not in (got.memories[0].custom_metadata or {})
