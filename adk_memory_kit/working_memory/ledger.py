"""The task ledger on top of the plan: step ids, dependencies, and which steps are ready.

A plan step may carry an ``id`` (short, e.g. ``fetch``) and ``depends_on`` (ids of earlier
steps). A ``todo`` step is *ready* when every step it depends on is ``done``; an id that is
no longer in the plan counts as done (only done steps are evicted). Plans without ids work
exactly as before.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from adk_memory_kit.working_memory.model import PlanStep, Scratchpad

STEP_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,19}$")
"""A step id: 1-20 of a-z, 0-9, ``_`` and ``-``, starting with a letter or digit."""


def uses_ledger(pad: Scratchpad) -> bool:
    """True when any step has an id or dependencies (the view then shows readiness)."""
    return any(s.id or s.depends_on for s in pad.plan)


def step_by_id(pad: Scratchpad, step_id: str) -> PlanStep | None:
    """The step with this id, or ``None``."""
    return next((s for s in pad.plan if s.id == step_id), None)


def next_step_id(pad: Scratchpad) -> str:
    """The first free id of the form ``s<n>``."""
    taken = {s.id for s in pad.plan}
    n = len(pad.plan) + 1
    while f"s{n}" in taken:
        n += 1
    return f"s{n}"


def waiting_for(pad: Scratchpad, step: PlanStep) -> list[str]:
    """Ids ``step`` depends on that are in the plan and not done."""
    status = {s.id: s.status for s in pad.plan if s.id}
    return [d for d in step.depends_on if d in status and status[d] != "done"]


def ready_steps(pad: Scratchpad) -> list[PlanStep]:
    """``todo`` steps whose dependencies are all done, in plan order."""
    return [s for s in pad.plan if s.status == "todo" and not waiting_for(pad, s)]


def creates_cycle(pad: Scratchpad, step_id: str, depends_on: Iterable[str]) -> bool:
    """Whether ``step_id`` depending on ``depends_on`` would close a dependency cycle."""
    edges = {s.id: list(s.depends_on) for s in pad.plan if s.id}
    edges[step_id] = list(depends_on)
    stack, seen = list(edges[step_id]), set()
    while stack:
        current = stack.pop()
        if current == step_id:
            return True
        if current in seen:
            continue
        seen.add(current)
        stack.extend(edges.get(current, ()))
    return False


def check_dependencies(pad: Scratchpad, step_id: str, depends_on: Sequence[str]) -> str | None:
    """Why ``depends_on`` is not acceptable for ``step_id`` (``None`` when it is)."""
    bad = [d for d in depends_on if not isinstance(d, str) or not STEP_ID.match(d)]
    if bad:
        return "depends_on must list step ids such as 'fetch' or 's2'."
    unknown = [d for d in depends_on if step_by_id(pad, d) is None]
    if unknown:
        known = ", ".join(s.id for s in pad.plan if s.id) or "none"
        return f"unknown step ids {unknown}; known ids: {known}. Add those steps first."
    if step_id in depends_on or creates_cycle(pad, step_id, depends_on):
        return "these dependencies would make a cycle; a step can only wait on other steps."
    return None


def ledger_line(pad: Scratchpad, step: PlanStep, safe: Callable[[str], str]) -> str:
    """A step's text in the view: ``id: text (after a, b) - ready`` for ledger steps,
    the plain text otherwise. ``safe`` neutralizes the step's text."""
    if not (step.id or step.depends_on):
        return safe(step.step)
    line = f"{step.id}: {safe(step.step)}" if step.id else safe(step.step)
    if step.depends_on:
        line += f" (after {', '.join(step.depends_on)})"
    if step.status == "todo":
        waiting = waiting_for(pad, step)
        line += f" - waiting for {', '.join(waiting)}" if waiting else " - READY"
    return line
