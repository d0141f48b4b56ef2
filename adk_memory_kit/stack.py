"""The recommended stack: every part of the kit on one database, in one call.

    from adk_memory_kit import MemoryKit

    kit = MemoryKit()                       # ADK_MEMORY_KIT_DB_URL, else the embedded server
    runner = kit.runner(agent, app_name="travel")
    ...
    await kit.close()

What :meth:`MemoryKit.runner` assembles, each part swappable by a keyword of ``MemoryKit``:

======================  ===================================================================
part                    what it does
======================  ===================================================================
memory service          ``PgVectorMemoryService`` (long-term memory, Postgres + pgvector)
sessions                ADK's ``DatabaseSessionService`` on the same database
transcript redaction    ``UserMessageRedactionPlugin``: no raw secret in ADK's events table
routing                 ``MemoryRoutingPlugin`` with a ``ReviewQueue`` on the same database
approved instructions   ``ApprovedInstructionsPlugin``: what a person approved reaches the agent
pruning                 ``ToolPayloadPruningPlugin``: stale large tool payloads leave the request
checkpoint + closer     ``MemoryCheckpointPlugin`` and the ``end_session`` tool
episodic log            ``EpisodicLogPlugin`` (audit, never retrieval)
recall                  the framed ``load_memory`` tool (quoted, dated, budgeted)
working memory          ``WorkingMemoryToolset`` and its view in the instruction
profile                 ``save_preference`` / ``get_profile`` on ``user:`` state
======================  ===================================================================

:meth:`MemoryKit.runner` adds the kit's tools the agent lacks (by name) to the agent it is
given, and the working-memory view to its instruction when that is a string without it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from google.adk.apps.app import App
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.runners import Runner
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.adk.tools.load_memory_tool import LoadMemoryTool
from google.adk.tools.preload_memory_tool import PreloadMemoryTool

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.db_errors import db_doors
from adk_memory_kit.db.engine import foreign_engine_options, resolve_db_url
from adk_memory_kit.episodic import EpisodicLog, EpisodicLogPlugin
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.lifecycle import MemoryCheckpointPlugin, end_session_tool
from adk_memory_kit.pruning import ToolPayloadPruningPlugin
from adk_memory_kit.recall import BudgetedPreloadMemoryTool, FramedLoadMemoryTool, RecallBudget
from adk_memory_kit.routing import (
    MemoryApplier,
    MemoryRoutingPlugin,
    ReviewQueue,
    make_profile_tools,
    routing_extractor,
)
from adk_memory_kit.routing.approved_instructions import ApprovedInstructionsPlugin
from adk_memory_kit.routing.edits.conversation_edits import conversation_edit_handlers
from adk_memory_kit.sensitive import UserMessageRedactionPlugin
from adk_memory_kit.working_memory import WorkingMemoryToolset, working_memory_instruction

logger = logging.getLogger(__name__)

if TYPE_CHECKING:
    from google.adk.agents.llm_agent import LlmAgent
    from google.adk.models.base_llm import BaseLlm

#: Tool names whose payloads the pruning plugin never removes (the kit's own memory tools).
_KEPT_TOOLS = frozenset({"load_memory", "get_profile", "save_preference", "end_session"})


@db_doors
class MemoryKit:
    """The kit's recommended stack on one database (``db_url``; ``None``:
    ``ADK_MEMORY_KIT_DB_URL``, else the embedded server).

    Args:
        memory_service / session_service / review_queue / episodic_log: parts of your own
            (by default each is made on ``db_url``; a part given is never closed by the kit).
        routing_model: the model that reads each turn for routing (default: the offline
            router, no model call).
        recall: the budget of the framed ``load_memory`` tool.
        checkpoint_every: ingest the session into long-term memory every N turns.
        extra_plugins: appended after the kit's plugins.
    """

    def __init__(
        self,
        db_url: str | None = None,
        *,
        memory_service: Any = None,
        session_service: Any = None,
        review_queue: ReviewQueue | None = None,
        episodic_log: EpisodicLog | None = None,
        routing_model: str | BaseLlm | None = None,
        recall: RecallBudget | None = None,
        checkpoint_every: int = 3,
        extra_plugins: Sequence[BasePlugin] = (),
    ) -> None:
        if isinstance(checkpoint_every, bool) or not isinstance(checkpoint_every, int):
            raise InvalidInputError("checkpoint_every must be a whole number of turns")
        if checkpoint_every < 1:
            raise InvalidInputError("checkpoint_every must be at least 1")
        self.db_url = resolve_db_url(db_url)
        self._owned: list[Any] = []
        self.memory_service = memory_service or self._own(PgVectorMemoryService(self.db_url))
        adk_url, adk_options = foreign_engine_options(self.db_url)
        self.session_service = session_service or self._own(
            DatabaseSessionService(db_url=adk_url, **adk_options)
        )
        self.review_queue = review_queue or self._own(ReviewQueue(self.db_url))
        self.episodic_log = episodic_log or self._own(EpisodicLog(self.db_url))
        self.routing_model = routing_model
        self.recall = recall or RecallBudget(max_tokens=400, max_results=3)
        self.checkpoint_every = checkpoint_every
        self.extra_plugins = list(extra_plugins)

    def _own(self, part: Any) -> Any:
        self._owned.append(part)
        return part

    def plugins(self) -> list[BasePlugin]:
        """The kit's plugins, in the order they run (a fresh set per call)."""
        return [
            UserMessageRedactionPlugin(),
            MemoryRoutingPlugin(
                routing_extractor(self.routing_model),
                MemoryApplier(
                    review_queue=self.review_queue,
                    **conversation_edit_handlers(model=self.routing_model),
                ),
            ),
            ApprovedInstructionsPlugin(self.review_queue),
            ToolPayloadPruningPlugin(lambda name: name not in _KEPT_TOOLS),
            MemoryCheckpointPlugin(every_n_invocations=self.checkpoint_every),
            EpisodicLogPlugin(self.episodic_log),
            *self.extra_plugins,
        ]

    def tools(self) -> list[Any]:
        """The kit's tools for an agent: framed recall, working memory, profile, end_session."""
        return [
            FramedLoadMemoryTool(self.recall),
            WorkingMemoryToolset(),
            *make_profile_tools(),
            end_session_tool(),
        ]

    def equip(self, agent: LlmAgent) -> LlmAgent:
        """Add the kit's tools ``agent`` lacks (by name), and the working-memory view to its
        instruction when that is a string without one; returns the same agent. ADK's own
        recall tools (``load_memory``, ``preload_memory``), which hand the model memories as
        bare text, are replaced in place by the kit's framed ones (quoted, dated, budgeted),
        with a warning that names the swap."""
        agent.tools[:] = [self._framed(t) for t in agent.tools]
        present = {_tool_name(t) for t in agent.tools}
        agent.tools.extend(t for t in self.tools() if _tool_name(t) not in present)
        view = working_memory_instruction()
        if isinstance(agent.instruction, str) and view not in agent.instruction:
            agent.instruction = f"{agent.instruction}\n\n{view}".strip()
        return agent

    def _framed(self, tool: Any) -> Any:
        """``tool``, or the kit's framed recall in place of ADK's raw one."""
        if isinstance(tool, LoadMemoryTool) and not isinstance(tool, FramedLoadMemoryTool):
            logger.warning("MemoryKit: ADK's load_memory replaced by the kit's framed recall")
            return FramedLoadMemoryTool(self.recall)
        if isinstance(tool, PreloadMemoryTool):
            logger.warning(
                "MemoryKit: ADK's preload_memory replaced by the kit's budgeted, framed preload"
            )
            return BudgetedPreloadMemoryTool(self.recall)
        return tool

    def app(self, agent: LlmAgent, *, app_name: str) -> App:
        """An ADK ``App`` of ``agent`` (equipped) with the kit's plugins."""
        return App(name=app_name, root_agent=self.equip(agent), plugins=self.plugins())

    def runner(self, agent: LlmAgent, *, app_name: str) -> Runner:
        """A ``Runner`` of the kit's app, its sessions and its memory service."""
        return Runner(
            app=self.app(agent, app_name=app_name),
            session_service=self.session_service,
            memory_service=self.memory_service,
        )

    async def close(self) -> None:
        """Close the parts the kit made (the ones given stay open)."""
        for part in reversed(self._owned):
            close = getattr(part, "close", None)
            if close is not None:
                await close()
        self._owned.clear()

    async def __aenter__(self) -> MemoryKit:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _tool_name(tool: Any) -> str:
    """A tool's name (a toolset's class name, a function's ``__name__``)."""
    return str(getattr(tool, "name", None) or getattr(tool, "__name__", type(tool).__name__))
