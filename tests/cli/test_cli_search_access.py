"""``adk-memory-kit search`` is an operator's look: it never counts as a use of a memory."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.cli import main
from adk_memory_kit.memory.browse import list_memories

pytestmark = pytest.mark.slow


async def test_cli_search_does_not_record_a_use(db_url, memory, capsys):
    app = f"cli-access-{uuid.uuid4().hex[:6]}"
    entry = MemoryEntry(
        content=types.Content(role="user", parts=[types.Part(text="Dara parks on level 3.")]),
        author="user",
    )
    await memory.add_memory(app_name=app, user_id="dara", memories=[entry])
    code = await asyncio.to_thread(
        main, ["--db-url", db_url, "search", "--app", app, "--user", "dara", "parking level"]
    )
    assert code == 0 and "Dara parks on level 3." in capsys.readouterr().out
    page = await list_memories(memory.store, app_name=app, user_id="dara")
    meta = page.items[0].custom_metadata
    assert meta["access_count"] == 0 and "last_accessed_at" not in meta
    # the agent's own search does count (the test can fail)
    await memory.search_memory(app_name=app, user_id="dara", query="parking level")
    await memory.flush_access()
    page = await list_memories(memory.store, app_name=app, user_id="dara")
    assert page.items[0].custom_metadata["access_count"] == 1
