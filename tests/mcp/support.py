"""Clients of the MCP server for the tests: the SDK's own, over HTTP and stdio."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client


@asynccontextmanager
async def http_session(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient(headers=headers, timeout=60) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


def stdio_params(db_url: str, token_path: str, token: str | None) -> StdioServerParameters:
    """``adk-memory-kit --db-url URL mcp --tokens PATH`` with the token in its environment."""
    env = {k: v for k, v in os.environ.items() if k.startswith(("ADK_MEMORY_KIT_", "PYTHON"))}
    env.pop("ADK_MEMORY_KIT_MCP_TOKEN", None)
    if token is not None:
        env["ADK_MEMORY_KIT_MCP_TOKEN"] = token
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "adk_memory_kit.cli", "--db-url", db_url, "mcp", "--tokens", token_path],
        env=env,
        cwd=os.getcwd(),
    )


@asynccontextmanager
async def stdio_session(params: StdioServerParameters) -> AsyncIterator[ClientSession]:
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=120) as session:
            await session.initialize()
            yield session


def payload(result: Any) -> dict[str, Any]:
    """A tool result's structured content (the JSON text when there is none)."""
    assert not result.is_error, result.content
    if isinstance(result.structured_content, dict):
        return result.structured_content
    return json.loads(result.content[0].text)
