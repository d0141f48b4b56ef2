"""IndexUpkeepJob: the maintenance worker builds heavy users' missing indexes (issue 49)."""

from __future__ import annotations

import asyncio

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import text

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.lifecycle import IndexUpkeepJob
from adk_memory_kit.memory import BasePgVectorMemoryService, SearchOptions
from adk_memory_kit.memory.ann_names import index_name
from tests.support.memory import unique

pytestmark = pytest.mark.slow

THRESHOLD = 30


def _facts(n: int) -> list[MemoryEntry]:
    return [
        MemoryEntry(
            content=types.Content(role="user", parts=[types.Part(text=f"Shelf {i} holds box {i}.")])
        )
        for i in range(n)
    ]


async def _valid(engine, app: str, user: str) -> bool | None:
    async with engine.connect() as conn:
        return await conn.scalar(
            text("SELECT indisvalid FROM pg_index WHERE indexrelid = to_regclass(:n)"),
            {"n": index_name(app, user)},
        )


async def test_the_job_builds_what_the_app_servers_left_to_it(db_url, embedder):
    """App servers with automatic builds off write a heavy and a light user; one pass of the
    job builds the heavy user's index (and only theirs); a second pass builds nothing new."""
    options = SearchOptions(heavy_user_rows=THRESHOLD, ann_auto_build=False)
    memory = BasePgVectorMemoryService.from_url(
        db_url, embedder=embedder, write_policy="full_transcript", search=options
    )
    try:
        app, heavy, light = unique("upkeep"), unique("heavy"), unique("light")
        await memory.add_memory(app_name=app, user_id=heavy, memories=_facts(THRESHOLD + 3))
        await memory.add_memory(app_name=app, user_id=light, memories=_facts(THRESHOLD - 3))
        assert await _valid(memory.engine, app, heavy) is None
        job = IndexUpkeepJob(memory, interval_s=0.2)
        names = await job.run_once()
        assert index_name(app, heavy) in names and index_name(app, light) not in names
        assert await _valid(memory.engine, app, heavy) is True
        assert await _valid(memory.engine, app, light) is None
        forever = asyncio.ensure_future(job.run_forever())
        await asyncio.sleep(0.5)  # passes run; nothing to build
        forever.cancel()
        await asyncio.gather(forever, return_exceptions=True)
        assert await _valid(memory.engine, app, heavy) is True
    finally:
        await memory.close()


@pytest.mark.parametrize("bad", [0, -1.0, True, float("nan")])
def test_the_interval_must_be_positive(bad):
    memory = BasePgVectorMemoryService.from_url(
        "postgresql+psycopg://x@localhost/x", write_policy="full_transcript", embedder=object()
    )
    with pytest.raises(InvalidInputError, match="interval_s"):
        IndexUpkeepJob(memory, interval_s=bad)
