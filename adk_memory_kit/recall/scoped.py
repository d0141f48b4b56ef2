"""The recall tools' search (issue 47): the calling agent's private memories too.

ADK's ``tool_context.search_memory(query)`` names no agent, so through it a search reads the
user's own rows and the app's (and granted groups') shared rows. Where the Runner's memory
service is the kit's, the recall tools search through :meth:`search` with the calling
agent's name, so that agent's private rows (scope ``agent:<name>``) are read as well, and
no other agent's. Any other memory service is searched as ADK does.
"""

from __future__ import annotations

import logging

from google.adk.memory.base_memory_service import SearchMemoryResponse
from google.adk.tools.tool_context import ToolContext

from adk_memory_kit._adk_compat import context_memory_service
from adk_memory_kit.core.memory_scopes import check_scope_name
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.service import BasePgVectorMemoryService

logger = logging.getLogger(__name__)


def calling_agent(tool_context: ToolContext) -> str | None:
    """The running agent's name as a scope name (``None`` when it cannot be one)."""
    try:
        return check_scope_name("agent_name", tool_context.agent_name)
    except (InvalidInputError, AttributeError):
        return None


async def search_as_agent(tool_context: ToolContext, query: str) -> SearchMemoryResponse:
    """``tool_context.search_memory(query)``, with the calling agent's private memories when
    the memory service is the kit's."""
    service = context_memory_service(tool_context)
    agent = calling_agent(tool_context)
    if isinstance(service, BasePgVectorMemoryService) and agent is not None:
        session = tool_context.session
        return await service.search(
            app_name=session.app_name, user_id=session.user_id, query=query, agent_name=agent
        )
    return await tool_context.search_memory(query)


__all__ = ["calling_agent", "search_as_agent"]
