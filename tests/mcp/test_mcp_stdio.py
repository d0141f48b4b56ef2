"""``adk-memory-kit mcp`` on stdio, as an MCP client starts it: a subprocess whose identity is
the token in ``ADK_MEMORY_KIT_MCP_TOKEN``; without a valid one it refuses to start."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.mcp.support import payload, stdio_params, stdio_session

pytestmark = pytest.mark.slow  # a server process on Postgres


async def test_stdio_remembers_and_searches_as_the_token_user_only(db_url, tokens):
    path = str(tokens["file"].path)
    async with stdio_session(stdio_params(db_url, path, tokens["alice"])) as session:
        stored = payload(
            await session.call_tool(
                "remember",
                {"statement": "My stdio pet is a tortoise named Zeno.", "user_id": "bob"},
            )
        )
        assert stored["status"] == "stored"
        found = payload(await session.call_tool("search_memory", {"query": "tortoise Zeno"}))
        assert "> My stdio pet is a tortoise named Zeno." in found["memories"]
    async with stdio_session(stdio_params(db_url, path, tokens["bob"])) as session:
        found = payload(await session.call_tool("search_memory", {"query": "tortoise Zeno"}))
        assert "Zeno" not in found["memories"]


@pytest.mark.parametrize("token", [None, "akmcp_not-a-real-token"])
def test_stdio_without_a_valid_token_refuses_to_start(db_url, tokens, token):
    params = stdio_params(db_url, str(tokens["file"].path), token)
    done = subprocess.run(
        [params.command, *params.args],
        env={**{k: v for k, v in os.environ.items() if k in ("PATH", "HOME")}, **params.env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=params.cwd,
    )
    assert done.returncode == 2
    assert "ADK_MEMORY_KIT_MCP_TOKEN is missing or not a token" in done.stderr
    assert done.stdout == ""  # nothing on the protocol channel
    assert "not-a-real-token" not in done.stderr


def test_the_missing_extra_is_named(monkeypatch):
    """Without the MCP SDK the command says which extra to install (a kit error, exit 2)."""
    code = (
        "import sys; sys.modules['mcp'] = None\n"
        "from adk_memory_kit.cli import main\n"
        "sys.exit(main(['mcp']))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "pip install 'adk-memory-kit[mcp]'" in done.stderr
