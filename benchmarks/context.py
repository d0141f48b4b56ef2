"""Five ways to keep a 60-turn session's requests small, side by side, through ADK's Runner.

A scripted model (no network) talks with a user for 60 turns: dialogue-heavy turns, a bulky
``lookup_fares`` tool result (about 1,500 tokens) every third turn, and four exact values
planted in the first turns (a booking reference, a URL, an amount and a constraint) that the
last four turns ask for. Every request the agent's model receives is measured with the kit's
token estimate.

    .venv/bin/python benchmarks/context.py          # markdown table (in-memory sessions)
    .venv/bin/python benchmarks/context.py --db     # ADK's DatabaseSessionService, embedded PG
    .venv/bin/python benchmarks/context.py --json   # machine-readable

Rows: full replay; ADK's ``ContextFilterPlugin`` (last 5 invocations); ADK token-threshold
compaction with ``LlmEventSummarizer`` fed a deliberately lossy scripted summary; the same
compaction with ``FactPreservingSummarizer``; ``ContextBudgetPlugin(max_tokens=6000)``.

Columns: tokens of the last request, the largest request, the total over the session (the
agent's requests only; summariser calls are not counted), history rewrites (a request whose
contents do not extend the previous request's: a prompt-cache invalidation) and the share of
planted values present in the request of the turn that asks for each.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.apps.app import App, EventsCompactionConfig
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
from google.adk.models.llm_request import LlmRequest
from google.adk.plugins.context_filter_plugin import ContextFilterPlugin
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_memory_kit import ContextBudgetPlugin, FactPreservingSummarizer
from adk_memory_kit.pruning import estimate_request_tokens
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses, last_user_text

TURNS = 60
BUDGET = 6000
PLANTED = {
    "booking reference": "QX7T2L",
    "itinerary URL": "https://travel.example.com/trips/itinerary-4471",
    "amount": "€2,380.00",
    "constraint": "before 14:00",
}
OPENING = [
    "Hi! I'm planning the Lisbon offsite. My booking reference is QX7T2L.",
    "The shared itinerary lives at https://travel.example.com/trips/itinerary-4471 if you need it.",
    "Finance approved it: the total must stay under €2,380.00 for the whole group.",
    "One hard rule from the team: we must arrive before 14:00 on the first day.",
]
NEEDS = [
    ("What was my booking reference again?", PLANTED["booking reference"]),
    ("Can you paste the itinerary link?", PLANTED["itinerary URL"]),
    ("Remind me of the spending cap.", PLANTED["amount"]),
    ("Which arrival rule did the team set?", PLANTED["constraint"]),
]
CHATTER = (
    "Let's talk about the programme for a bit. I'd like a mix of workshops, long lunches and a "
    "walk by the river, with time for people to catch up informally. Some colleagues asked "
    "about vegetarian options, quiet rooms for calls and whether the venue has decent wifi. "
    "Also think about the evening: a dinner somewhere lively but not too loud, ideally "
    "walkable from the hotel. Topic {n}: what do you think works best here?"
)
REPLY = (
    "Good question. For this part of the programme I would keep the mornings focused and the "
    "afternoons flexible, group people by project for the workshops, and leave an hour of "
    "slack before dinner. I will keep the earlier details in mind as we go. (note {n})"
)
INSTRUCTION = "You are a travel-planning assistant for a team offsite. Be concise and exact."


def lookup_fares(route: str, day: int) -> dict:
    """Return a bulky fare table for a route and day (about 1,500 tokens)."""
    rows = [
        f"{route} day {day} option {k}: carrier TP, fare class Y, changeable, seats left {k % 7}"
        for k in range(80)
    ]
    return {"route": route, "day": day, "rows": rows}


def user_message(turn: int) -> str:
    if turn < len(OPENING):
        return OPENING[turn]
    if turn >= TURNS - len(NEEDS):
        return NEEDS[turn - (TURNS - len(NEEDS))][0]
    if turn % 3 == 0:
        return f"Please check fares LIS-OPO for day {turn} [fares]."
    return CHATTER.format(n=turn)


def responder(request: LlmRequest) -> Sequence[types.Part] | str:
    if last_function_responses(request):
        return "I checked the fare table; the morning options fit."
    text = last_user_text(request)
    if "[fares]" in text:
        day = int(text.split("day ")[1].split()[0])
        return [call("lookup_fares", route="LIS-OPO", day=day)]
    return REPLY.format(n=len(request.contents or ()))


def lossy_summarizer_llm() -> ScriptedLlm:
    return ScriptedLlm(
        responder=lambda request: (
            "Conversation Language: English. The user is planning a team offsite in Lisbon and "
            "discussed the programme, fares and dinner. Tools used: lookup_fares."
        )
    )


def compaction(summarizer: Any) -> EventsCompactionConfig:
    return EventsCompactionConfig(
        summarizer=summarizer, token_threshold=4000, event_retention_size=8
    )


def configs() -> list[tuple[str, dict[str, Any]]]:
    return [
        ("full replay", {}),
        ("ContextFilterPlugin (last 5 invocations)", {"plugins": [ContextFilterPlugin(5)]}),
        (
            "ADK compaction + LlmEventSummarizer (lossy summary)",
            {"compaction": compaction(LlmEventSummarizer(lossy_summarizer_llm()))},
        ),
        (
            "ADK compaction + FactPreservingSummarizer",
            {"compaction": compaction(FactPreservingSummarizer())},
        ),
        (f"ContextBudgetPlugin(max_tokens={BUDGET})", {"plugins": [ContextBudgetPlugin(BUDGET)]}),
    ]


def _fingerprint(content: types.Content) -> str:
    """Content identity with JSON keys sorted: ADK's DatabaseSessionService stores payloads as
    JSONB, which reorders a tool result's keys on reload; that is not the strategy's doing."""
    data = json.dumps(content.model_dump(mode="json", exclude_none=True), sort_keys=True)
    return hashlib.sha256(data.encode()).hexdigest()


def _text(request: LlmRequest) -> str:
    chunks = [str(request.config.system_instruction or "")]
    for content in request.contents or ():
        for part in content.parts or ():
            chunks.append(part.text or "")
            if part.function_response is not None:
                chunks.append(json.dumps(part.function_response.response, ensure_ascii=False))
    return "\n".join(chunks)


async def run_config(name: str, options: dict[str, Any], service: Any) -> dict[str, Any]:
    llm = ScriptedLlm(responder=responder)
    agent = LlmAgent(name="planner", model=llm, instruction=INSTRUCTION, tools=[lookup_fares])
    app = App(
        name="context_bench",
        root_agent=agent,
        plugins=options.get("plugins", []),
        events_compaction_config=options.get("compaction"),
    )
    runner = Runner(app=app, session_service=service)
    session = await service.create_session(app_name=app.name, user_id="bench")
    need_requests: list[tuple[LlmRequest, str]] = []
    started = time.perf_counter()
    for turn in range(TURNS):
        before = len(llm.requests)
        message = types.Content(role="user", parts=[types.Part(text=user_message(turn))])
        async for _ in runner.run_async(
            user_id="bench", session_id=session.id, new_message=message
        ):
            pass
        if turn >= TURNS - len(NEEDS):
            need_requests.append((llm.requests[before], NEEDS[turn - (TURNS - len(NEEDS))][1]))
    elapsed = time.perf_counter() - started
    sizes = [estimate_request_tokens(r) for r in llm.requests]
    rewrites = 0
    previous: list[str] = []
    for request in llm.requests:
        current = [_fingerprint(c) for c in request.contents or ()]
        if previous and current[: len(previous)] != previous:
            rewrites += 1
        previous = current
    kept = sum(value in _text(request) for request, value in need_requests)
    return {
        "config": name,
        "requests": len(sizes),
        "last_request_tokens": sizes[-1],
        "max_request_tokens": max(sizes),
        "total_tokens": sum(sizes),
        "history_rewrites": rewrites,
        "planted_kept": kept,
        "planted_total": len(need_requests),
        "seconds": round(elapsed, 1),
    }


async def run_all(use_db: bool) -> list[dict[str, Any]]:
    if use_db:
        from google.adk.sessions import DatabaseSessionService

        from adk_memory_kit.db import embedded_db_url

        service = DatabaseSessionService(db_url=embedded_db_url())
    else:
        service = InMemorySessionService()
    try:
        return [await run_config(name, options, service) for name, options in configs()]
    finally:
        if use_db:
            await service.close()


def table(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| configuration | last request | largest request | total (60 turns) | history rewrites"
        " | planted values kept |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        share = 100 * row["planted_kept"] // row["planted_total"]
        lines.append(
            f"| {row['config']} | {row['last_request_tokens']:,} | {row['max_request_tokens']:,}"
            f" | {row['total_tokens']:,} | {row['history_rewrites']} |"
            f" {row['planted_kept']}/{row['planted_total']} ({share}%) |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", action="store_true", help="DatabaseSessionService (embedded PG)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    rows = asyncio.run(run_all(args.db))
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(table(rows))
        print(f"\nEstimated tokens (chars/4), {TURNS} turns, {rows[0]['requests']} model calls.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
