"""Budgets and guard settings for working memory."""

from __future__ import annotations

from pydantic import Field, field_validator

from adk_memory_kit.core.config import KitConfig
from adk_memory_kit.core.validation import short
from adk_memory_kit.errors import InvalidInputError

DEFAULT_KEY = "wm"
VIEW_SUFFIX = "_view"
LAST_TASK_SUFFIX = "_last_task"


class WorkingMemoryConfig(KitConfig):
    """Character and count budgets for one scratchpad (defaults follow the design notes).

    Frozen; a wrong value raises :class:`~adk_memory_kit.errors.InvalidInputError` at
    construction, naming the field.
    """

    max_facts: int = Field(
        12,
        ge=1,
        description="Facts kept; the oldest unpinned fact is evicted when a new one would "
        "exceed this.",
    )
    max_value_chars: int = Field(
        300,
        ge=16,
        description="Longest fact value stored; longer values are cut.",
    )
    max_view_chars: int = Field(
        1500,
        ge=300,
        description="Hard cap on the rendered ``<key>_view`` text, delimiters included.",
    )
    max_open_questions: int = Field(
        5,
        ge=1,
        description="Open questions kept; one more is refused until one is resolved.",
    )
    max_text_chars: int = Field(
        200,
        ge=16,
        description="Longest goal, constraint, plan step or question stored.",
    )
    max_constraints: int = Field(
        10,
        ge=1,
        description="Constraints kept; one more is refused (constraints are never evicted "
        "silently).",
    )
    max_plan_steps: int = Field(
        15,
        ge=3,
        description="Plan steps kept; a new step evicts the oldest done step, or is refused if "
        "none is done.",
    )
    done_steps_shown: int = Field(
        2,
        ge=0,
        description="Done steps listed one by one in the view; more than this collapse to one "
        "line.",
    )
    trusted_sources: frozenset[str] = Field(
        frozenset(),
        description="Fact sources whose values may be up to ``max_view_chars`` long instead of "
        "``max_value_chars``. Trust lifts only that cap: every value, whatever its source, has "
        "instruction-like text removed (the view still shortens long values).",
    )

    @field_validator("trusted_sources", mode="before")
    @classmethod
    def _as_frozenset(cls, value: object) -> object:
        if isinstance(value, str):
            return frozenset({value})
        return frozenset(value) if isinstance(value, (list, tuple, set)) else value


def view_key_for(key: str) -> str:
    """The state key holding the rendered view of scratchpad ``key``."""
    return f"{key}{VIEW_SUFFIX}"


def last_task_key_for(key: str) -> str:
    """The state key holding the compact record of scratchpad ``key``'s last finished task."""
    return f"{key}{LAST_TASK_SUFFIX}"


def check_state_key(key: str) -> str:
    """Return ``key`` if it can be used in a ``{key_view?}`` placeholder, else raise."""
    if not isinstance(key, str) or not key.isidentifier() or ":" in key:
        raise InvalidInputError(
            f"working-memory key {short(key)} must be a plain identifier such as 'wm' or "
            "'wm_flights' (letters, digits, underscores; no 'temp:' or 'user:' prefix)"
        )
    return key
