"""Transcript redaction: no raw secret in ADK's session store, while the turn still works.

ADK's session service keeps every event as it happened (its ``events`` table), by design; the
kit's gate covers the kit's own tables. :class:`UserMessageRedactionPlugin` closes that gap:

- the user's message is masked in ``on_user_message_callback``, before the Runner appends it
  to the session, so the stored event holds ``[REDACTED:<kind>]``;
- the model still sees what the user typed **in the turn where they typed it**
  (``before_model_callback`` puts the original back into that invocation's request only), so
  a booking can use the card; from the next turn on the model sees the masked text;
- the agent's events (its replies, the arguments of its tool calls and the tools' responses)
  are masked in ``on_event_callback``, before ADK appends them, so an echo of the secret is
  not stored either; so are the state changes they carry (a tool that saves a card number in
  ``tool_context.state``): the session's stored state, and so the console's export, hold the
  masked value. ``temp:`` keys are never stored and are left as they are, so a secret a later
  tool of the same invocation needs goes there; the kit's own records
  (``adk_memory_kit:...``: counts, ids, hashes) are left too.

The originals live in this process's memory for the length of one invocation and are dropped
in ``after_run_callback``. ``show_model_original=False`` keeps them from the model too (the
model then sees the masked turn). What remains exposed: the model provider's own handling of
the turn the secret was typed in (see ``docs/privacy.md``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types
from typing_extensions import override

from adk_memory_kit.core.db_errors import contained_doors
from adk_memory_kit.core.markers import KIT_STATE_NAMESPACE
from adk_memory_kit.sensitive.gate import redact_for_store

if TYPE_CHECKING:
    from google.adk.agents.context import Context
    from google.adk.agents.invocation_context import InvocationContext
    from google.adk.events.event import Event
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse


def _masked_value(value: Any, redactor: Callable[[str], str]) -> Any:
    """``value`` with every string in it (dicts and lists walked) passed through ``redactor``."""
    if isinstance(value, str):
        return redactor(value)
    if isinstance(value, dict):
        return {k: _masked_value(v, redactor) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked_value(v, redactor) for v in value]
    return value


def _kept_as_is(state_key: str) -> bool:
    """A state key whose value is never masked: ``temp:`` (never stored) and the kit's own
    records (no user text)."""
    return state_key.startswith("temp:") or KIT_STATE_NAMESPACE in state_key


def _masked_part(part: types.Part, redactor: Callable[[str], str]) -> types.Part:
    """``part`` with its text, call arguments and response masked (the same object when
    nothing changes)."""
    update: dict[str, Any] = {}
    if part.text:
        masked = redactor(part.text)
        if masked != part.text:
            update["text"] = masked
    call = part.function_call
    if call is not None and call.args:
        args = _masked_value(call.args, redactor)
        if args != call.args:
            update["function_call"] = call.model_copy(update={"args": args})
    response = part.function_response
    if response is not None and response.response:
        body = _masked_value(response.response, redactor)
        if body != response.response:
            update["function_response"] = response.model_copy(update={"response": body})
    return part.model_copy(update=update) if update else part


@contained_doors
class UserMessageRedactionPlugin(BasePlugin):
    """Masks secrets in what ADK stores of a turn: the user's message and the agent's events.

    Args:
        redactor: the gate applied to each text (default: the kit's ``redact_for_store``).
        show_model_original: the model sees the user's original message in the turn it was
            typed (default); ``False``: it sees the masked one.
    """

    def __init__(
        self,
        name: str = "user_message_redaction",
        redactor: Callable[[str], str] = redact_for_store,
        *,
        show_model_original: bool = True,
    ) -> None:
        super().__init__(name=name)
        self._redactor = redactor
        self.show_model_original = show_model_original
        self._originals: dict[str, dict[str, str]] = {}  # invocation -> masked text -> typed

    @override
    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        originals: dict[str, str] = {}
        parts: list[types.Part] = []
        for part in user_message.parts or []:
            masked = _masked_part(part, self._redactor)
            if masked is not part and part.text and masked.text:
                originals[masked.text] = part.text
            parts.append(masked)
        if not any(
            new is not old for new, old in zip(parts, user_message.parts or [], strict=True)
        ):
            return None
        if originals and self.show_model_original:
            self._originals[invocation_context.invocation_id] = originals
        return user_message.model_copy(update={"parts": parts})

    @override
    async def before_model_callback(
        self, *, callback_context: Context, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Give the model the user's original message, in this invocation's request only."""
        originals = self._originals.get(callback_context.invocation_id)
        if not originals:
            return None
        contents = []
        for content in llm_request.contents:
            if content.role == "user" and any(
                p.text in originals for p in content.parts or [] if p.text
            ):
                parts = [
                    p.model_copy(update={"text": originals[p.text]})
                    if p.text and p.text in originals
                    else p
                    for p in content.parts or []
                ]
                content = content.model_copy(update={"parts": parts})
            contents.append(content)
        llm_request.contents = contents
        return None

    @override
    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        """Mask the agent's events (replies, tool calls and responses, and the state changes
        they carry) before ADK stores them."""
        update: dict[str, Any] = {}
        if event.content is not None and event.content.parts:
            parts = [_masked_part(p, self._redactor) for p in event.content.parts]
            if any(new is not old for new, old in zip(parts, event.content.parts, strict=True)):
                update["content"] = event.content.model_copy(update={"parts": parts})
        delta = event.actions.state_delta if event.actions else None
        if delta:
            masked = {
                key: value if _kept_as_is(key) else _masked_value(value, self._redactor)
                for key, value in delta.items()
            }
            if masked != delta:
                update["actions"] = event.actions.model_copy(update={"state_delta": masked})
        return event.model_copy(update=update) if update else None

    @override
    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        self._originals.pop(invocation_context.invocation_id, None)
