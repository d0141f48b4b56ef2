"""Safe recall: budgeted preload, recalled text framed as dated data, the conflict rule."""

from adk_memory_kit.recall.conflicts import (
    Conflict,
    ProfileValue,
    RecalledMemory,
    find_conflicts,
    profile_from_state,
)
from adk_memory_kit.recall.framing import PREAMBLE, RECALL_TAG, frame_memories, quote
from adk_memory_kit.recall.preload import (
    BudgetedPreloadMemoryTool,
    RecallBlock,
    build_recall_block,
    estimate_tokens,
)

__all__ = [
    "PREAMBLE",
    "RECALL_TAG",
    "BudgetedPreloadMemoryTool",
    "Conflict",
    "ProfileValue",
    "RecallBlock",
    "RecalledMemory",
    "build_recall_block",
    "estimate_tokens",
    "find_conflicts",
    "frame_memories",
    "profile_from_state",
    "quote",
]
