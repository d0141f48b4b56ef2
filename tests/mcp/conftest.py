"""A real MCP server on the embedded Postgres: in-process streamable HTTP (uvicorn), and the
``adk-memory-kit mcp`` command as a stdio subprocess; clients are the SDK's own."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.mcp import TokenFile, http_app
from adk_memory_kit.mcp.tools import MemoryTools
from tests.support.routing import unique


@pytest.fixture(scope="module")
def app_name() -> str:
    return unique("mcpapp")


@pytest.fixture(scope="module")
def tokens(tmp_path_factory, app_name) -> dict[str, Any]:
    """A token file with alice's and bob's tokens in one app."""
    path = tmp_path_factory.mktemp("mcp") / "tokens.json"
    file = TokenFile(path)
    return {
        "file": file,
        "alice": file.issue(app_name, "alice")[1],
        "bob": file.issue(app_name, "bob")[1],
    }


@pytest.fixture(scope="module")
async def service(db_url, embedder):
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    yield memory
    await memory.close()


@pytest.fixture(scope="module")
async def http_url(service, tokens) -> AsyncIterator[str]:
    """The server's URL: uvicorn serving ``http_app`` in this event loop on a free port."""
    import uvicorn

    tools = MemoryTools(service)
    config = uvicorn.Config(
        http_app(tools, tokens["file"]), host="127.0.0.1", port=0, log_level="warning"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        assert not task.done(), "the server did not start"
        await asyncio.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    await task
    await tools.close()
