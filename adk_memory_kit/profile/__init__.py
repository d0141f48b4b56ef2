"""The user profile: the preference vocabulary, ``user:`` state keys, profile tools, presets.

Routing writes the profile and recall reads it; both depend on this package, never on each
other for it. ``USER_PREF_PREFIX`` is defined once, in :mod:`.vocabulary`.
"""

from adk_memory_kit.profile.guards import looks_like_instruction, looks_like_standing_order
from adk_memory_kit.profile.presets import (
    DEFAULT_KNOWN_VALUES,
    DEFAULT_PREFERENCES,
    DEFAULT_SUBJECT_TERMS,
)
from adk_memory_kit.profile.state import ProfileValue, profile_from_state
from adk_memory_kit.profile.tools import (
    InstructionValueError,
    SensitiveValueError,
    get_profile_tool,
    make_profile_tools,
    read_profile,
    save_preference_tool,
    write_preference,
)
from adk_memory_kit.profile.vocabulary import (
    DEFAULT_VOCABULARY,
    USER_PREF_PREFIX,
    WRITTEN_AT_SUFFIX,
    PreferenceVocabulary,
    UnknownPreferenceError,
)

__all__ = [
    "DEFAULT_KNOWN_VALUES",
    "DEFAULT_PREFERENCES",
    "DEFAULT_SUBJECT_TERMS",
    "DEFAULT_VOCABULARY",
    "USER_PREF_PREFIX",
    "WRITTEN_AT_SUFFIX",
    "InstructionValueError",
    "PreferenceVocabulary",
    "ProfileValue",
    "SensitiveValueError",
    "UnknownPreferenceError",
    "get_profile_tool",
    "looks_like_instruction",
    "looks_like_standing_order",
    "make_profile_tools",
    "profile_from_state",
    "read_profile",
    "save_preference_tool",
    "write_preference",
]
