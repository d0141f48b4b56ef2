"""Provenance of agent sentences that report what the kit's own memory tools did.

An agent turn such as "Saved to your profile: diet = vegetarian." or "Session closed into
long-term memory (events_saved: 10)." restates a memory operation: the fact already lives in
its home (``user:`` state, the profile, long-term memory, the scratchpad), so storing the
report as a new memory would duplicate it. This module collects, per invocation, the content
stems such a report is made of:

* the name, arguments and result of every call of a kit memory tool
  (:data:`KIT_MEMORY_TOOL_NAMES`) in that invocation;
* every key and value written to ``user:`` state in that invocation;
* :data:`REPORT_WORDS`, the words an agent uses to report a memory operation ("saved",
  "profile", "long-term memory" ...), only in an invocation that did one of the above.

The write policy drops an agent sentence whose content stems are mostly (``echo_threshold``)
in its invocation's set. A sentence with its own substance (a booking a booking tool
confirmed, a research answer) shares few words with a memory tool's result and stays.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from adk_memory_kit.core.tool_names import (
    END_SESSION_TOOL_NAME,
    MEMORY_TOOL_NAMES,
    PROFILE_TOOL_NAMES,
)
from adk_memory_kit.text.signals import content_stems, fingerprint
from adk_memory_kit.working_memory import WORKING_MEMORY_TOOL_NAMES

if TYPE_CHECKING:
    from google.adk.events.event import Event

#: Every tool whose result is a memory operation of the kit (its recall tools are handled by
#: recall provenance, :func:`adk_memory_kit.routing.records.session_recall_stems`).
KIT_MEMORY_TOOL_NAMES: frozenset[str] = frozenset(
    {*MEMORY_TOOL_NAMES, *PROFILE_TOOL_NAMES, END_SESSION_TOOL_NAME, *WORKING_MEMORY_TOOL_NAMES}
)

#: The state prefix of values that live in the user's profile.
USER_PREFIX = "user:"

#: Words that report a memory operation; they count only where one happened.
REPORT_WORDS = frozenset(
    """
    saved save stored store recorded record remembered remember updated update set added
    removed deleted forgotten forget corrected correction profile preference preferences
    memory memories long-term long term session closed conversation scratchpad goal fact
    note notes value status ok
    """.split()
)


def _strings(value: Any) -> Iterable[str]:
    """Every key and string/number leaf of a tool payload."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, (str, int, float)) and not isinstance(value, bool):
        yield str(value)
    elif value is not None and hasattr(value, "model_dump"):
        yield from _strings(value.model_dump(mode="json"))


def _is_kit_tool(name: str | None) -> bool:
    return bool(name) and name in KIT_MEMORY_TOOL_NAMES


def _words_of(texts: Iterable[str]) -> set[str]:
    stems: set[str] = set()
    for text in texts:
        stems |= content_stems(text.replace("_", " ").replace(":", " "))
    return stems


def memory_report_stems(events: Sequence[Event]) -> dict[str, set[str]]:
    """Hashed stems a memory-operation report may use, per invocation id.

    An invocation without a kit memory tool call or a ``user:`` state write has no entry.
    """
    texts: dict[str, list[str]] = {}
    for event in events:
        found: list[str] = []
        for part in (event.content.parts or []) if event.content else []:
            call, response = part.function_call, part.function_response
            if call is not None and _is_kit_tool(call.name):
                found += [call.name or "", *_strings(call.args or {})]
            if response is not None and _is_kit_tool(response.name):
                found += [response.name or "", *_strings(response.response or {})]
        for key, value in (event.actions.state_delta or {}).items():
            if key.startswith(USER_PREFIX):
                found += [key[len(USER_PREFIX) :], *_strings(value)]
        if found:
            texts.setdefault(event.invocation_id or "", []).extend(found)
    return {
        invocation: set(fingerprint(_words_of(found) | _words_of(REPORT_WORDS)))
        for invocation, found in texts.items()
    }
