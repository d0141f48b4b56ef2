"""``ContextBudgetPlugin``: :class:`ContextBudget` for every model call of an App/Runner."""

from __future__ import annotations

from typing import Any

from google.adk.agents.callback_context import CallbackContext
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.plugins.base_plugin import BasePlugin
from typing_extensions import override

from adk_memory_kit.context.budget import BudgetReport, ContextBudget
from adk_memory_kit.core.db_errors import contained_doors
from adk_memory_kit.errors import InvalidInputError


@contained_doors
class ContextBudgetPlugin(BasePlugin):
    """Keep every request of an app within ``max_tokens``; see :class:`ContextBudget`.

    ``App(name=..., root_agent=agent, plugins=[..., ContextBudgetPlugin(max_tokens=6000)])``

    Put it **last** among plugins that edit requests, so it measures what is sent. ADK wraps
    an exception raised in a plugin callback in a ``RuntimeError``; the
    :class:`~adk_memory_kit.errors.ContextBudgetExceededError` is its ``__cause__`` (use the
    :class:`ContextBudget` callback object directly to get the kit error unwrapped).
    Takes the same keyword options as :class:`ContextBudget`, or a ready ``budget``.
    """

    def __init__(
        self,
        max_tokens: int | None = None,
        *,
        budget: ContextBudget | None = None,
        name: str = "context_budget",
        **options: Any,
    ) -> None:
        super().__init__(name)
        if budget is None:
            if max_tokens is None:
                raise InvalidInputError(
                    "ContextBudgetPlugin needs max_tokens (and options) or "
                    "budget=ContextBudget(...)"
                )
            budget = ContextBudget(max_tokens, **options)
        elif max_tokens is not None or options:
            raise InvalidInputError("pass either max_tokens/options or a budget, not both")
        if not isinstance(budget, ContextBudget):
            raise InvalidInputError(f"budget must be a ContextBudget, got {type(budget).__name__}")
        self.budget = budget

    @property
    def report(self) -> BudgetReport:
        """Per-call records of the budget."""
        return self.budget.report

    @override
    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Fit the outgoing request in the budget (raises before the model call if it cannot)."""
        await self.budget(callback_context, llm_request)
        return None

    @override
    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """Calibrate the estimate against the model's reported prompt tokens."""
        self.budget.after_model_callback(callback_context, llm_response)
        return None
