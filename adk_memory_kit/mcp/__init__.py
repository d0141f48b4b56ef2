"""An MCP server for the kit's memory (``adk-memory-kit mcp``), for agents that are not Python
ADK: ADK Go/Java/TypeScript through ``McpToolset``, or any MCP client.

Tools: ``search_memory``, ``remember``, ``forget``, ``list_memories`` and ``correct``
(:mod:`.tools`); each acts for the app and user of the connection's token (:mod:`.auth`),
never for one named in its arguments. Transports: stdio and streamable HTTP (:mod:`.server`).
It needs the ``[mcp]`` extra (the official MCP SDK); :mod:`.auth` and :mod:`.tools` do not,
so tokens can be issued without it. See docs/mcp.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from adk_memory_kit.mcp.auth import Identity, TokenFile

if TYPE_CHECKING:
    from adk_memory_kit.mcp.server import build_server, http_app, serve_http, serve_stdio

__all__ = ["Identity", "TokenFile", "build_server", "http_app", "serve_http", "serve_stdio"]

_SERVER_NAMES = {"build_server", "http_app", "serve_http", "serve_stdio"}


def __getattr__(name: str) -> Any:
    if name in _SERVER_NAMES:
        return getattr(require_sdk(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def require_sdk() -> Any:
    """:mod:`.server`, or a kit error naming the ``[mcp]`` extra when the SDK is missing."""
    try:
        from adk_memory_kit.mcp import server
    except ImportError as exc:
        from adk_memory_kit.errors import MemoryKitError

        raise MemoryKitError(
            f"the MCP server needs the [mcp] extra ({exc.name or 'mcp'} is missing): "
            "pip install 'adk-memory-kit[mcp]'"
        ) from exc
    return server
