"""The MCP server and memory scopes (issue 47), through the SDK's own client over streamable
HTTP: search reads the token's user's rows and the app's shared rows (marked), never another
user's or an agent's private rows; no MCP tool can change a shared row."""

from __future__ import annotations

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from tests.mcp.support import http_session, payload

pytestmark = pytest.mark.slow  # Postgres and a server


async def test_mcp_search_reads_the_entitled_scopes_and_cannot_touch_shared_rows(
    http_url, tokens, service, app_name
):
    await service.add_shared_memory(app_name=app_name, memories=["The parking gate opens at 7am"])
    await service.add_agent_memory(
        app_name=app_name,
        user_id="alice",
        agent_name="billing",
        memories=["alice's parking is billed monthly"],
    )
    said = types.Content(role="user", parts=[types.Part(text="bob parks at gate B on Mondays")])
    await service.add_memory(app_name=app_name, user_id="bob", memories=[MemoryEntry(content=said)])
    async with http_session(http_url, tokens["alice"]) as alice:
        found = payload(await alice.call_tool("search_memory", {"query": "parking gate opens"}))
        block = found["memories"]
        assert "> The parking gate opens at 7am" in block and "| shared by the app" in block
        assert "billed monthly" not in block and "bob parks" not in block
        (shared_id,) = [
            i for i, line in zip(found["ids"], _headers(block), strict=False) if "shared" in line
        ]
        gone = payload(await alice.call_tool("forget", {"memory_id": shared_id}))
        assert gone["status"] == "not_found"
        fixed = payload(
            await alice.call_tool(
                "correct", {"memory_id": shared_id, "statement": "The parking gate opens at noon"}
            )
        )
        assert fixed["status"] == "not_found"
    for user in ("alice", "bob"):  # the shared row is intact, and no correction was stored
        found = await service.search_memory(
            app_name=app_name, user_id=user, query="parking gate opens"
        )
        texts = [m.content.parts[0].text for m in found.memories]
        assert "The parking gate opens at 7am" in texts and not [t for t in texts if "noon" in t]


def _headers(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.startswith("[memory ")]
