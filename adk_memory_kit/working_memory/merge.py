"""Combining per-branch scratchpads written by the sub-agents of a ``ParallelAgent``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from adk_memory_kit.working_memory.config import (
    DEFAULT_KEY,
    WorkingMemoryConfig,
    check_state_key,
    view_key_for,
)
from adk_memory_kit.working_memory.model import Fact, PlanStep, Scratchpad
from adk_memory_kit.working_memory.render import RenderedView, render_view

_STATUS_RANK = {"todo": 0, "doing": 1, "done": 2}


@dataclass(frozen=True)
class MergeResult:
    """The merged scratchpad, its view, and what the merge had to decide or drop."""

    scratchpad: Scratchpad
    view: RenderedView
    conflicts: list[str] = field(default_factory=list)
    evicted: list[str] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


def _union(lists: Sequence[list[str]]) -> list[str]:
    out: list[str] = []
    folded: set[str] = set()
    for items in lists:
        for item in items:
            if item.casefold() not in folded:
                folded.add(item.casefold())
                out.append(item)
    return out


def merge_scratchpads(
    base: Scratchpad,
    branches: Sequence[tuple[str, Scratchpad]],
    config: WorkingMemoryConfig | None = None,
) -> MergeResult:
    """Union ``base`` with each labelled branch scratchpad, then apply the budget.

    Goal: the base goal, else the first branch goal. Constraints and open questions:
    union in order. Plan steps: union, keeping the most advanced status. Facts: union; on
    a name clash the later write wins and a pin on either side is kept. Anything a clash
    or the budget decided is reported, so no update disappears silently.
    """
    config = config or WorkingMemoryConfig()
    pads = [("base", base), *branches]
    conflicts: list[str] = []
    merged = Scratchpad()

    for label, pad in pads:
        if not pad.goal:
            continue
        if not merged.goal:
            merged.goal = pad.goal
        elif pad.goal.casefold() != merged.goal.casefold():
            conflicts.append(f"goal from {label} not kept: {pad.goal}")

    merged.constraints = _union([p.constraints for _, p in pads])
    merged.open = _union([p.open for _, p in pads])

    steps: dict[str, PlanStep] = {}
    for _, pad in pads:
        for step in pad.plan:
            key = step.step.casefold()
            current = steps.get(key)
            if current is None:
                steps[key] = step.model_copy()
            elif _STATUS_RANK[step.status] > _STATUS_RANK[current.status]:
                current.status = step.status
    merged.plan = list(steps.values())

    facts: dict[str, tuple[str, Fact]] = {}
    for label, pad in pads:
        for name, fact in pad.facts.items():
            held = facts.get(name)
            if held is None:
                facts[name] = (label, fact.model_copy())
                continue
            held_label, held_fact = held
            newer, older = (fact, held_fact) if fact.at >= held_fact.at else (held_fact, fact)
            winner = label if newer is fact else held_label
            if newer.value != older.value:
                conflicts.append(f"fact {name}: kept the later value from {winner}")
            pinned = fact.pinned or held_fact.pinned
            facts[name] = (winner, newer.model_copy(update={"pinned": pinned}))
    merged.facts = {name: fact for name, (_, fact) in facts.items()}

    evicted, dropped = merged.apply_budget(config)
    return MergeResult(merged, render_view(merged, config), conflicts, evicted, dropped)


def merge_working_memory(
    state: Any,
    branch_keys: Sequence[str],
    *,
    into: str = DEFAULT_KEY,
    config: WorkingMemoryConfig | None = None,
) -> MergeResult:
    """Merge the scratchpads under ``branch_keys`` in ``state`` into the one under ``into``.

    ``state`` is anything with ``get`` (a dict, ADK ``State``, ``session.state``). Nothing
    is written; see ``merge_branches_callback`` for that.
    """
    base = Scratchpad.load(state.get(check_state_key(into)), key=into)
    branches = [
        (key, Scratchpad.load(state.get(check_state_key(key)), key=key)) for key in branch_keys
    ]
    return merge_scratchpads(base, branches, config)


def merge_branches_callback(
    branch_keys: Sequence[str],
    *,
    into: str = DEFAULT_KEY,
    config: WorkingMemoryConfig | None = None,
    clear_branches: bool = True,
) -> Callable[..., None]:
    """An ``after_agent_callback`` (e.g. on the ``ParallelAgent``) that merges branch keys.

    It writes the merged scratchpad to ``into`` and its view to ``<into>_view``, and with
    ``clear_branches`` empties each branch key so a later merge cannot count it twice.
    """
    keys = [check_state_key(k) for k in branch_keys]
    check_state_key(into)

    def merge_branches(callback_context: Any) -> None:
        state = callback_context.state
        result = merge_working_memory(state, keys, into=into, config=config)
        pad = result.scratchpad
        state[into] = None if pad.is_empty() else pad.dump()
        state[view_key_for(into)] = result.view.text
        if clear_branches:
            for key in keys:
                state[key] = None
                state[view_key_for(key)] = ""
        return None

    return merge_branches
