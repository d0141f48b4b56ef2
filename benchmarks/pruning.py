"""Replay a tool-heavy research session through ADK's Runner, with and without pruning.

A scripted model (no network) drives a research agent: per user turn it calls
``get_findings`` (from turn 2), then five times ``web_search`` (about 2,000
tokens of text each) followed by ``save_finding``, then answers. Every request
the model receives is measured with the kit's token estimate.

    .venv/bin/python benchmarks/pruning.py            # table
    .venv/bin/python benchmarks/pruning.py --json     # machine-readable

Modes: ``raw`` (no pruning), ``eager`` (``PruneStaleToolPayloads`` defaults) and
``threshold`` (cache-friendly mode). The cache columns model a provider prompt
cache that reuses the longest identical content prefix of the previous request.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import statistics
import sys
import time
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.invocation_context import InvocationContext
from google.adk.apps.app import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools.tool_context import ToolContext
from google.genai import types
from pydantic import Field, PrivateAttr

from adk_memory_kit.pruning import (
    PruneStaleToolPayloads,
    ToolPayloadPruningPlugin,
    estimate_content_tokens,
    estimate_request_tokens,
)
from adk_memory_kit.pruning.tokens import estimate_overhead_tokens

APP_NAME = "pruning_bench"
TOPICS = ("interpretability", "red teaming", "RLHF", "policy engagement")
INSTRUCTION = (
    "You are a research assistant. For every question, search several angles with "
    "web_search, distill each result into a short finding with save_finding, and "
    "answer from the saved findings. Use get_findings to recall earlier findings. "
    "Cite sources. Prefer primary sources and say when evidence is thin."
)
WORDS = (
    "model safety alignment evaluation oversight policy research lab paper benchmark "
    "training feedback preference reward interpretability circuit feature probe red team "
    "attack jailbreak mitigation deployment governance audit report release system card "
    "capability threshold scaling risk framework commitment external review"
).split()
CACHED_PRICE = 0.1
"""Price of a cached prompt token relative to an uncached one."""


# --------------------------------------------------------------------------- tools


def search_text(query: str, tokens: int) -> str:
    """Deterministic page-like text of about ``tokens`` estimated tokens."""
    rng = random.Random(f"search:{query}")
    chars = tokens * 4
    out: list[str] = [f"Results for {query!r}."]
    size = len(out[0])
    while size < chars:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 16)))
        line = f" {sentence.capitalize()} (source: https://example.org/{rng.randrange(10**6)})."
        out.append(line)
        size += len(line)
    return "".join(out)[: chars - 16]


def make_tools(result_tokens: int) -> list[Any]:
    """The agent's three tools; ``web_search`` returns ~``result_tokens`` tokens."""

    def web_search(query: str) -> str:
        """Search the web and return the raw page text."""
        return search_text(query, result_tokens)

    def save_finding(topic: str, summary: str, source: str, tool_context: ToolContext) -> dict:
        """Save a distilled finding."""
        findings = list(tool_context.state.get("findings", []))
        findings.append({"topic": topic, "summary": summary, "source": source})
        tool_context.state["findings"] = findings
        return {"status": "saved", "total": len(findings)}

    def get_findings(topic: str, tool_context: ToolContext) -> dict:
        """Return the saved findings on a topic."""
        findings = tool_context.state.get("findings", [])
        return {"findings": [f for f in findings if f["topic"] == topic]}

    return [web_search, save_finding, get_findings]


# --------------------------------------------------------------------------- scripted model


@dataclass
class RequestStat:
    """One request as the model received it."""

    turn: int
    contents: int
    tokens: int
    overhead: int
    content_tokens: list[int] = field(repr=False)
    fingerprints: list[str] = field(repr=False)


def _fingerprint(content: types.Content) -> str:
    data = content.model_dump_json(exclude_none=True)
    return hashlib.sha256(data.encode()).hexdigest()[:16]


def _user_text(content: types.Content) -> str | None:
    if content.role != "user" or not content.parts:
        return None
    if any(p.function_response for p in content.parts):
        return None
    return "".join(p.text or "" for p in content.parts) or None


class ResearchLlm(BaseLlm):
    """Scripted research model: decides its next step from the request alone."""

    model: str = "scripted-research"
    searches_per_turn: int = 5
    stats: list[RequestStat] = Field(default_factory=list)
    _ids: int = PrivateAttr(default=0)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        contents = list(llm_request.contents)
        last_user = max(i for i, c in enumerate(contents) if _user_text(c))
        text = _user_text(contents[last_user]) or ""
        turn = int(text.split(":", 1)[0].removeprefix("Turn "))
        topic = TOPICS[(turn - 1) % len(TOPICS)]
        tokens = estimate_request_tokens(llm_request)
        self.stats.append(
            RequestStat(
                turn=turn,
                contents=len(contents),
                tokens=tokens,
                overhead=estimate_overhead_tokens(llm_request),
                content_tokens=[estimate_content_tokens(c) for c in contents],
                fingerprints=[_fingerprint(c) for c in contents],
            )
        )
        searches = sum(
            1
            for c in contents[last_user + 1 :]
            for p in c.parts or ()
            if p.function_call and p.function_call.name == "web_search"
        )
        last = contents[-1].parts[0] if contents[-1].parts else None
        last_tool = last.function_response.name if last and last.function_response else None
        if last_tool is None and turn > 1:
            part = self._call("get_findings", {"topic": topic}, turn)
        elif last_tool in (None, "get_findings") or (
            last_tool == "save_finding" and searches < self.searches_per_turn
        ):
            query = f"{topic} angle {searches + 1} (turn {turn})"
            part = self._call("web_search", {"query": query}, turn)
        elif last_tool == "web_search":
            part = self._call(
                "save_finding",
                {
                    "topic": topic,
                    "summary": f"Finding {searches} on {topic}: evidence is mixed but "
                    "two primary sources agree on the main claim.",
                    "source": f"https://example.org/{topic.replace(' ', '-')}/{turn}/{searches}",
                },
                turn,
            )
        else:
            part = types.Part(
                text=f"Turn {turn} summary on {topic}: {searches} sources searched and "
                "distilled; findings saved. " + "Key points follow. " * 20
            )
        yield LlmResponse(
            content=types.Content(role="model", parts=[part]),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=tokens, candidates_token_count=50
            ),
        )

    def _call(self, name: str, args: dict[str, Any], turn: int) -> types.Part:
        self._ids += 1
        call = types.FunctionCall(id=f"call-{turn}-{self._ids}", name=name, args=args)
        return types.Part(function_call=call)


class TimedPlugin(ToolPayloadPruningPlugin):
    """The pruning plugin, timing each ``before_model_callback`` as a whole."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timings: list[tuple[int, float]] = []

    async def before_model_callback(self, *, callback_context, llm_request):  # type: ignore[override]
        started = time.perf_counter()
        result = await super().before_model_callback(
            callback_context=callback_context, llm_request=llm_request
        )
        self.timings.append((len(llm_request.contents), time.perf_counter() - started))
        return result


# --------------------------------------------------------------------------- replay


@dataclass
class ModeResult:
    """All requests of one replay."""

    mode: str
    stats: list[RequestStat]
    timings: list[tuple[int, float]]
    raw_payload_stored: bool


async def replay(
    mode: str,
    *,
    turns: int = 12,
    searches: int = 5,
    result_tokens: int = 2000,
    keep_recent: int = 4,
    threshold_tokens: int = 24000,
) -> ModeResult:
    """Run one session of ``turns`` user turns through a real ``Runner``."""
    llm = ResearchLlm(searches_per_turn=searches)
    agent = LlmAgent(
        name="researcher", model=llm, instruction=INSTRUCTION, tools=make_tools(result_tokens)
    )
    plugins: list[Any] = []
    plugin: TimedPlugin | None = None
    if mode != "raw":
        plugin = TimedPlugin(
            {"web_search"},
            keep_recent,
            threshold_tokens=threshold_tokens if mode == "threshold" else None,
        )
        plugins.append(plugin)
    service = InMemorySessionService()
    runner = Runner(
        app=App(name=APP_NAME, root_agent=agent, plugins=plugins), session_service=service
    )
    session = await service.create_session(app_name=APP_NAME, user_id="u1")
    for turn in range(1, turns + 1):
        topic = TOPICS[(turn - 1) % len(TOPICS)]
        message = types.Content(
            role="user", parts=[types.Part(text=f"Turn {turn}: what is new on {topic}?")]
        )
        async for _ in runner.run_async(user_id="u1", session_id=session.id, new_message=message):
            pass
    stored = await service.get_session(app_name=APP_NAME, user_id="u1", session_id=session.id)
    raw_kept = all(
        len(str(p.function_response.response)) > result_tokens * 3
        for e in stored.events
        for p in (e.content.parts if e.content and e.content.parts else ())
        if p.function_response and p.function_response.name == "web_search"
    )
    await runner.close()
    return ModeResult(mode, llm.stats, plugin.timings if plugin else [], raw_kept)


def cache_profile(stats: list[RequestStat]) -> list[tuple[int, int, bool]]:
    """Per request: ``(cached, uncached, rewrote_history)`` under a longest-prefix cache.

    ``rewrote_history`` is true when some content of the previous request changed,
    which invalidates an explicit cache of that prefix (e.g. ADK's ContextCacheConfig).
    """
    out: list[tuple[int, int, bool]] = []
    previous: RequestStat | None = None
    for stat in stats:
        cached, same = 0, 0
        if previous is not None and previous.overhead == stat.overhead:
            cached = stat.overhead
            for mine, theirs, tokens in zip(
                stat.fingerprints, previous.fingerprints, stat.content_tokens, strict=False
            ):
                if mine != theirs:
                    break
                cached += tokens
                same += 1
        rewrote = previous is not None and same < len(previous.fingerprints)
        out.append((cached, stat.tokens - cached, rewrote))
        previous = stat
    return out


async def micro_benchmark(
    contents: int = 200, repeats: int = 300, result_tokens: int = 2000
) -> dict[str, Any]:
    """Median/p95 time of one callback call on a synthetic ``contents``-long request."""
    items: list[types.Content] = []
    pair = 0
    while len(items) < contents:
        pair += 1
        name = "web_search" if pair % 2 else "save_finding"
        response = (
            {"result": search_text(f"q{pair}", result_tokens)}
            if name == "web_search"
            else {"status": "saved", "total": pair}
        )
        items.append(
            types.Content(
                role="model",
                parts=[
                    types.Part(
                        function_call=types.FunctionCall(
                            id=f"c{pair}", name=name, args={"query": "x"}
                        )
                    )
                ],
            )
        )
        items.append(
            types.Content(
                role="user",
                parts=[
                    types.Part(
                        function_response=types.FunctionResponse(
                            id=f"c{pair}", name=name, response=response
                        )
                    )
                ],
            )
        )
    items = items[:contents]
    agent = LlmAgent(name="micro", model=ResearchLlm(), tools=make_tools(result_tokens))
    service = InMemorySessionService()
    session = await service.create_session(app_name=APP_NAME, user_id="u1")
    context = CallbackContext(
        InvocationContext(
            session_service=service, invocation_id="micro", agent=agent, session=session
        )
    )
    tools = types.Tool(
        function_declarations=[
            types.FunctionDeclaration(name=n, description=f"The {n} tool.")
            for n in ("web_search", "save_finding", "get_findings")
        ]
    )
    config = types.GenerateContentConfig(system_instruction=INSTRUCTION, tools=[tools])

    def measure(fresh: bool) -> list[float]:
        pruner = PruneStaleToolPayloads({"web_search"})
        times: list[float] = []
        for _ in range(repeats):
            if fresh:  # a new instance: no tombstone cache (first call of a process)
                pruner = PruneStaleToolPayloads({"web_search"})
            request = LlmRequest(contents=list(items), config=config)
            started = time.perf_counter()
            pruner(context, request)
            times.append(time.perf_counter() - started)
        times.sort()
        return times

    cold, warm = measure(True), measure(False)
    pruned = (
        PruneStaleToolPayloads({"web_search"})
        .prune(LlmRequest(contents=list(items), config=config))
        .pruned_parts
    )
    return {
        "contents": contents,
        "repeats": repeats,
        "pruned_parts": pruned,
        "warm_median_ms": round(statistics.median(warm) * 1000, 3),
        "warm_p95_ms": round(warm[int(len(warm) * 0.95) - 1] * 1000, 3),
        "cold_median_ms": round(statistics.median(cold) * 1000, 3),
        "cold_p95_ms": round(cold[int(len(cold) * 0.95) - 1] * 1000, 3),
    }


def _turn_rows(results: dict[str, ModeResult]) -> list[dict[str, Any]]:
    rows = []
    turns = sorted({s.turn for s in results["raw"].stats})
    for turn in turns:
        row: dict[str, Any] = {"turn": turn}
        for mode, result in results.items():
            in_turn = [s for s in result.stats if s.turn == turn]
            row[f"{mode}_last"] = in_turn[-1].tokens
            row[f"{mode}_peak"] = max(s.tokens for s in in_turn)
            row["calls"] = len(in_turn)
        rows.append(row)
    return rows


def _session_totals(result: ModeResult) -> dict[str, Any]:
    profile = cache_profile(result.stats)
    sent = sum(s.tokens for s in result.stats)
    uncached = sum(u for _, u, _ in profile)
    cached = sum(c for c, _, _ in profile)
    return {
        "calls": len(result.stats),
        "tokens_sent": sent,
        "cached": cached,
        "uncached": uncached,
        "effective_cost": round(uncached + CACHED_PRICE * cached),
        "history_rewrites": sum(1 for _, _, rewrote in profile if rewrote),
        "peak_request": max(s.tokens for s in result.stats),
        "raw_payloads_still_stored": result.raw_payload_stored,
    }


async def run_all(args: argparse.Namespace) -> dict[str, Any]:
    """Run every mode, the seeds' case and the timing checks; return a JSON-ready dict."""
    options = {
        "turns": args.turns,
        "searches": args.searches,
        "result_tokens": args.result_tokens,
        "keep_recent": args.keep_recent,
        "threshold_tokens": args.threshold_tokens,
    }
    results = {mode: await replay(mode, **options) for mode in ("raw", "eager", "threshold")}
    seed_raw = await replay("raw", turns=1, searches=5, result_tokens=args.seed_result_tokens)
    seed_eager = await replay("eager", turns=1, searches=5, result_tokens=args.seed_result_tokens)
    seed_before = max(s.tokens for s in seed_raw.stats)
    seed_after = max(s.tokens for s in seed_eager.stats)
    big = [t for n, t in results["eager"].timings if n >= 200]
    rows = _turn_rows(results)
    last_raw, last_eager = rows[-1]["raw_last"], rows[-1]["eager_last"]
    return {
        "options": options,
        "turns": rows,
        "totals": {mode: _session_totals(r) for mode, r in results.items()},
        "last_turn_reduction": round(1 - last_eager / last_raw, 4),
        "seed_case": {
            "result_tokens": args.seed_result_tokens,
            "largest_request_raw": seed_before,
            "largest_request_pruned": seed_after,
        },
        "callback_in_runner_ms": {
            "calls_with_200_plus_contents": len(big),
            "median": round(statistics.median(big) * 1000, 3) if big else None,
            "max": round(max(big) * 1000, 3) if big else None,
        },
        "callback_micro_ms": await micro_benchmark(),
    }


def render(report: dict[str, Any]) -> str:
    """Human-readable tables (Markdown)."""
    lines = [
        "Last request of each turn (estimated tokens; peak request of the turn in brackets):",
        "",
        "| turn | calls | no pruning | eager pruning | saved | threshold mode |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for row in report["turns"]:
        saved = 1 - row["eager_last"] / row["raw_last"]
        lines.append(
            f"| {row['turn']} | {row['calls']} | {row['raw_last']:,} ({row['raw_peak']:,}) | "
            f"{row['eager_last']:,} ({row['eager_peak']:,}) | {saved:.0%} | "
            f"{row['threshold_last']:,} ({row['threshold_peak']:,}) |"
        )
    lines += [
        "",
        f"Session totals (cached token priced at {CACHED_PRICE}x):",
        "",
        "| mode | calls | tokens sent | prefix-cache hits | uncached | effective cost"
        " | history rewrites | peak request |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for mode, t in report["totals"].items():
        lines.append(
            f"| {mode} | {t['calls']} | {t['tokens_sent']:,} | {t['cached']:,} | "
            f"{t['uncached']:,} | {t['effective_cost']:,} | {t['history_rewrites']} | "
            f"{t['peak_request']:,} |"
        )
    seed = report["seed_case"]
    timing, micro = report["callback_in_runner_ms"], report["callback_micro_ms"]
    lines += [
        "",
        f"Last turn: {report['last_turn_reduction']:.1%} smaller with pruning.",
        f"Seeds' case (1 turn, 5 searches of ~{seed['result_tokens']:,} tokens): largest "
        f"request {seed['largest_request_raw']:,} -> {seed['largest_request_pruned']:,} tokens.",
        f"Callback in the Runner, requests with >=200 contents "
        f"({timing['calls_with_200_plus_contents']} calls): median {timing['median']} ms, "
        f"max {timing['max']} ms.",
        f"Callback alone, {micro['contents']}-content request, {micro['pruned_parts']} payloads "
        f"pruned: median {micro['warm_median_ms']} ms (p95 {micro['warm_p95_ms']}) warm, "
        f"{micro['cold_median_ms']} ms (p95 {micro['cold_p95_ms']}) cold.",
        "Raw payloads still in stored events after pruning: "
        + ", ".join(f"{m}={t['raw_payloads_still_stored']}" for m, t in report["totals"].items()),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--searches", type=int, default=5)
    parser.add_argument("--result-tokens", type=int, default=2000)
    parser.add_argument("--keep-recent", type=int, default=4)
    parser.add_argument("--threshold-tokens", type=int, default=24000)
    parser.add_argument(
        "--seed-result-tokens",
        type=int,
        default=1650,
        help="search size for the seeds' case (tuned so the raw request is ~8,900 tokens)",
    )
    args = parser.parse_args(argv)
    report = asyncio.run(run_all(args))
    print(json.dumps(report, indent=2) if args.json else render(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
