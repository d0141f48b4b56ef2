"""The research assistant the demo runs (the copyable sample lives in agents/research_assistant/).

Its instruction, tools and offline model are the sample's own, from the public
:mod:`adk_memory_kit.testing`: ``web_search`` returns ~2,000 tokens of deterministic text per
call; the model saves what matters with ``save_finding``; once saved, the raw result is stale
and the pruner replaces it in later requests with a tombstone pointing at ``get_findings``.
"""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm

from adk_memory_kit.core.model_access import configured_model
from adk_memory_kit.pruning import PruneStaleToolPayloads
from adk_memory_kit.testing import ScriptedLlm
from adk_memory_kit.testing import research as sample


def build_research_agent(
    model: str | BaseLlm | None = None, *, pruner: PruneStaleToolPayloads | None = None
) -> LlmAgent:
    """The research assistant with the pruning callback on its model calls."""
    pruner = pruner or PruneStaleToolPayloads(prunable={"web_search"}, keep_recent=4)
    offline = ScriptedLlm(responder=sample.offline_research_responder)
    return LlmAgent(
        name="research_assistant",
        model=model or configured_model() or offline,
        instruction=sample.RESEARCH_INSTRUCTION,
        tools=[sample.web_search, sample.save_finding, sample.get_findings],
        before_model_callback=pruner,
        after_model_callback=pruner.after_model_callback,
    )
