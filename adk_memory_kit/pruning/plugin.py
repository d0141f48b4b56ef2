"""``ToolPayloadPruningPlugin``: the pruning layer for every agent of an App/Runner."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from typing_extensions import override

from adk_memory_kit.core.db_errors import contained_doors
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.pruning.callback import PruneStaleToolPayloads
from adk_memory_kit.pruning.report import PruningReport
from adk_memory_kit.pruning.tombstones import TombstoneFactory


@contained_doors
class ToolPayloadPruningPlugin(BasePlugin):
    """Apply :class:`PruneStaleToolPayloads` to every model call of an ``App``/``Runner``.

    ``App(name=..., root_agent=agent, plugins=[ToolPayloadPruningPlugin({"web_search"})])``

    Takes the same options as :class:`PruneStaleToolPayloads`, or a ready ``pruner``.
    Also records the model's usage metadata after each call (see ``report``).
    """

    def __init__(
        self,
        prunable: Iterable[str] | Callable[[str], bool] | None = None,
        keep_recent: int = 4,
        *,
        tombstone: Mapping[str, Any] | TombstoneFactory | None = None,
        findings_tool: str | None = "get_findings",
        min_payload_tokens: int = 200,
        threshold_tokens: int | None = None,
        report: PruningReport | None = None,
        pruner: PruneStaleToolPayloads | None = None,
        name: str = "tool_payload_pruning",
    ) -> None:
        super().__init__(name)
        if pruner is None:
            if prunable is None:
                raise InvalidInputError("pass prunable (tool names or a predicate) or a pruner")
            pruner = PruneStaleToolPayloads(
                prunable,
                keep_recent,
                tombstone=tombstone,
                findings_tool=findings_tool,
                min_payload_tokens=min_payload_tokens,
                threshold_tokens=threshold_tokens,
                report=report,
            )
        elif prunable is not None:
            raise InvalidInputError("pass either prunable/options or a pruner, not both")
        self.pruner = pruner

    @property
    def report(self) -> PruningReport:
        """Per-call token records of this plugin."""
        return self.pruner.report

    @override
    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Prune the outgoing request; never short-circuits the model call."""
        self.pruner(callback_context, llm_request)
        return None

    @override
    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """Record usage metadata and attach the call's figures to the response event."""
        self.pruner.after_model_callback(callback_context, llm_response)
        return None
