"""The storage floor on its own: ``BasePgVectorMemoryService`` writes and searches a session
with no router loaded, takes any ``SessionSelector``, and says what it lacks for ROUTED."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from google.adk.events.event import Event
from google.adk.sessions.session import Session
from google.genai import types

from adk_memory_kit.core.session_policy import SessionSelector, TranscriptSelector
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory import BasePgVectorMemoryService, MemoryConfig
from tests.support.memory import unique

pytestmark = pytest.mark.slow


def _session(app: str, user: str, *texts: str) -> Session:
    events = [
        Event(
            id=f"e{i}",
            invocation_id=f"i{i}",
            author="user",
            timestamp=1_700_000_000 + i,
            content=types.Content(role="user", parts=[types.Part(text=t)]),
        )
        for i, t in enumerate(texts)
    ]
    return Session(id=unique("s"), app_name=app, user_id=user, events=events)


class KeepFirstEvent:
    """A selector of the test's own: only the session's first event is stored."""

    async def select(self, session, events, *, index_context=False):
        return list(events)[:1]


def test_routed_without_a_selector_is_refused_naming_the_fix(embedder):
    with pytest.raises(InvalidInputError, match="adk_memory_kit.PgVectorMemoryService"):
        BasePgVectorMemoryService(embedder=embedder, config=MemoryConfig(write_policy="routed"))


async def test_a_selector_of_ones_own_decides_what_is_stored(db_url, embedder):
    assert isinstance(KeepFirstEvent(), SessionSelector)
    service = BasePgVectorMemoryService(
        db_url, embedder=embedder, config=MemoryConfig(routed_options=KeepFirstEvent())
    )
    app, user = unique("app"), unique("u")
    try:
        write = await service.add_session_to_memory(
            _session(app, user, "Our cat Miso sleeps on the piano.", "My sister lives in Oslo.")
        )
        assert write.status != "empty"
        found = await service.search_memory(app_name=app, user_id=user, query="cat piano")
        texts = [p.text for m in found.memories for p in m.content.parts or []]
        assert any("Miso" in t for t in texts)
        oslo = await service.search_memory(app_name=app, user_id=user, query="sister Oslo")
        assert not any("Oslo" in (p.text or "") for m in oslo.memories for p in m.content.parts)
    finally:
        await service.delete_memories(app_name=app, user_id=user)
        await service.close()


async def test_delete_memories_takes_every_row_of_one_user_only(db_url, embedder):
    service = BasePgVectorMemoryService(
        db_url, embedder=embedder, config=MemoryConfig(write_policy="full_transcript")
    )
    assert isinstance(service.pipeline.selector, TranscriptSelector)
    app, user, other = unique("app"), unique("u"), unique("u")
    try:
        await service.add_session_to_memory(_session(app, user, "I keep bees in Evora."))
        await service.add_session_to_memory(_session(app, other, "I keep goats in Braga."))
        assert await service.delete_memories(app_name=app, user_id=user) == 1
        assert await service.count_memories(app_name=app, user_id=user) == {}
        assert sum((await service.count_memories(app_name=app, user_id=other)).values()) == 1
    finally:
        await service.delete_memories(app_name=app, user_id=other)
        await service.close()


def test_the_floor_writes_and_searches_with_no_router_loaded(db_url):
    code = textwrap.dedent(
        f"""
        import asyncio, sys
        from tests.memory.test_storage_floor import _session
        from adk_memory_kit.memory import BasePgVectorMemoryService, MemoryConfig

        async def main():
            service = BasePgVectorMemoryService(
                {db_url!r}, config=MemoryConfig(write_policy="full_transcript"))
            await service.add_session_to_memory(_session("floor", "u1", "Ana keeps bees."))
            found = await service.search_memory(app_name="floor", user_id="u1", query="bees")
            await service.delete_memories(app_name="floor", user_id="u1")
            await service.close()
            return len(found.memories)

        print(asyncio.run(main()))
        print(sorted({{m.split('.')[1] for m in sys.modules
                      if m.startswith('adk_memory_kit.')}}))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    found, loaded = out.stdout.strip().splitlines()[-2:]
    assert int(found) == 1
    for package in ("routing", "write_policy", "lifecycle", "recall", "assembly"):
        assert f"'{package}'" not in loaded, loaded


async def test_moved_curator_methods_warn_and_still_work(db_url, embedder):
    service = BasePgVectorMemoryService(
        db_url, embedder=embedder, config=MemoryConfig(write_policy="full_transcript")
    )
    app, user = unique("app"), unique("u")
    try:
        await service.add_session_to_memory(_session(app, user, "Ana keeps bees in Evora."))
        found = await service.search_memory(app_name=app, user_id=user, query="bees")
        with pytest.warns(DeprecationWarning, match=r"service\.curator\.pin_memory"):
            await service.pin_memory(
                app_name=app, user_id=user, memory_id=found.memories[0].id, pinned=True
            )
    finally:
        await service.delete_memories(app_name=app, user_id=user)
        await service.close()


def test_the_old_memory_name_warns_and_gives_the_floor(embedder):
    import adk_memory_kit.memory as memory_floor

    with pytest.warns(DeprecationWarning, match=r"adk_memory_kit\.PgVectorMemoryService"):
        old = memory_floor.PgVectorMemoryService
    assert old is BasePgVectorMemoryService
    with pytest.raises(InvalidInputError, match="adk_memory_kit.PgVectorMemoryService"):
        old(embedder=embedder)
    assert isinstance(
        old(
            embedder=embedder, config=MemoryConfig(write_policy="full_transcript")
        ).pipeline.selector,
        TranscriptSelector,
    )
