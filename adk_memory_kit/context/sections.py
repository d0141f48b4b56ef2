"""Split an ADK ``LlmRequest`` into the budget's sections and measure each one.

Sections, in the order the budget spends tokens on them (:data:`SECTIONS`):

1. ``system``: system instruction, tool declarations and ADK's labelled dynamic instruction;
2. ``working_memory``: the ``<working_memory>`` block, wherever the instruction carries it;
3. ``recall``: recalled-memory blocks the kit inserts (``<RECALLED_MEMORY>``);
4. ``recent``: the newest invocations (the current one always among them), tool payloads aside;
5. ``older``: older history, including summaries of compacted history, tool payloads aside;
6. ``tool_payloads``: function-response payloads anywhere in the history.

The sum of the sections equals :func:`adk_memory_kit.pruning.estimate_request_tokens`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from google.adk.models.llm_request import LlmRequest
from google.genai import types

from adk_memory_kit.pruning.core import is_dynamic_instruction
from adk_memory_kit.pruning.tokens import (
    estimate_content_tokens,
    estimate_function_response_tokens,
    estimate_overhead_tokens,
    estimate_text_tokens,
)

SYSTEM = "system"
WORKING_MEMORY = "working_memory"
RECALL = "recall"
RECENT = "recent"
OLDER = "older"
TOOL_PAYLOADS = "tool_payloads"
SECTIONS: tuple[str, ...] = (SYSTEM, WORKING_MEMORY, RECALL, RECENT, OLDER, TOOL_PAYLOADS)
"""The budget's sections, in spending order (trimming goes the other way, see docs)."""

RECALL_PREFIX = "<RECALLED_MEMORY>"
WM_OPEN = "<working_memory>"
WM_CLOSE = "</working_memory>"

# content kinds
HISTORY = "history"
SCOPED_SYSTEM = "scoped_system"  # dynamic/static instruction contents
SCOPED_RECALL = "scoped_recall"


def _first_text(content: types.Content) -> str:
    parts = content.parts or ()
    text = parts[0].text if parts else None
    return text or ""


def content_kind(content: types.Content) -> str:
    """Whether a request content is history or inserted for this request only."""
    if getattr(content, "role", None) == "user":
        text = _first_text(content)
        if text.startswith(RECALL_PREFIX):
            return SCOPED_RECALL
        if is_dynamic_instruction(content):
            return SCOPED_SYSTEM
    return HISTORY


def is_human_turn(content: types.Content) -> bool:
    """A user content typed by a person (not a tool result, not inserted context)."""
    if getattr(content, "role", None) != "user" or content_kind(content) != HISTORY:
        return False
    return not any(p.function_response is not None for p in content.parts or ())


def payload_tokens(content: types.Content) -> int:
    """Estimated tokens of the function-response parts of ``content``."""
    return sum(
        estimate_function_response_tokens(p.function_response)
        for p in content.parts or ()
        if isinstance(p, types.Part) and p.function_response is not None
    )


def working_memory_tokens(text: str) -> int:
    """Tokens of the ``<working_memory>`` block inside ``text`` (0 if none)."""
    start = text.find(WM_OPEN)
    if start < 0:
        return 0
    end = text.find(WM_CLOSE, start)
    end = len(text) if end < 0 else end + len(WM_CLOSE)
    return min(estimate_text_tokens(text[start:end]), estimate_text_tokens(text))


def _instruction_text(request: LlmRequest) -> str:
    config = request.config
    instruction = config.system_instruction if config is not None else None
    if isinstance(instruction, str):
        return instruction
    if isinstance(instruction, types.Content):
        return "".join(p.text or "" for p in instruction.parts or ())
    return ""


@dataclass
class Layout:
    """Where each content of a request belongs."""

    kinds: list[str]
    """:func:`content_kind` of each content."""
    starts: list[int]
    """Indexes of human turns (invocation starts) among the history contents."""


def layout(contents: Sequence[types.Content]) -> Layout:
    """Classify ``contents`` and find the invocation starts."""
    kinds = [content_kind(c) for c in contents]
    starts = [i for i, c in enumerate(contents) if kinds[i] == HISTORY and is_human_turn(c)]
    return Layout(kinds, starts)


def measure(
    request: LlmRequest, contents: Sequence[types.Content], recent_from: int
) -> dict[str, int]:
    """Tokens per section; history at index ``>= recent_from`` counts as ``recent``."""
    sizes = dict.fromkeys(SECTIONS, 0)
    overhead = estimate_overhead_tokens(request)
    wm = working_memory_tokens(_instruction_text(request))
    sizes[SYSTEM] = overhead - wm
    sizes[WORKING_MEMORY] = wm
    for index, content in enumerate(contents):
        kind = content_kind(content)
        tokens = estimate_content_tokens(content)
        if kind == SCOPED_RECALL:
            sizes[RECALL] += tokens
        elif kind == SCOPED_SYSTEM:
            block = working_memory_tokens(_first_text(content))
            sizes[WORKING_MEMORY] += block
            sizes[SYSTEM] += tokens - block
        else:
            payload = payload_tokens(content)
            sizes[TOOL_PAYLOADS] += payload
            sizes[RECENT if index >= recent_from else OLDER] += tokens - payload
    return sizes
