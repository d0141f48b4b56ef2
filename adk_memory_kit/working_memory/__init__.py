"""Working memory: a bounded, typed task scratchpad kept by tools and shown via ``{wm_view?}``."""

from __future__ import annotations

from adk_memory_kit.working_memory.config import (
    WorkingMemoryConfig,
    last_task_key_for,
    view_key_for,
)
from adk_memory_kit.working_memory.guards import strip_instructions, tools_called_in_invocation
from adk_memory_kit.working_memory.instruction import (
    working_memory_guide,
    working_memory_instruction,
)
from adk_memory_kit.working_memory.merge import (
    MergeResult,
    merge_branches_callback,
    merge_scratchpads,
    merge_working_memory,
)
from adk_memory_kit.working_memory.metrics import (
    TaskToolCalls,
    repeated_tool_calls,
    tool_calls_by_task,
)
from adk_memory_kit.working_memory.model import SCHEMA_VERSION, Fact, PlanStep, Scratchpad
from adk_memory_kit.working_memory.render import RenderedView, render_view
from adk_memory_kit.working_memory.toolset import (
    WORKING_MEMORY_TOOL_NAMES,
    WorkingMemoryToolset,
)

__all__ = [
    "SCHEMA_VERSION",
    "WORKING_MEMORY_TOOL_NAMES",
    "Fact",
    "MergeResult",
    "PlanStep",
    "RenderedView",
    "Scratchpad",
    "TaskToolCalls",
    "WorkingMemoryConfig",
    "WorkingMemoryToolset",
    "last_task_key_for",
    "merge_branches_callback",
    "merge_scratchpads",
    "merge_working_memory",
    "render_view",
    "repeated_tool_calls",
    "strip_instructions",
    "tool_calls_by_task",
    "tools_called_in_invocation",
    "view_key_for",
    "working_memory_guide",
    "working_memory_instruction",
]
