"""Hot-path overhead of ``EpisodicLogPlugin`` per model call (goal: under 1 ms).

A real ADK ``Runner`` drives an agent with a scripted model and one tool for ``--turns``
turns (two model calls and one tool call each). Two figures:

* **callback time**: the plugin's callbacks for each model call (``before_model`` +
  ``after_model`` + ``on_event`` for the model's event), timed in-process around the real
  callbacks; p50/p95/max per model call. Tool callbacks are reported separately.
* **end to end**: wall time per model call with and without the plugin, in alternating
  rounds (includes the background writer sharing the event loop; noisy on a busy machine).

The log writes to the kit's Postgres (embedded by default, or ``--db-url``); the CPU time
the background writer spends per entry is reported too (off the hot path, same loop).

    python benchmarks/episodic_overhead.py --turns 150
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_memory_kit.episodic import EpisodicLog, EpisodicLogPlugin
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses

APP = "episodic_bench"


def lookup(city: str) -> dict:
    """Weather for a city.

    Args:
      city: the city.
    """
    return {"city": city, "forecast": "sunny", "high_c": 21, "note": "x" * 400}


def responder(request) -> Any:
    if last_function_responses(request):
        return "It will be sunny, 21 C. " * 8
    return [call("lookup", city="Lisbon")]


class TimedPlugin(EpisodicLogPlugin):
    """The real plugin, with the time spent in each callback recorded."""

    def __init__(self, log: EpisodicLog) -> None:
        super().__init__(log)
        self.model_ns: list[int] = []
        self.tool_ns: list[int] = []
        self._pending = 0

    async def before_model_callback(self, **kw):
        t = time.perf_counter_ns()
        await super().before_model_callback(**kw)
        self._pending = time.perf_counter_ns() - t

    async def after_model_callback(self, **kw):
        t = time.perf_counter_ns()
        await super().after_model_callback(**kw)
        self._pending += time.perf_counter_ns() - t

    async def on_event_callback(self, **kw):
        t = time.perf_counter_ns()
        await super().on_event_callback(**kw)
        spent = time.perf_counter_ns() - t
        event = kw["event"]
        if event.author != "user" and not event.get_function_responses():
            self.model_ns.append(self._pending + spent)  # a model event closes a model call
        elif self.tool_ns:
            self.tool_ns[-1] += spent  # the tool's response event

    async def before_tool_callback(self, **kw):
        t = time.perf_counter_ns()
        await super().before_tool_callback(**kw)
        self.tool_ns.append(time.perf_counter_ns() - t)

    async def after_tool_callback(self, **kw):
        t = time.perf_counter_ns()
        await super().after_tool_callback(**kw)
        self.tool_ns[-1] += time.perf_counter_ns() - t


async def run_turns(plugins: list, turns: int) -> tuple[float, int]:
    """Seconds for ``turns`` turns and the number of model calls made."""
    llm = ScriptedLlm(model="gemini-2.5-flash", responder=responder)
    agent = LlmAgent(name="weather", model=llm, instruction="Answer.", tools=[lookup])
    sessions = InMemorySessionService()
    runner = Runner(app=App(name=APP, root_agent=agent, plugins=plugins), session_service=sessions)
    user = f"u-{uuid.uuid4().hex[:6]}"
    session = await sessions.create_session(app_name=APP, user_id=user)
    started = time.perf_counter()
    for turn in range(turns):
        message = types.Content(role="user", parts=[types.Part(text=f"Weather {turn}?")])
        async for _ in runner.run_async(user_id=user, session_id=session.id, new_message=message):
            pass
    elapsed = time.perf_counter() - started
    await runner.close()
    return elapsed, len(llm.requests)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def main(turns: int, db_url: str | None, rounds: int) -> None:
    log = EpisodicLog(db_url)
    await log.ensure_schema()
    prepare_s = [0.0]
    finish = log._row

    def timed_row(entry):  # the writer's CPU work per entry (redaction, cost, JSON)
        started = time.perf_counter()
        try:
            return finish(entry)
        finally:
            prepare_s[0] += time.perf_counter() - started

    log._row = timed_row
    await run_turns([], 5)  # warm up imports and ADK caches
    plugin = TimedPlugin(log)
    per_call: dict[str, list[float]] = {"with": [], "without": []}
    per_round = max(1, turns // rounds)
    for r in range(rounds):  # alternate, so machine noise and drift hit both sides
        for label in ("with", "without") if r % 2 == 0 else ("without", "with"):
            elapsed, calls = await run_turns([plugin] if label == "with" else [], per_round)
            per_call[label].append(elapsed / calls * 1000)
    await log.flush()
    written = len(plugin.model_ns) + len(plugin.tool_ns) + per_round * rounds
    await log.close()

    model_ms = [ns / 1e6 for ns in plugin.model_ns]
    tool_ms = [ns / 1e6 for ns in plugin.tool_ns]
    print(f"turns: {per_round * rounds} with the plugin, {per_round * rounds} without")
    print(
        f"plugin callbacks per model call (hot path, n={len(model_ms)}): "
        f"p50 {statistics.median(model_ms):.3f} ms, p95 {pct(model_ms, 0.95):.3f} ms, "
        f"max {max(model_ms):.3f} ms"
    )
    print(
        f"plugin callbacks per tool call (n={len(tool_ms)}): "
        f"p50 {statistics.median(tool_ms):.3f} ms, p95 {pct(tool_ms, 0.95):.3f} ms"
    )
    with_ms, without_ms = (
        statistics.median(per_call["with"]),
        statistics.median(per_call["without"]),
    )
    print(
        f"end to end per model call (median of {rounds} alternating rounds): "
        f"{with_ms:.2f} ms with the plugin, {without_ms:.2f} ms without "
        f"({with_ms - without_ms:+.2f} ms; includes the writer sharing the event loop)"
    )
    print(
        f"background writer CPU per entry (redaction, cost, JSON): "
        f"{prepare_s[0] / max(1, written) * 1000:.3f} ms over about {written} entries; "
        f"write failures: {log.failed_writes}, dropped: {log.dropped}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--db-url", default=None)
    args = parser.parse_args()
    asyncio.run(main(args.turns, args.db_url, args.rounds))
