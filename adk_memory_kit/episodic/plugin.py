"""``EpisodicLogPlugin``: an ADK plugin that appends what the agent did to an ``EpisodicLog``.

One entry per user message, model call, tool call, tool error, state delta, agent transfer,
tool-confirmation request, human decision (a confirmation or long-running tool answer sent
back by the user) and unhandled error (model, agent or run). Every callback only queues an
entry in memory: token estimates, cost, redaction and the database write happen in the
log's background writer. A callback never raises and never changes what ADK does (it always
returns ``None``); a failure inside it is logged without any user text.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import Any

from google.adk.agents.base_agent import BaseAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.invocation_context import InvocationContext
from google.adk.events.event import Event
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types
from typing_extensions import override

from adk_memory_kit.core.db_errors import contained_doors
from adk_memory_kit.episodic import entry as kinds
from adk_memory_kit.episodic.store import EpisodicLog, PendingEntry
from adk_memory_kit.errors import InvalidInputError

logger = logging.getLogger(__name__)

CONFIRMATION_FUNCTION = "adk_request_confirmation"
"""The function ADK uses to ask the user to confirm a tool call."""

_MAX_OPEN_CALLS = 4096
"""Start times kept for calls still open; older ones are dropped (a call that never ends)."""


def _never_raises(method: Callable) -> Callable:
    """Run a callback; on any error log its class and return ``None`` (the turn goes on)."""

    @functools.wraps(method)
    async def wrapper(self: EpisodicLogPlugin, **kwargs: Any) -> None:
        try:
            method(self, **kwargs)
        except Exception as exc:  # the log must never break the turn
            self.callback_errors += 1
            logger.warning(
                "episodic log: %s failed (%s); entry skipped", method.__name__, type(exc).__name__
            )
        return None

    return wrapper


def _session_ids(session: Any) -> tuple[str, str, str]:
    return session.app_name, session.user_id, session.id


def _response_parts(content: types.Content | None) -> tuple[str, list[dict[str, Any]]]:
    """(answer text without thoughts, function calls) of a model reply."""
    if content is None or not content.parts:
        return "", []
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for part in content.parts:
        if part.text and not part.thought:
            texts.append(part.text)
        call = part.function_call
        if call is not None:
            calls.append({"name": call.name, "args": call.args, "id": call.id})
    return "".join(texts), calls


@contained_doors
class EpisodicLogPlugin(BasePlugin):
    """Writes every step of every invocation to an :class:`EpisodicLog`.

    Args:
      log: where to write; ``None`` creates ``EpisodicLog()`` on the default database
        (closed with the plugin). A log passed in is flushed, not closed, by ``close``.
      name: the plugin's name in the runner.
      state_deltas: log state changes (``state_delta`` entries).
      flush_after_run: write the queue at the end of every run (adds one database round
        trip to the end of the run; off by default, the writer flushes on its own).

    ``records_model_calls``: the memory router reports its own extraction call to this
    plugin too, so its tokens and latency show beside the agent's model calls.
    """

    records_model_calls = True

    def __init__(
        self,
        log: EpisodicLog | None = None,
        *,
        name: str = "episodic_log",
        state_deltas: bool = True,
        flush_after_run: bool = False,
    ) -> None:
        super().__init__(name=name)
        if log is not None and not isinstance(log, EpisodicLog):
            raise InvalidInputError(f"log must be an EpisodicLog or None, got {type(log).__name__}")
        self._owns_log = log is None
        self.log = log if log is not None else EpisodicLog()
        self.state_deltas = state_deltas
        self.flush_after_run = flush_after_run
        self.callback_errors = 0
        """Callbacks that failed (their entry was skipped)."""
        self._models: dict[tuple[str, str, str], list[tuple[float, str, LlmRequest]]] = {}
        self._tools: dict[str, float] = {}

    # ------------------------------------------------------------------ helpers
    def _append(self, session: Any, invocation_id: str, agent: str, kind: str, name: str, **kw):
        app_name, user_id, session_id = _session_ids(session)
        self.log.append(
            PendingEntry(app_name, user_id, session_id, invocation_id, agent, kind, name, **kw)
        )

    def _model_key(self, ctx: CallbackContext) -> tuple[str, str, str]:
        return (ctx.invocation_id, ctx.agent_name, ctx.branch or "")

    def _tool_latency(self, ctx: ToolContext) -> float | None:
        started = self._tools.pop(ctx.function_call_id or "", None)
        return None if started is None else (time.perf_counter() - started) * 1000

    # ------------------------------------------------------------------ run
    @override
    @_never_raises
    def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> None:
        texts, answers = [], []
        for part in user_message.parts or ():
            if part.text:
                texts.append(part.text)
            if part.function_response is not None:
                answers.append(part.function_response)
        session, invocation = invocation_context.session, invocation_context.invocation_id
        agent = invocation_context.agent.name if invocation_context.agent else ""
        if texts:
            text_payload = {"text": "\n".join(texts)}
            self._append(
                session, invocation, agent, kinds.USER_MESSAGE, "user", payload=text_payload
            )
        for answer in answers:  # a confirmation or a long-running tool's result, from a human
            payload: dict[str, Any] = {"id": answer.id, "response": answer.response}
            self._append(
                session, invocation, agent, kinds.HUMAN_DECISION, answer.name or "", payload=payload
            )

    @override
    @_never_raises
    def on_event_callback(self, *, invocation_context: InvocationContext, event: Event) -> None:
        actions = event.actions
        if actions is None or event.partial:
            return
        session = invocation_context.session
        invocation = event.invocation_id or invocation_context.invocation_id
        delta = actions.state_delta if self.state_deltas else None
        if delta:  # temp: keys live for one invocation and are never stored: not logged
            delta = {k: v for k, v in delta.items() if not k.startswith("temp:")}
        if delta:
            payload = {"delta": delta}
            self._append(
                session, invocation, event.author, kinds.STATE_DELTA, "state", payload=payload
            )
        if actions.transfer_to_agent:
            self._append(
                session, invocation, event.author, kinds.TRANSFER, actions.transfer_to_agent,
                payload={"to": actions.transfer_to_agent},
            )  # fmt: skip
        if actions.requested_tool_confirmations:
            requests = {
                call_id: confirmation.model_dump(mode="json", exclude_none=True)
                for call_id, confirmation in actions.requested_tool_confirmations.items()
            }
            self._append(
                session, invocation, event.author, kinds.CONFIRMATION, CONFIRMATION_FUNCTION,
                payload={"requests": requests},
            )  # fmt: skip

    @override
    @_never_raises
    def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        agent = invocation_context.agent.name if invocation_context.agent else ""
        self._append(
            invocation_context.session, invocation_context.invocation_id, agent, kinds.ERROR,
            "run", payload={"where": "run"}, error_type=type(error).__name__,
        )  # fmt: skip

    @override
    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        if self.flush_after_run:
            try:
                await self.log.flush()
            except Exception as exc:
                logger.warning("episodic log: flush after run failed (%s)", type(exc).__name__)
        return None

    # ------------------------------------------------------------------ agents
    @override
    @_never_raises
    def on_agent_error_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext, error: Exception
    ) -> None:
        self._append(
            callback_context.session, callback_context.invocation_id, agent.name, kinds.ERROR,
            agent.name, payload={"where": "agent"}, error_type=type(error).__name__,
        )  # fmt: skip

    # ------------------------------------------------------------------ models
    @override
    @_never_raises
    def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> None:
        key = self._model_key(callback_context)
        opened = self._models.setdefault(key, [])
        opened.append((time.perf_counter(), llm_request.model or "", llm_request))
        if len(self._models) > _MAX_OPEN_CALLS:
            self._models.pop(next(iter(self._models)))

    def _close_model(self, ctx: CallbackContext) -> tuple[float | None, str, LlmRequest | None]:
        key = self._model_key(ctx)
        opened = self._models.get(key)
        if not opened:
            return None, "", None
        started, model, request = opened.pop()
        if not opened:
            del self._models[key]
        return (time.perf_counter() - started) * 1000, model, request

    @override
    @_never_raises
    def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> None:
        if llm_response.partial:  # streaming fragment: the aggregated response follows
            return
        latency, model, request = self._close_model(callback_context)
        text, calls = _response_parts(llm_response.content)
        payload: dict[str, Any] = {"text": text}
        if calls:
            payload["function_calls"] = calls
        if llm_response.finish_reason is not None:
            payload["finish_reason"] = str(llm_response.finish_reason.value)
        usage = llm_response.usage_metadata
        input_tokens = output_tokens = None
        if usage is not None and usage.prompt_token_count is not None:
            input_tokens = usage.prompt_token_count
            output_tokens = (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)
            if usage.cached_content_token_count:
                payload["cached_input_tokens"] = usage.cached_content_token_count
        self._append(
            callback_context.session,
            callback_context.invocation_id,
            callback_context.agent_name,
            kinds.MODEL_CALL,
            model or (llm_response.model_version or ""),
            latency_ms=latency,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            payload=payload,
            error_code=str(llm_response.error_code) if llm_response.error_code else None,
            request=request if input_tokens is None else None,
            response_content=llm_response.content if input_tokens is None else None,
        )

    @override
    @_never_raises
    def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> None:
        latency, model, _ = self._close_model(callback_context)
        self._append(
            callback_context.session, callback_context.invocation_id,
            callback_context.agent_name, kinds.ERROR, model or llm_request.model or "",
            latency_ms=latency, payload={"where": "model"}, error_type=type(error).__name__,
        )  # fmt: skip

    # ------------------------------------------------------------------ tools
    @override
    @_never_raises
    def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> None:
        self._tools[tool_context.function_call_id or ""] = time.perf_counter()
        if len(self._tools) > _MAX_OPEN_CALLS:
            self._tools.pop(next(iter(self._tools)))

    @override
    @_never_raises
    def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: dict[str, Any],
    ) -> None:
        call_id = tool_context.function_call_id or ""
        if call_id not in self._tools:  # already logged as a tool_error (answered by a plugin)
            return
        if call_id in tool_context.actions.requested_tool_confirmations:
            self._tools.pop(call_id, None)  # held for a human: the confirmation row says so
            return
        self._append(
            tool_context.session, tool_context.invocation_id, tool_context.agent_name,
            kinds.TOOL_CALL, tool.name, latency_ms=self._tool_latency(tool_context),
            payload={"id": call_id, "args": dict(tool_args), "result": result},
        )  # fmt: skip

    @override
    @_never_raises
    def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: BaseException,
    ) -> None:
        self._append(
            tool_context.session, tool_context.invocation_id, tool_context.agent_name,
            kinds.TOOL_ERROR, tool.name, latency_ms=self._tool_latency(tool_context),
            payload={"id": tool_context.function_call_id, "args": dict(tool_args)},
            error_type=type(error).__name__,
        )  # fmt: skip

    # ------------------------------------------------------------------ shutdown
    @override
    async def close(self) -> None:
        """Write what is queued; close the log too if this plugin created it."""
        try:
            if self._owns_log:
                await self.log.close()
            else:
                await self.log.flush()
        except Exception as exc:
            logger.warning("episodic log: close failed (%s)", type(exc).__name__)
