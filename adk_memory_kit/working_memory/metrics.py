"""Repeated identical tool calls per task, counted from session events."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

DEFAULT_TASK_END = frozenset({"complete_task"})


@dataclass(frozen=True)
class TaskToolCalls:
    """Tool calls of one task (the calls up to and including a ``complete_task``)."""

    total: int = 0
    repeated: int = 0
    repeats_by_tool: dict[str, int] = field(default_factory=dict)
    completed: bool = False


def _canonical(args: Any) -> str:
    return json.dumps(args or {}, sort_keys=True, separators=(",", ":"), default=str)


def tool_calls_by_task(
    events: Iterable[Any],
    *,
    exclude: Collection[str] = (),
    task_end: Collection[str] = DEFAULT_TASK_END,
) -> list[TaskToolCalls]:
    """Split the session's function calls into tasks and count repeats in each.

    A call is *repeated* when the same tool was already called with the same arguments
    (compared as canonical JSON) earlier in the same task. A task ends at a call whose
    name is in ``task_end``; the last entry is the task still open (``completed=False``).
    Calls named in ``exclude`` (e.g. the working-memory tools) are not counted.
    """
    tasks: list[TaskToolCalls] = []
    seen: set[tuple[str, str]] = set()
    repeats: Counter[str] = Counter()
    total = 0
    for event in events:
        if getattr(event, "partial", False):
            continue
        for call in event.get_function_calls():
            name = call.name or ""
            if name in task_end:
                tasks.append(TaskToolCalls(total, sum(repeats.values()), dict(repeats), True))
                seen, repeats, total = set(), Counter(), 0
                continue
            if name in exclude:
                continue
            total += 1
            signature = (name, _canonical(call.args))
            if signature in seen:
                repeats[name] += 1
            seen.add(signature)
    tasks.append(TaskToolCalls(total, sum(repeats.values()), dict(repeats), False))
    return tasks


def repeated_tool_calls(
    events: Iterable[Any],
    *,
    exclude: Collection[str] = (),
    task_end: Collection[str] = DEFAULT_TASK_END,
) -> int:
    """Total repeated identical tool calls across all tasks in ``events``."""
    return sum(t.repeated for t in tool_calls_by_task(events, exclude=exclude, task_end=task_end))
