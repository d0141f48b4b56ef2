"""ScriptedLlm, the model that never calls a network, and helpers to read its requests."""

from __future__ import annotations

import inspect
import itertools
from collections.abc import AsyncGenerator, Callable, Sequence
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import ConfigDict, Field
from typing_extensions import override

from adk_memory_kit._adk_compat import is_labelled_instruction_text
from adk_memory_kit.pruning.tokens import estimate_content_tokens, estimate_request_tokens

Turn = str | Sequence[types.Part] | LlmResponse
"""One answer: text, parts, or a complete response."""

Responder = Callable[[LlmRequest], Any]
"""``(llm_request) -> Turn`` (or an awaitable of one)."""

_call_ids = itertools.count(1)

#: Prefixes of user-role contents the kit adds to a request rather than the user saying them
#: (the recall block). ADK's labelled dynamic instruction is recognised through the one door
#: to ADK internals (:mod:`adk_memory_kit._adk_compat`).
INJECTED_PREFIXES: tuple[str, ...] = ("<RECALLED_MEMORY>",)


def call(tool: str, /, **args: Any) -> types.Part:
    """A function-call part with a deterministic id (``scripted-N``), for use in turns."""
    return types.Part(
        function_call=types.FunctionCall(id=f"scripted-{next(_call_ids)}", name=tool, args=args)
    )


def _injected(content: types.Content) -> bool:
    text = content.parts[0].text if content.parts else None
    if not text:
        return False
    return text.startswith(INJECTED_PREFIXES) or is_labelled_instruction_text(text)


def conversation(request: LlmRequest) -> list[types.Content]:
    """The request's contents without injected instruction or recall blocks."""
    return [c for c in request.contents or [] if not _injected(c)]


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
    """A ``BaseLlm`` that answers from ``turns``, then ``responder``; records every request.

    See the module documentation for what a turn may be. It makes no network call and is
    deterministic as long as its turns and responder are.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: str = "scripted-offline"
    responder: Any = Field(
        default=None,
        description="(llm_request) -> turn, sync or async; answers once the turns are used up.",
    )
    turns: list[Any] = Field(
        default_factory=list,
        description="Turns played back in order, one per request (consumed as they are used).",
    )
    requests: list[LlmRequest] = Field(
        default_factory=list, description="Every request the model received, in order."
    )

    async def _next_turn(self, llm_request: LlmRequest) -> Any:
        if self.turns:
            turn = self.turns.pop(0)
        elif self.responder is not None:
            turn = self.responder
        else:
            return "ok"
        if callable(turn):
            turn = turn(llm_request)
            if inspect.isawaitable(turn):
                turn = await turn
        return turn

    @override
    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        self.requests.append(llm_request)
        reply = await self._next_turn(llm_request)
        if isinstance(reply, LlmResponse):
            yield reply
            return
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
