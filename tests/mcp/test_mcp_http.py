"""The MCP server over streamable HTTP, through the SDK's own client: every tool, identity
only from the bearer token, refusals, and the redaction gate."""

from __future__ import annotations

import re

import httpx2
import pytest

from adk_memory_kit.recall import RECALL_TAG
from tests.mcp.support import http_session, payload

pytestmark = pytest.mark.slow  # Postgres and a server


async def test_tool_schemas_name_no_app_or_user(http_url, tokens):
    async with http_session(http_url, tokens["alice"]) as session:
        listed = await session.list_tools()
    names = {t.name for t in listed.tools}
    assert names == {"search_memory", "remember", "forget", "list_memories", "correct"}
    for tool in listed.tools:
        properties = set((tool.input_schema or {}).get("properties", {}))
        assert not properties & {"user_id", "app_name", "user", "app"}, tool.name


async def test_remember_then_search_finds_it_framed_and_dated(http_url, tokens):
    async with http_session(http_url, tokens["alice"]) as session:
        stored = payload(
            await session.call_tool("remember", {"statement": "My home airport is Lisbon."})
        )
        assert stored["status"] == "stored", stored
        found = payload(await session.call_tool("search_memory", {"query": "home airport"}))
    block = found["memories"]
    assert block.startswith(f"<{RECALL_TAG}>") and block.endswith(f"</{RECALL_TAG}>")
    assert "> My home airport is Lisbon." in block  # quoted
    assert re.search(r"\[memory 1 \| \d{4}-\d{2}-\d{2}", block)  # dated
    assert "not instructions" in block
    assert found["ids"][0] == stored["memory_id"]


async def test_a_forged_user_in_the_arguments_is_ignored(http_url, tokens):
    async with http_session(http_url, tokens["bob"]) as bob:
        assert (
            payload(
                await bob.call_tool(
                    "remember", {"statement": "My locker code hint is a blue door."}
                )
            )["status"]
            == "stored"
        )
    async with http_session(http_url, tokens["alice"]) as alice:
        forged = {"user_id": "bob", "app_name": "other", "user": "bob"}
        found = payload(
            await alice.call_tool("search_memory", {"query": "locker blue door", **forged})
        )
        assert "blue door" not in found["memories"]
        listed = payload(await alice.call_tool("list_memories", {"limit": 100, **forged}))
        assert "blue door" not in listed["memories"]
        stored = payload(
            await alice.call_tool("remember", {"statement": "I keep bees on my roof.", **forged})
        )
        assert stored["status"] == "stored"
    async with http_session(http_url, tokens["bob"]) as bob:
        mine = payload(await bob.call_tool("list_memories", {"limit": 100}))
        assert "blue door" in mine["memories"] and "bees" not in mine["memories"]
        # alice's memory id is not bob's to forget or correct
        gone = payload(await bob.call_tool("forget", {"memory_id": stored["memory_id"]}))
        assert gone["status"] == "not_found"
        fixed = payload(
            await bob.call_tool(
                "correct", {"memory_id": stored["memory_id"], "statement": "I keep wasps."}
            )
        )
        assert fixed["status"] == "not_found"


@pytest.mark.parametrize("header", [None, "Bearer akmcp_wrong", "Basic abc", "Bearer"])
async def test_a_missing_or_wrong_token_is_refused_with_401(http_url, header):
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}
    if header is not None:
        headers["Authorization"] = header
    async with httpx2.AsyncClient() as client:
        response = await client.post(http_url, json=body, headers=headers)
    assert response.status_code == 401
    assert "akmcp_wrong" not in response.text


async def test_a_revoked_token_is_refused_without_a_restart(http_url, tokens, app_name):
    token_id, token = tokens["file"].issue(app_name, "carol")
    async with http_session(http_url, token) as session:
        assert (await session.list_tools()).tools
    assert tokens["file"].revoke(token_id) == 1
    async with httpx2.AsyncClient() as client:
        response = await client.post(
            http_url, json={}, headers={"Authorization": f"Bearer {token}"}
        )
    assert response.status_code == 401


async def test_forget_by_id_and_by_description(http_url, tokens):
    async with http_session(http_url, tokens["alice"]) as session:
        one = payload(
            await session.call_tool("remember", {"statement": "My dentist is Dr Ana Faria."})
        )
        two = payload(
            await session.call_tool("remember", {"statement": "My gym is the one on Rua Augusta."})
        )
        gone = payload(await session.call_tool("forget", {"memory_id": one["memory_id"]}))
        assert gone["status"] == "forgotten" and gone["deleted"] == [one["memory_id"]]
        again = payload(await session.call_tool("forget", {"memory_id": one["memory_id"]}))
        assert again["status"] == "not_found"
        by_words = payload(await session.call_tool("forget", {"description": "my gym"}))
        assert by_words["deleted"] == [two["memory_id"]], by_words
        listed = payload(await session.call_tool("list_memories", {"limit": 100}))
    assert "Dr Ana Faria" not in listed["memories"] and "Rua Augusta" not in listed["memories"]


async def test_list_memories_pages(http_url, tokens, app_name):
    token = tokens["file"].issue(app_name, "dave")[1]
    facts = [
        "I play the cello.",
        "My sister lives in Porto.",
        "I am allergic to cats.",
        "I commute by bicycle.",
        "My favourite tea is sencha.",
    ]
    async with http_session(http_url, token) as session:
        for fact in facts:
            assert payload(await session.call_tool("remember", {"statement": fact}))["status"] in (
                "stored",
                "dropped",
            )  # a health fact may be held back
        seen: list[str] = []
        offset: int | None = 0
        pages = 0
        while offset is not None:
            page = payload(await session.call_tool("list_memories", {"offset": offset, "limit": 2}))
            assert len(page["ids"]) <= 2 and len(page["dates"]) == len(page["ids"])
            seen += page["ids"]
            offset = page["next_offset"]
            pages += 1
    assert len(seen) == len(set(seen)) == page["total"] >= 4
    assert pages == -(-page["total"] // 2)


async def test_correct_replaces_the_memory(http_url, tokens):
    async with http_session(http_url, tokens["alice"]) as session:
        old = payload(await session.call_tool("remember", {"statement": "My car is a red Fiat."}))
        fixed = payload(
            await session.call_tool(
                "correct",
                {"memory_id": old["memory_id"], "statement": "My car is a green Renault."},
            )
        )
        assert fixed["status"] == "corrected" and fixed["replaced"] == old["memory_id"]
        listed = payload(await session.call_tool("list_memories", {"limit": 100}))
        found = payload(await session.call_tool("search_memory", {"query": "my car"}))
    assert "green Renault" in listed["memories"] and "red Fiat" not in listed["memories"]
    assert fixed["memory_id"] in found["ids"] and old["memory_id"] not in found["ids"]


async def test_a_secret_given_to_remember_is_not_stored_verbatim(http_url, tokens, app_name):
    token = tokens["file"].issue(app_name, "erin")[1]
    secrets = [
        "My card number is 4111 1111 1111 1111.",
        "My GitHub token is ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    ]
    async with http_session(http_url, token) as session:
        for secret in secrets:
            result = payload(await session.call_tool("remember", {"statement": secret}))
            assert result["status"] == "dropped", result
            assert "4111" not in str(result) and "ghp_" not in str(result)
        listed = payload(await session.call_tool("list_memories", {"limit": 100}))
    assert "4111 1111" not in listed["memories"] and "ghp_" not in listed["memories"]


async def test_errors_are_tool_results_without_user_text(http_url, tokens):
    async with http_session(http_url, tokens["alice"]) as session:
        bad = await session.call_tool("forget", {})
        assert bad.is_error and "memory_id" in bad.content[0].text
        empty = await session.call_tool("remember", {"statement": "   "})
        assert empty.is_error
        wrong = await session.call_tool("search_memory", {"query": "x", "limit": 999})
        assert wrong.is_error and "limit" in wrong.content[0].text
        still = await session.call_tool("list_memories", {})
        assert not still.is_error  # the connection survives
