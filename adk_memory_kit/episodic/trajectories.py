"""Successful invocations as JSONL trajectories (training data, few-shot examples).

An invocation counts as **successful** when all of these hold:

* it has the user's message (the task) in the log;
* nothing in it failed: no ``tool_error`` row, no ``error`` row (model, agent or run
  exception) and no model call that returned an error code;
* its last model call returned text and no function call (the final answer), so it was
  neither cut off by a crash nor left waiting on a confirmation.

A tool error that a plugin answered (for example ``ReflectAndRetryToolPlugin``) still makes
the invocation unsuccessful: the example would teach a failing call. Each line holds the
task, the tool steps (tool, arguments, result, agent) and transfers in order, the final
answer and the invocation's token and cost totals; user ids are left out. Payloads are the
stored, redacted ones; a step whose payload was truncated carries ``"truncated": true``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from adk_memory_kit.episodic.entry import (
    MODEL_CALL,
    TOOL_CALL,
    TRANSFER,
    USER_MESSAGE,
    LogEntry,
)


def _payload(entry: LogEntry) -> dict[str, Any]:
    return entry.payload if isinstance(entry.payload, dict) else {}


def trajectory(entries: list[LogEntry]) -> dict[str, Any] | None:
    """The trajectory of one invocation's entries (in order), or ``None`` if unsuccessful."""
    if not entries or any(e.failed for e in entries):
        return None
    task = next((e for e in entries if e.kind == USER_MESSAGE), None)
    model_calls = [e for e in entries if e.kind == MODEL_CALL]
    if task is None or not model_calls:
        return None
    last = _payload(model_calls[-1])
    if last.get("function_calls") or not last.get("text"):
        return None
    steps: list[dict[str, Any]] = []
    for e in entries:
        payload = _payload(e)
        if e.kind == TOOL_CALL:
            step: dict[str, Any] = {"agent": e.agent, "tool": e.name}
            step["args"] = payload.get("args")
            step["result"] = payload.get("result")
            if payload.get("truncated"):
                step["truncated"] = True
            steps.append(step)
        elif e.kind == TRANSFER:
            steps.append({"agent": e.agent, "transfer_to": e.name})
    costs = [e.cost_usd for e in model_calls]
    return {
        "app_name": task.app_name,
        "session_id": task.session_id,
        "invocation_id": task.invocation_id,
        "task": _payload(task).get("text", ""),
        "steps": steps,
        "final_answer": last.get("text"),
        "final_agent": model_calls[-1].agent,
        "models": sorted({e.name for e in model_calls}),
        "model_calls": len(model_calls),
        "input_tokens": sum(e.input_tokens or 0 for e in model_calls),
        "output_tokens": sum(e.output_tokens or 0 for e in model_calls),
        "cost_usd": None if any(c is None for c in costs) else sum(costs),
    }


async def write_trajectories(entries: AsyncIterator[LogEntry], path: Path) -> int:
    """Group ``entries`` (ordered by user, session, seq) by invocation; write the successful
    ones as JSON lines to ``path``; return how many lines were written."""
    written = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as out:

        def emit(invocations: dict[str, list[LogEntry]]) -> int:
            count = 0
            for group in invocations.values():
                line = trajectory(group)
                if line is not None:
                    out.write(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n")
                    count += 1
            return count

        current: tuple[str, str] | None = None
        invocations: dict[str, list[LogEntry]] = {}
        async for entry in entries:
            key = (entry.user_id, entry.session_id)
            if key != current:
                written += emit(invocations)
                current, invocations = key, {}
            invocations.setdefault(entry.invocation_id, []).append(entry)
        written += emit(invocations)
    return written
