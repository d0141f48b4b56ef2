"""The parts of the MCP server that need no server: the token file and the block's ids."""

from __future__ import annotations

import stat

from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.mcp.auth import TokenFile, bearer_token
from adk_memory_kit.mcp.tools import _ids_in_block
from adk_memory_kit.recall.preload import RecallBudget


def test_the_token_file_keeps_digests_only(tmp_path):
    tokens = TokenFile(tmp_path / "t.json")
    token_id, token = tokens.issue("app", "alice")
    body = (tmp_path / "t.json").read_text()
    assert token not in body and token.startswith("akmcp_")
    assert stat.S_IMODE((tmp_path / "t.json").stat().st_mode) == 0o600
    who = tokens.lookup(token)
    assert who is not None and (who.app_name, who.user_id, who.token_id) == (
        "app",
        "alice",
        token_id,
    )
    assert tokens.lookup(token + "x") is None and tokens.lookup(None) is None
    assert TokenFile(tmp_path / "t.json").revoke(token_id) == 1
    assert tokens.lookup(token) is None  # another writer's change is seen


def test_bearer_header_parsing():
    assert bearer_token("Bearer abc") == "abc" and bearer_token("bearer  abc ") == "abc"
    assert bearer_token("Basic abc") is None and bearer_token("Bearer") is None
    assert bearer_token(None) is None


def _entry(memory_id: str, text: str) -> MemoryEntry:
    return MemoryEntry(
        id=memory_id,
        timestamp="2026-05-01T08:00:00+00:00",
        content=types.Content(role="user", parts=[types.Part(text=text)]),
    )


def test_ids_follow_the_block_when_a_memory_does_not_fit():
    """The frame skips a memory that does not fit and goes on: ids[i] is still memory i+1."""
    entries = [
        _entry("a", "I live in Lisbon."),
        _entry("b", "x" * 5000),  # too long: less than the shortest cut fits, left out
        _entry("c", "Tea."),  # short enough to fit after it
    ]
    block = RecallBudget(max_tokens=123, max_results=3).frame(entries, {})
    assert block.included == 2 and "xxxx" not in block.text
    assert _ids_in_block(entries, block.text, block.included) == ["a", "c"]
