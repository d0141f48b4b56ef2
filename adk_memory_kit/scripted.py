"""Deprecated location of the scripted model: use :mod:`adk_memory_kit.testing`.

Kept as a re-export for one release; it will be removed in the next.
"""

from adk_memory_kit.testing import (
    INJECTED_PREFIXES,
    Responder,
    ScriptedLlm,
    call,
    conversation,
    last_function_responses,
    last_user_text,
)

__all__ = [
    "INJECTED_PREFIXES",
    "Responder",
    "ScriptedLlm",
    "call",
    "conversation",
    "last_function_responses",
    "last_user_text",
]
