"""Research assistant: bulky web-search results, distilled findings, tool-payload pruning.

``adk web agents --session_service_uri=pgvector:// --memory_service_uri=pgvector://``

The pruner (a ``before_model_callback``) replaces a raw ``web_search`` result that is no longer
among the newest four contents with a small tombstone naming ``get_findings``, in the outgoing
request only; the stored session keeps every raw result. It records what each call pruned in
session state under ``adk_memory_kit:pruning:last`` (the dev UI's State tab).

Model: Gemini (``gemini-2.5-flash``, or ``ADK_MEMORY_KIT_MODEL``) when ``GOOGLE_API_KEY`` or
Vertex AI is configured; otherwise the kit's scripted offline research assistant
(``adk_memory_kit.testing.offline_research_responder``, which ``adk-memory-kit demo`` runs too).
The tools are offline stand-ins from the kit too: a bulky ``web_search`` and the findings store.
"""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.apps import App

from adk_memory_kit import (
    EpisodicLogPlugin,
    PruneStaleToolPayloads,
    UserMessageRedactionPlugin,
    configured_model,
)
from adk_memory_kit.testing import (
    RESEARCH_INSTRUCTION,
    ScriptedLlm,
    get_findings,
    offline_research_responder,
    save_finding,
    web_search,
)

pruner = PruneStaleToolPayloads(prunable={"web_search"}, keep_recent=4)

root_agent = LlmAgent(
    name="research_assistant",
    model=configured_model() or ScriptedLlm(responder=offline_research_responder),
    instruction=RESEARCH_INSTRUCTION,
    tools=[web_search, save_finding, get_findings],
    before_model_callback=pruner,
    after_model_callback=pruner.after_model_callback,
)

# ``adk web`` loads ``app``: the episodic log records every model and tool call (the console's
# traces and costs; ADK_MEMORY_KIT_DB_URL, else the embedded server)
app = App(
    name="research_assistant",
    root_agent=root_agent,
    plugins=[UserMessageRedactionPlugin(), EpisodicLogPlugin()],
)
