"""A scripted ``BaseLlm`` for offline runs (the demo, sample agents without an API key).

It never calls a network. A *responder* looks at the outgoing ``LlmRequest`` and returns the
parts of the model's reply: text, function calls, or both. This is how the demo and the sample
agents run end to end through a real ADK ``Runner`` on a machine with no model access.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import ConfigDict, Field

from adk_memory_kit.pruning.tokens import estimate_content_tokens, estimate_request_tokens

Responder = Callable[[LlmRequest], Sequence[types.Part] | str]

_call_ids = itertools.count(1)


def call(tool: str, /, **args: Any) -> types.Part:
    """A function-call part with a deterministic id, for use in responders."""
    return types.Part(
        function_call=types.FunctionCall(id=f"scripted-{next(_call_ids)}", name=tool, args=args)
    )


# User-role contents that frameworks add to a request rather than the user saying them: ADK's
# dynamic instruction when a static instruction is set, and the kit's recall block.
INJECTED_PREFIXES = ("The text between <<<BEGIN_SYSTEM_INSTRUCTION", "<RECALLED_MEMORY>")


def conversation(request: LlmRequest) -> list[types.Content]:
    """The request's contents without injected instruction or recall blocks."""
    return [
        c
        for c in request.contents or []
        if not (c.parts and c.parts[0].text and c.parts[0].text.startswith(INJECTED_PREFIXES))
    ]


def last_user_text(request: LlmRequest) -> str:
    """The text of the newest user-authored content in the request ('' if none)."""
    for content in reversed(conversation(request)):
        if content.role == "user":
            texts = [p.text for p in content.parts or [] if p.text]
            if texts:
                return "\n".join(texts)
    return ""


def last_function_responses(request: LlmRequest) -> list[types.FunctionResponse]:
    """Function responses in the newest conversation content, if it holds any."""
    contents = conversation(request)
    if not contents:
        return []
    return [p.function_response for p in contents[-1].parts or [] if p.function_response]


class ScriptedLlm(BaseLlm):
    """Replies by calling ``responder(llm_request)``; records every request it saw."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: str = "scripted-offline"
    responder: Any = None
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        reply = self.responder(llm_request) if self.responder else "ok"
        parts = [types.Part(text=reply)] if isinstance(reply, str) else list(reply)
        content = types.Content(role="model", parts=parts)
        prompt = estimate_request_tokens(llm_request)
        reply_tokens = estimate_content_tokens(content)
        yield LlmResponse(
            content=content,
            turn_complete=True,
            # estimates (chars/4), so token accounting and ADK's telemetry have figures offline
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=prompt,
                candidates_token_count=reply_tokens,
                total_token_count=prompt + reply_tokens,
            ),
        )
