"""Pure edits of a scratchpad: validate, apply the budget, report what changed."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from adk_memory_kit.working_memory import ledger
from adk_memory_kit.working_memory.config import WorkingMemoryConfig
from adk_memory_kit.working_memory.guards import (
    check_source,
    clean_text,
    clip,
    flatten,
    is_valid_fact_name,
)
from adk_memory_kit.working_memory.model import (
    STEP_STATUSES,
    Fact,
    PlanStep,
    Scratchpad,
    iso_time,
    value_cap,
)

LAST_TASK_STEPS = 5
"""Done steps named in the last-task record (the latest ones); the rest are only counted."""
LAST_TASK_STEP_CHARS = 80
"""Longest step text in the last-task record (cut at a word boundary)."""


@dataclass
class Outcome:
    """Result of one edit, phrased for the model."""

    ok: bool
    message: str
    evicted: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    changed: bool = False


def _rejected(message: str) -> Outcome:
    return Outcome(ok=False, message=message)


def _with_notes(message: str, notes: list[str]) -> str:
    return f"{message} ({'; '.join(notes)})" if notes else message


def _find(items: Sequence[str], text: str) -> int | None:
    folded = text.casefold()
    for i, item in enumerate(items):
        if item.casefold() == folded:
            return i
    return None


def set_goal(pad: Scratchpad, goal: str, config: WorkingMemoryConfig) -> Outcome:
    """Set or replace the task goal."""
    text, notes = clean_text(goal, config.max_text_chars)
    if not text:
        return _rejected("Goal is empty; pass one sentence describing what the user wants.")
    previous, pad.goal = pad.goal, text
    if previous and previous != text:
        message = f"Goal replaced (was: {previous})."
    else:
        message = "Goal set."
    return Outcome(True, _with_notes(message, notes), notes=notes, changed=previous != text)


def add_constraint(pad: Scratchpad, constraint: str, config: WorkingMemoryConfig) -> Outcome:
    """Add a constraint unless it is already there or the list is full."""
    text, notes = clean_text(constraint, config.max_text_chars)
    if not text:
        return _rejected("Constraint is empty; pass the rule the user stated.")
    if _find(pad.constraints, text) is not None:
        return Outcome(True, "Constraint already recorded; nothing changed.")
    if len(pad.constraints) >= config.max_constraints:
        return _rejected(
            f"Working memory already holds {config.max_constraints} constraints, the limit. "
            "Merge this rule into the goal with set_goal, or call complete_task if a new task "
            "has started."
        )
    pad.constraints.append(text)
    return Outcome(True, _with_notes("Constraint added.", notes), notes=notes, changed=True)


def record_fact(
    pad: Scratchpad,
    name: str,
    value: str,
    source: str,
    pinned: bool,
    *,
    called_tools: Sequence[str],
    config: WorkingMemoryConfig,
    now: float,
    user_texts: Sequence[str] | None = None,
) -> Outcome:
    """Record (or overwrite) a fact after checking its name and source.

    ``source='user'`` needs the value in ``user_texts`` (this invocation's user messages);
    ``None`` skips that check and is only for callers with no model in the loop. Every
    value is filtered for instruction-like text; a trusted source only gets a longer cap.
    A new fact beyond ``max_facts`` evicts the oldest unpinned fact; if every fact is
    pinned the new one is refused. Re-recording a pinned fact keeps it pinned.
    """
    name = flatten(name)
    if not is_valid_fact_name(name):
        return _rejected(
            f"Fact name {name[:60]!r} is not allowed: use short snake_case such as "
            "'booking_ref' (a lowercase letter, then up to 39 of a-z, 0-9, _)."
        )
    source = flatten(source)
    reason = check_source(source, called_tools, value=value, user_texts=user_texts)
    if reason:
        return _rejected(f"Fact {name!r} refused: {reason}")
    text, notes = clean_text(value, value_cap(source, config))
    if not text:
        return _rejected(f"Fact {name!r} refused: the value is empty after cleaning.")

    existing = pad.facts.get(name)
    evicted: list[str] = []
    if existing is None:
        while len(pad.facts) >= config.max_facts:
            unpinned = [n for n in pad.facts_oldest_first() if not pad.facts[n].pinned]
            if not unpinned:
                return _rejected(
                    f"Fact {name!r} refused: all {len(pad.facts)} fact slots hold pinned "
                    "facts, which only complete_task clears. Keep it in the conversation "
                    "instead."
                )
            evicted.append(unpinned[0])
            del pad.facts[unpinned[0]]
    latest = max((f.at for f in pad.facts.values()), default=0.0)
    if isinstance(pinned, str):  # models without argument validation may send "true"
        pinned = pinned.strip().lower() in ("true", "1", "yes")
    keep_pinned = bool(pinned) or (existing is not None and existing.pinned)
    pad.facts[name] = Fact(
        value=text, source=source, pinned=keep_pinned, at=max(now, latest + 1e-6)
    )
    verb = "Updated" if existing is not None else "Recorded"
    message = f"{verb} fact {name!r}{' (pinned)' if keep_pinned else ''} from {source}."
    if evicted:
        message += (
            f" Evicted oldest unpinned: {', '.join(evicted)}; call their tools again if needed."
        )
    return Outcome(True, _with_notes(message, notes), evicted=evicted, notes=notes, changed=True)


def update_step(
    pad: Scratchpad,
    step: str,
    status: str,
    config: WorkingMemoryConfig,
    *,
    step_id: str | None = None,
    depends_on: Sequence[str] | None = None,
) -> Outcome:
    """Set a step's status, adding the step if it is new.

    With ``step_id`` the step is found by id first (then by text, and given that id);
    ``depends_on`` replaces the step's dependencies (ids of other steps) and gives the step
    an id (``s<n>``) if it has none. Unknown ids and cycles are refused.
    """
    status = flatten(status).lower()
    if status not in STEP_STATUSES:
        return _rejected(f"Status {status[:20]!r} is not one of todo, doing, done.")
    text, notes = clean_text(step, config.max_text_chars)
    if not text:
        return _rejected("Step is empty; pass a short description of the step.")
    step_id = flatten(step_id).lower() if step_id else None
    if step_id is not None and not ledger.STEP_ID.match(step_id):
        return _rejected("step_id must be 1-20 of a-z, 0-9, _ and -, e.g. 'fetch' or 's2'.")
    deps = None if depends_on is None else [flatten(str(d)).lower() for d in depends_on]
    by_id = ledger.step_by_id(pad, step_id) if step_id else None
    index = pad.plan.index(by_id) if by_id else _find([s.step for s in pad.plan], text)
    if index is not None and step_id and pad.plan[index].id not in (None, step_id):
        return _rejected(f"Step {pad.plan[index].step!r} already has id {pad.plan[index].id!r}.")
    if deps is not None:
        target = step_id or (pad.plan[index].id if index is not None else None)
        reason = ledger.check_dependencies(pad, target or ledger.next_step_id(pad), deps)
        if reason:
            return _rejected(f"Step refused: {reason}")
    evicted: list[str] = []
    if index is not None:
        held = pad.plan[index]
        old, old_ledger = held.status, (held.id, list(held.depends_on))
        held.status = status  # type: ignore[assignment]
        if step_id:
            held.id = step_id
        if deps is not None:
            held.depends_on, held.id = deps, held.id or ledger.next_step_id(pad)
        message = f"Step {held.step!r}: {old} -> {status}."
        changed = old != status or old_ledger != (held.id, held.depends_on)
    else:
        if len(pad.plan) >= config.max_plan_steps:
            done = [i for i, s in enumerate(pad.plan) if s.status == "done"]
            if not done:
                return _rejected(
                    f"The plan already has {config.max_plan_steps} steps and none is done. "
                    "Mark finished steps done before adding more."
                )
            evicted.append(pad.plan.pop(done[0]).step)
        new_id = step_id or (ledger.next_step_id(pad) if deps else None)
        pad.plan.append(
            PlanStep(step=text, status=status, id=new_id, depends_on=deps or [])  # type: ignore[arg-type]
        )
        message = f"Step added as {status}" + (f" with id {new_id!r}." if new_id else ".")
        changed = True
        if evicted:
            message += f" Evicted oldest done step: {evicted[0]}."
    if ledger.uses_ledger(pad):
        ready = [s.id or s.step for s in ledger.ready_steps(pad)]
        message += f" Ready: {', '.join(ready) if ready else 'none'}."
    done_count = sum(1 for s in pad.plan if s.status == "done")
    if done_count > config.done_steps_shown:
        notes = [*notes, f"{done_count} done steps shown as one line"]
    return Outcome(True, _with_notes(message, notes), evicted, notes, changed)


def add_open_question(pad: Scratchpad, question: str, config: WorkingMemoryConfig) -> Outcome:
    """Add an open question; refuse once ``max_open_questions`` are open."""
    text, notes = clean_text(question, config.max_text_chars)
    if not text:
        return _rejected("Question is empty.")
    if _find(pad.open, text) is not None:
        return Outcome(True, "Question already open; nothing changed.")
    if len(pad.open) >= config.max_open_questions:
        return _rejected(
            f"{len(pad.open)} questions are already open (the limit). Resolve one first with "
            "resolve_open_question, asking the user if needed. Open: " + " | ".join(pad.open)
        )
    pad.open.append(text)
    return Outcome(True, _with_notes("Question added.", notes), notes=notes, changed=True)


def resolve_open_question(pad: Scratchpad, question: str, config: WorkingMemoryConfig) -> Outcome:
    """Remove an open question, matched exactly or by a unique fragment (case-insensitive)."""
    text, _ = clean_text(question, config.max_text_chars, untrusted=False)
    index = _find(pad.open, text)
    if index is None and text:
        partial = [i for i, q in enumerate(pad.open) if text.casefold() in q.casefold()]
        index = partial[0] if len(partial) == 1 else None
    if index is None:
        listing = " | ".join(pad.open) if pad.open else "none"
        return _rejected(f"No single open question matches. Open: {listing}")
    removed = pad.open.pop(index)
    return Outcome(True, f"Resolved: {removed}", changed=True)


def finished_task(
    pad: Scratchpad, summary: str, config: WorkingMemoryConfig, *, now: float
) -> dict[str, Any] | None:
    """The compact record of a finished task, kept after ``complete_task`` clears the pad.

    ``{goal, outcome, summary, steps_done, steps_done_count, steps_total, facts,
    finished_at}`` (``summary`` only when one was given): ``outcome`` is ``"completed"`` when
    no step is left and no question is open, else says what was left; ``steps_done`` names at
    most ``LAST_TASK_STEPS`` done steps (the latest), each cut to ``LAST_TASK_STEP_CHARS`` at a
    word boundary; ``facts`` is a count (values stay out of the record); ``finished_at`` is
    ISO-8601 UTC. The record is
    bounded whatever the pad held. ``None`` for an empty pad (there is nothing to record).
    """
    if pad.is_empty():
        return None
    done = [s.step for s in pad.plan if s.status == "done"]
    left = len(pad.plan) - len(done)
    unfinished = []
    if left:
        unfinished.append(f"{left} step{'s' if left != 1 else ''} not done")
    if pad.open:
        unfinished.append(f"{len(pad.open)} open question{'s' if len(pad.open) != 1 else ''}")
    record: dict[str, Any] = {
        "goal": pad.goal,
        "outcome": "ended with " + ", ".join(unfinished) if unfinished else "completed",
    }
    text, _ = clean_text(summary, config.max_text_chars)
    if text:
        record["summary"] = text
    record.update(
        steps_done=[clip(s, LAST_TASK_STEP_CHARS)[0] for s in done[-LAST_TASK_STEPS:]],
        steps_done_count=len(done),
        steps_total=len(pad.plan),
        facts=len(pad.facts),
        finished_at=iso_time(now, "seconds"),
    )
    return record
