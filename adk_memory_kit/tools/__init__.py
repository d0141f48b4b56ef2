"""Tools the model calls on its own memory: ``MemoryToolset`` (remember, recall, forget_memory,
correct_memory). Built on long-term memory and the routing rule, so it sits above both."""

from adk_memory_kit.tools.config import MemoryToolsetConfig
from adk_memory_kit.tools.memory_toolset import MEMORY_TOOL_NAMES, MemoryToolset

__all__ = ["MEMORY_TOOL_NAMES", "MemoryToolset", "MemoryToolsetConfig"]
