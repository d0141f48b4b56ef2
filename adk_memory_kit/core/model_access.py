"""Which real model is configured, if any: the one rule the samples, the demo and
``FactPreservingSummarizer(model="auto")`` share.

* ``ADK_MEMORY_KIT_MODEL`` set: a Gemini id (``gemini-2.5-flash``) is used as is; a LiteLLM id
  (``openai/gpt-4o-mini``, ``anthropic/claude-...``, ``ollama_chat/llama3``: anything with a
  ``/``) goes through ADK's ``LiteLlm`` wrapper (``pip install litellm``).
* else, with ``GOOGLE_API_KEY`` (or Vertex AI configured): ``gemini-2.5-flash``.
* else: ``None``; the caller chooses its offline stand-in, e.g.
  ``configured_model() or ScriptedLlm(responder=...)`` (``adk_memory_kit.testing``).
"""

from __future__ import annotations

import os

from google.adk.models.base_llm import BaseLlm

from adk_memory_kit.errors import MemoryKitError

MODEL_ENV = "ADK_MEMORY_KIT_MODEL"
DEFAULT_GEMINI = "gemini-2.5-flash"


def has_model_access() -> bool:
    """True when a real model is configured (explicit model, API key or Vertex AI)."""
    return bool(
        os.environ.get(MODEL_ENV)
        or os.environ.get("GOOGLE_API_KEY")
        or os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() in {"1", "true"}
    )


def configured_model(default: str = DEFAULT_GEMINI) -> str | BaseLlm | None:
    """The configured model, following the rules in this module's docstring; ``None`` when
    no model is configured."""
    name = os.environ.get(MODEL_ENV, "").strip()
    if name and "/" in name:
        try:
            from google.adk.models.lite_llm import LiteLlm
        except ImportError as exc:
            raise MemoryKitError(f"{MODEL_ENV}={name} needs LiteLLM: pip install litellm") from exc
        return LiteLlm(model=name)
    if name:
        return name
    if has_model_access():
        return default
    return None
