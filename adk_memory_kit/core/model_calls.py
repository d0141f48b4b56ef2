"""One non-streaming model call the kit makes itself (extraction, consolidation, the forget
judge): the final response and its text.

Guarantees: a provider's error is reported by its code only, never its message (a provider
may echo the prompt, which holds user text); a partial response is never taken for the final
one; thought parts never reach the answer's text.
"""

from __future__ import annotations

from collections.abc import Callable

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse


async def final_response(
    model: BaseLlm,
    request: LlmRequest,
    *,
    what: str,
    error: Callable[[str], Exception],
) -> LlmResponse:
    """The model's final (non-partial) response to ``request``.

    Raises ``error(message)`` when the model reports an error (its code is named) or returns
    no content; ``what`` names the caller in the message ("the extraction model")."""
    final = None
    async for response in model.generate_content_async(request, stream=False):
        if response.error_code:
            raise error(f"{what} failed: {response.error_code}")
        if not response.partial:
            final = response
    if final is None or final.content is None:
        raise error(f"{what} returned no content")
    return final


def response_text(response: LlmResponse) -> str:
    """The answer's text: its non-thought text parts, joined."""
    parts = (response.content.parts or []) if response.content else []
    return "".join(p.text for p in parts if p.text and not p.thought)
