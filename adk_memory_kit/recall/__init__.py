"""Safe recall: budgeted preload, recalled text framed as dated data, the conflict rule."""

from adk_memory_kit.profile.presets import DEFAULT_KNOWN_VALUES, DEFAULT_SUBJECT_TERMS
from adk_memory_kit.profile.state import ProfileValue, profile_from_state
from adk_memory_kit.recall.conflicts import Conflict, RecalledMemory, find_conflicts, is_about
from adk_memory_kit.recall.framing import PREAMBLE, RECALL_TAG, frame_memories, quote
from adk_memory_kit.recall.load import FramedLoadMemoryTool
from adk_memory_kit.recall.preload import (
    BudgetedPreloadMemoryTool,
    RecallBlock,
    RecallBudget,
    build_recall_block,
    estimate_tokens,
)

__all__ = [
    "DEFAULT_KNOWN_VALUES",
    "DEFAULT_SUBJECT_TERMS",
    "PREAMBLE",
    "RECALL_TAG",
    "BudgetedPreloadMemoryTool",
    "Conflict",
    "FramedLoadMemoryTool",
    "ProfileValue",
    "RecallBlock",
    "RecallBudget",
    "RecalledMemory",
    "build_recall_block",
    "estimate_tokens",
    "find_conflicts",
    "frame_memories",
    "is_about",
    "profile_from_state",
    "quote",
]
