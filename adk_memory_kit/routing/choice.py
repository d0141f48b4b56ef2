"""Which extractor routes a turn: the agent's model behind the rule gate, else offline.

    router = MemoryRoutingPlugin(routing_extractor(agent.model), applier)

``model`` is the agent's model (a name or an ADK ``BaseLlm``); ``ADK_MEMORY_KIT_ROUTING_MODEL``
names a cheaper one to route with instead (a Gemini id, or ``provider/model`` through
LiteLLM). With no model (``None``: the app runs offline) the learned offline router answers.
"""

from __future__ import annotations

import os

from google.adk.models.base_llm import BaseLlm

from adk_memory_kit.routing.extractors import Extractor, LlmExtractor
from adk_memory_kit.routing.gated import GatedLlmExtractor
from adk_memory_kit.routing.offline import shared_learned_extractor

ROUTING_MODEL_ENV = "ADK_MEMORY_KIT_ROUTING_MODEL"


def _model(name: str) -> BaseLlm | str:
    if "/" in name:
        from google.adk.models.lite_llm import LiteLlm  # pip install litellm

        return LiteLlm(model=name)
    return name


def routing_extractor(model: str | BaseLlm | None = None) -> Extractor:
    """:class:`GatedLlmExtractor` over ``model`` (or ``$ADK_MEMORY_KIT_ROUTING_MODEL``) with the
    offline router as its fallback; the offline router alone when ``model`` is ``None``."""
    offline = shared_learned_extractor()
    if model is None:
        return offline
    cheaper = os.environ.get(ROUTING_MODEL_ENV, "").strip()
    chosen = _model(cheaper) if cheaper else model
    return GatedLlmExtractor(LlmExtractor(chosen), offline=offline)
