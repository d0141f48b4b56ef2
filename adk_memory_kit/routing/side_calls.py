"""Model calls the router makes itself (the extraction call), reported to logging plugins.

ADK reports an agent's model calls to every plugin; a call the routing plugin makes with the
model directly is not. While the router handles a turn it sets :data:`ROUTING_CONTEXT`;
:func:`record_side_call` then hands the request and response to each Runner plugin that
declares ``records_model_calls = True`` (the episodic log), as its before/after model
callbacks, so the extraction's tokens and latency appear in the log beside the agent's.
"""

from __future__ import annotations

import contextvars
import inspect
import logging
from typing import Any

from adk_memory_kit._adk_compat import context_plugins

logger = logging.getLogger(__name__)

ROUTING_CONTEXT: contextvars.ContextVar[Any] = contextvars.ContextVar(
    "adk_memory_kit_routing_context", default=None
)


async def record_side_call(request: Any, response: Any, latency_ms: float) -> int:
    """Report one model call to the logging plugins of the current turn; returns how many
    plugins saw it (0 outside a routed turn). Never raises."""
    context = ROUTING_CONTEXT.get()
    if context is None:
        return 0
    seen = 0
    for plugin in context_plugins(context):
        if not getattr(plugin, "records_model_calls", False):
            continue
        try:
            for result in (
                plugin.before_model_callback(callback_context=context, llm_request=request),
                plugin.after_model_callback(callback_context=context, llm_response=response),
            ):
                if inspect.isawaitable(result):
                    await result
            seen += 1
        except Exception as exc:  # a logging plugin never breaks routing
            logger.warning("routing: could not report the extraction call (%s)", type(exc).__name__)
    return seen
