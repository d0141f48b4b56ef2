"""``ContextBudgetConfig``: the options of a :class:`~adk_memory_kit.context.ContextBudget`.

A :class:`~adk_memory_kit.core.config.KitConfig`: validated at construction, a wrong value
raises :class:`~adk_memory_kit.errors.InvalidInputError` naming the field. Numbers are strict
(no ``bool``, no numeric strings, no NaN or infinity).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import ConfigDict, Field, PlainValidator, model_validator

from adk_memory_kit.context.summarizer import FactPreservingSummarizer
from adk_memory_kit.core.config import KitConfig

MAX_TOKENS = 100_000_000
"""The largest token count a budget accepts (far above any model's window)."""

Prunable = frozenset[str] | Callable[[str], bool] | None
"""Tools whose stale results may be replaced by tombstones: names, a predicate, or ``None``."""


def _prunable(value: Any) -> Prunable:
    """Tool names as a frozenset, a predicate as it is, ``None`` as it is."""
    if value is None or (callable(value) and not isinstance(value, type)):
        return value
    if isinstance(value, str):
        return frozenset({value})
    if isinstance(value, (list, tuple, set, frozenset)) and all(
        isinstance(name, str) for name in value
    ):
        return frozenset(value)
    raise ValueError("must be tool names or a predicate on a tool name")


def default_summarizer(max_tokens: int) -> FactPreservingSummarizer:
    """The offline summarizer a budget of ``max_tokens`` uses unless told otherwise."""
    return FactPreservingSummarizer(
        max_recent_tokens=max(40, max_tokens // 25),
        max_older_tokens=max(20, max_tokens // 40),
        max_values=24,
        max_tool_values=6,
    )


class ContextBudgetConfig(KitConfig):
    """How a :class:`~adk_memory_kit.context.ContextBudget` fits requests (see its docs)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    max_tokens: int = Field(
        strict=True,
        ge=1,
        le=MAX_TOKENS,
        description="The hard limit per request, in estimated tokens.",
    )
    safety_margin: float = Field(
        0.05,
        strict=True,
        allow_inf_nan=False,
        ge=0,
        le=0.99,
        description="Fraction added to each estimate before comparing with max_tokens.",
    )
    target_ratio: float = Field(
        0.6,
        strict=True,
        allow_inf_nan=False,
        gt=0,
        le=1,
        description="When history must be cut, cut to this share of max_tokens, so later "
        "turns append to an unchanged prefix for a while (fewer cache invalidations).",
    )
    keep_recent_invocations: int = Field(
        2,
        strict=True,
        ge=1,
        le=10_000,
        description="Invocations reported as 'recent' (the rest is 'older').",
    )
    prunable: Annotated[Prunable, PlainValidator(_prunable)] = Field(
        None,
        description="Tools whose stale results may be replaced by tombstones (names or a "
        "predicate); None: every tool except distilled and working-memory tools.",
    )
    recall_max_tokens: int | None = Field(
        None,
        strict=True,
        ge=0,
        le=MAX_TOKENS,
        description="Cap for recalled memories when over budget (None: max_tokens // 6).",
    )
    summarizer: FactPreservingSummarizer | None = Field(
        None,
        description="Summarises dropped history; None drops it without a summary. Not "
        "given: an offline FactPreservingSummarizer sized to max_tokens (default_summarizer).",
    )
    summary_max_tokens: int | None = Field(
        None,
        strict=True,
        ge=0,
        le=MAX_TOKENS,
        description="Room reserved for that summary when choosing the cut (None: the "
        "summarizer's own caps).",
    )

    @model_validator(mode="before")
    @classmethod
    def _summarizer_by_default(cls, data: Any) -> Any:
        if isinstance(data, dict) and "summarizer" not in data:
            max_tokens = data.get("max_tokens")
            if not isinstance(max_tokens, int) or not 1 <= max_tokens <= MAX_TOKENS:
                max_tokens = 1  # refused by the field; the summarizer only needs a size
            data = {**data, "summarizer": default_summarizer(max_tokens)}
        return data


__all__ = ["MAX_TOKENS", "ContextBudgetConfig", "default_summarizer"]
