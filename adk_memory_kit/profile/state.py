"""The user's profile as ``user:`` state holds it: ``user:pref_<name>`` and its written-at time."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from adk_memory_kit.core.times import parse_time
from adk_memory_kit.profile.vocabulary import USER_PREF_PREFIX, WRITTEN_AT_SUFFIX


@dataclass(frozen=True)
class ProfileValue:
    """One current ``user:pref_<name>`` value and when it was written."""

    name: str
    value: str
    written_at: datetime | None


def profile_from_state(
    state: Mapping[str, Any] | Any, names: Iterable[str] | None = None
) -> dict[str, ProfileValue]:
    """The ``user:pref_*`` values in ``state`` (optionally only ``names``), keyed by name."""
    data = state.to_dict() if hasattr(state, "to_dict") else dict(state)
    wanted = set(names) if names is not None else None
    profile: dict[str, ProfileValue] = {}
    for key, value in data.items():
        if not key.startswith(USER_PREF_PREFIX) or value is None:
            continue
        name = key[len(USER_PREF_PREFIX) :]
        if name.endswith(WRITTEN_AT_SUFFIX) and f"{USER_PREF_PREFIX}{name[:-3]}" in data:
            continue  # the written-at companion of another key
        if wanted is not None and name not in wanted:
            continue
        written = parse_time(data.get(f"{key}{WRITTEN_AT_SUFFIX}"))
        profile[name] = ProfileValue(name, str(value), written)
    return dict(sorted(profile.items()))
