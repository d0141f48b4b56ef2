"""``MemoryToolsetConfig``: the options of a :class:`~adk_memory_kit.tools.MemoryToolset`.

A :class:`~adk_memory_kit.core.config.KitConfig`: validated at construction, a wrong value
raises :class:`~adk_memory_kit.errors.InvalidInputError` naming the field.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from adk_memory_kit.core.config import KitConfig
from adk_memory_kit.core.validation import check_positive_int


class MemoryToolsetConfig(KitConfig):
    """How the model's memory tools answer."""

    recall_limit: int = Field(
        5, strict=True, le=1000, description="At most this many memories per recall (1-1000)."
    )

    agent_notes: bool = Field(
        False,
        strict=True,
        description="Add the remember_for_agent tool: notes private to the calling agent "
        "(scope agent:<name>, docs/scopes.md).",
    )

    @field_validator("recall_limit", mode="before")
    @classmethod
    def _positive_whole(cls, value: Any) -> int:
        return check_positive_int("recall_limit", value)  # no bool, no 1.5, at least 1


__all__ = ["MemoryToolsetConfig"]
