"""Which model a sample agent uses: Gemini by default, any LiteLLM model, or offline.

* ``ADK_MEMORY_KIT_MODEL`` set: a Gemini id (``gemini-2.5-flash``) is used as is; a LiteLLM id
  (``openai/gpt-4o-mini``, ``anthropic/claude-...``, ``ollama_chat/llama3``: anything with a
  ``/``) goes through ADK's ``LiteLlm`` wrapper (``pip install litellm``).
* else, with ``GOOGLE_API_KEY`` (or Vertex AI configured): ``gemini-2.5-flash``.
* else: the agent's scripted offline responder, so the sample still runs (and says so).
"""

from __future__ import annotations

import os

from google.adk.models.base_llm import BaseLlm

from adk_memory_kit.errors import MemoryKitError
from adk_memory_kit.scripted import Responder, ScriptedLlm

MODEL_ENV = "ADK_MEMORY_KIT_MODEL"
DEFAULT_GEMINI = "gemini-2.5-flash"


def has_model_access() -> bool:
    """True when a real model is configured (explicit model, API key or Vertex AI)."""
    return bool(
        os.environ.get(MODEL_ENV)
        or os.environ.get("GOOGLE_API_KEY")
        or os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in {"1", "true"}
    )


def choose_model(offline: Responder, default: str = DEFAULT_GEMINI) -> str | BaseLlm:
    """The model for a sample agent, following the rules in this module's docstring."""
    name = os.environ.get(MODEL_ENV, "").strip()
    if name and "/" in name:
        try:
            from google.adk.models.lite_llm import LiteLlm
        except ImportError as exc:
            raise MemoryKitError(
                f"{MODEL_ENV}={name} needs LiteLLM: pip install litellm"
            ) from exc
        return LiteLlm(model=name)
    if name:
        return name
    if has_model_access():
        return default
    return ScriptedLlm(responder=offline)
