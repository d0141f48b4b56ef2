"""``SummarizerConfig``: the caps of a :class:`~adk_memory_kit.context.FactPreservingSummarizer`.

A :class:`~adk_memory_kit.core.config.KitConfig`: validated at construction, a wrong value
raises :class:`~adk_memory_kit.errors.InvalidInputError` naming the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

from pydantic import ConfigDict, Field, PlainValidator

from adk_memory_kit.core.config import KitConfig
from adk_memory_kit.sensitive import Detector
from adk_memory_kit.sensitive.base import as_detectors

DEFAULT_DISTILLED_TOOLS: frozenset[str] = frozenset(
    {"save_finding", "save_findings", "get_findings", "record_finding"}
)
"""Tools whose results are already distilled; never summarised again."""


def _tool_names(value: Any) -> frozenset[str]:
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set, frozenset)):
        raise ValueError("must be a collection of tool names")
    if not all(isinstance(name, str) for name in value):
        raise ValueError("every item must be a tool name")
    return frozenset(value)


def _cap(description: str, default: int) -> Any:
    return Field(default, strict=True, ge=0, description=description)


class SummarizerConfig(KitConfig):
    """How much a :class:`~adk_memory_kit.context.FactPreservingSummarizer` keeps."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    max_recent_tokens: int = _cap("Cap on the prose of the newly compacted turns.", 400)
    max_older_tokens: int = _cap("Cap on the condensed prose of earlier summaries.", 250)
    max_values: int = _cap(
        "Cap on verbatim values stated in the dialogue (and carried from earlier summaries); "
        "the oldest go first.",
        40,
    )
    max_tool_values: int = _cap("Cap on verbatim values found only in tool results.", 12)
    max_constraints: int = _cap(
        "Cap on the user's verbatim constraint sentences (carried from earlier summaries; a "
        "constraint stated again counts as new; the oldest go first).",
        24,
    )
    distilled_tools: Annotated[frozenset[str], PlainValidator(_tool_names)] = Field(
        DEFAULT_DISTILLED_TOOLS,
        description="Tools whose results are already distilled (never summarised); "
        "working-memory tools are always added.",
    )
    detectors: Annotated[Sequence[Detector] | None, PlainValidator(as_detectors)] = Field(
        None, description="Sensitive-data detectors (None: the kit's defaults)."
    )


__all__ = ["DEFAULT_DISTILLED_TOOLS", "SummarizerConfig"]
