"""Opt-in: mask the user's message before ADK's session service stores it.

ADK's session service keeps every user turn as it was typed (its ``events`` table), by
design: the kit's gate covers the kit's own tables only. For deployments that must keep no
secret anywhere, :class:`UserMessageRedactionPlugin` rewrites the user message in ADK's
``on_user_message_callback``, before the Runner appends it to the session. The cost: the
agent and its tools see the masked message too, so an agent can no longer read back or use
a card, password or id the user typed (it sees ``[REDACTED:payment_card]``).
"""

from __future__ import annotations

from collections.abc import Callable

from google.adk.agents.invocation_context import InvocationContext
from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types
from typing_extensions import override

from adk_memory_kit.core.db_errors import contained_doors
from adk_memory_kit.sensitive.gate import redact_for_store


@contained_doors
class UserMessageRedactionPlugin(BasePlugin):
    """Replaces every secret in the user message's text parts with ``[REDACTED:<kind>]``
    before ADK stores the turn; messages without a secret pass unchanged (``None``)."""

    def __init__(
        self,
        name: str = "user_message_redaction",
        redactor: Callable[[str], str] = redact_for_store,
    ) -> None:
        super().__init__(name=name)
        self._redactor = redactor

    @override
    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        changed = False
        parts: list[types.Part] = []
        for part in user_message.parts or []:
            if part.text:
                masked = self._redactor(part.text)
                if masked != part.text:
                    part = part.model_copy(update={"text": masked})
                    changed = True
            parts.append(part)
        if not changed:
            return None
        return user_message.model_copy(update={"parts": parts})
