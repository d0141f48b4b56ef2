"""Names of the kit's own memory tools, for the components that recognise their results.

The write policy reads these to tell an agent sentence that only reports what a memory tool
did ("Saved to your profile: diet = vegetarian.") from one with its own substance. The tools
themselves live higher up (``tools``, ``profile``, ``lifecycle``); each name here is checked
against the real tool's name by tests/write_policy/test_tool_provenance.py.
"""

from __future__ import annotations

#: :class:`~adk_memory_kit.tools.MemoryToolset`'s tools (the model's agentic memory).
MEMORY_TOOL_NAMES: tuple[str, ...] = ("remember", "recall", "forget_memory", "correct_memory")

#: The MemoryToolset's opt-in tool for notes private to the calling agent (issue 47,
#: ``MemoryToolsetConfig(agent_notes=True)``).
AGENT_NOTE_TOOL_NAME = "remember_for_agent"

#: The profile tools of :func:`adk_memory_kit.profile.make_profile_tools`.
PROFILE_TOOL_NAMES: tuple[str, ...] = ("save_preference", "get_profile")

#: :func:`adk_memory_kit.lifecycle.end_session_tool`'s tool.
END_SESSION_TOOL_NAME = "end_session"
