"""Hierarchical summaries stay bounded over a 500-turn session (real Runner, database)."""

from __future__ import annotations

import uuid

import pytest
from context_support import make_app, request_tokens, run_turn
from google.adk.apps.app import EventsCompactionConfig
from google.adk.runners import Runner

from adk_memory_kit import FactPreservingSummarizer
from adk_memory_kit.context import parse_summary
from adk_memory_kit.pruning import estimate_text_tokens

TURNS = 500
CONSTRAINT = "We must never book flights that leave before 08:00, that is a hard rule."


def turn_text(index: int) -> str:
    if index == 0:
        return CONSTRAINT
    if index % 10 == 0:
        return f"Check [fetch {index} 200] for me."
    return f"Note item {index}: we will keep order ORD-{index:04d} for {index % 9 + 1} guests."


@pytest.mark.slow
async def test_summary_stays_bounded_over_500_turns(sessions):
    summarizer = FactPreservingSummarizer(
        max_recent_tokens=200, max_older_tokens=120, max_values=30, max_tool_values=8
    )
    app, llm = make_app(f"hier_{uuid.uuid4().hex[:6]}")
    app.events_compaction_config = EventsCompactionConfig(
        summarizer=summarizer, token_threshold=1200, event_retention_size=6
    )
    runner = Runner(app=app, session_service=sessions)
    session = await sessions.create_session(app_name=app.name, user_id="u1")
    for index in range(TURNS):
        await run_turn(runner, "u1", session.id, turn_text(index))

    stored = await sessions.get_session(app_name=app.name, user_id="u1", session_id=session.id)
    texts = [
        e.actions.compaction.compacted_content.parts[0].text
        for e in stored.events
        if e.actions and e.actions.compaction
    ]
    assert len(texts) >= 20, "expected many compactions over 500 turns"
    sizes = [estimate_text_tokens(text) for text in texts]
    # caps: prose tiers + 30 values + 8 tool values (+ headers); never grows past it
    bound = 200 + 120 + 30 * 8 + 8 * 6 + 40
    assert max(sizes) <= bound
    assert max(sizes[len(sizes) // 2 :]) <= max(sizes[: len(sizes) // 2]) + 20
    latest = parse_summary(texts[-1])
    assert latest is not None and latest.older  # older summaries were summarised again
    # the high-value constraint from turn 1 survives every re-summarisation
    assert any("before 08:00" in line for line in latest.older + latest.recent)
    # the newest compacted values are kept verbatim; the oldest decayed out of the block
    kept = {value.text for value in latest.values}
    assert "ORD-0001" not in kept
    assert any(value.startswith("ORD-04") for value in kept)
    # requests stay bounded too (compaction + retention keep them near the threshold)
    assert max(request_tokens(r) for r in llm.requests[-100:]) < 2500
