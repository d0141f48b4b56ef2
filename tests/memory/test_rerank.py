"""Read-time re-ordering (memory/rerank.py): session prior and neighbour propagation."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.memory import SearchOptions
from adk_memory_kit.memory.rerank import neighbours, rerank
from tests.support.memory import session_with, unique


def _row(rid: str, score: float, sid: str, own: str, context: str = "", **kw):
    return {
        "id": rid,
        "score": score,
        "session_id": sid,
        "search_text": own,
        "context_text": context,
        "valid_to": None,
        **kw,
    }


ROWS = [
    _row("a", 0.30, "s1", "Lena: we met at the harbour"),
    _row("b", 0.25, "s2", "Omar: the ferry was late again", "Omar: tickets were cheap"),
    _row("c", 0.24, "s1", "Lena: it rained all week", "Lena: we met at the harbour"),
    _row("d", 0.20, "s1", "Lena: the hotel had a pool"),
]


def test_zero_weights_keep_the_fused_order():
    out = rerank(ROWS, session_weight=0, neighbour_weight=0, limit=3)
    assert [r["id"] for r in out] == ["a", "b", "c"]


def test_neighbours_are_found_through_the_indexed_context():
    assert neighbours(ROWS) == [{2}, set(), {0}, set()]


def test_session_prior_lifts_rows_of_a_session_that_holds_more_of_the_top():
    out = rerank(ROWS, session_weight=0.2, neighbour_weight=0, limit=4)
    assert [r["id"] for r in out] == ["a", "c", "d", "b"]


def test_neighbour_propagation_lifts_a_neighbour_of_a_strong_row():
    out = rerank(ROWS, session_weight=0, neighbour_weight=0.3, limit=4)
    assert [r["id"] for r in out][:2] == ["a", "c"]
    assert out[1]["score"] == pytest.approx(0.24 + 0.3 * 0.30)


def test_superseded_rows_stay_after_current_ones():
    old = dict(ROWS[2], valid_to=datetime.now(timezone.utc) - timedelta(days=1))
    out = rerank([ROWS[0], ROWS[1], old], session_weight=1.0, neighbour_weight=1.0, limit=3)
    assert [r["id"] for r in out] == ["a", "b", "c"]


@pytest.mark.slow
async def test_the_service_applies_the_reordering_options(db_url, embedder):
    """The reply "yes, on the ninth" says nothing by itself; its neighbour names the trip."""
    app, user = unique("rerank"), unique("u")
    turns = [
        ("user", "Did you ever book the glacier hike in Iceland?"),
        ("model", "Yes, on the ninth, with the small group tour."),
        ("user", "Separately, the dentist moved my appointment."),
        ("model", "I noted the new dentist time."),
    ]
    plain = PgVectorMemoryService.from_url(
        db_url,
        embedder=embedder,
        search=SearchOptions(session_weight=0.0, neighbour_weight=0.0),
        write_policy="full_transcript",
    )
    lifted = PgVectorMemoryService.from_url(
        db_url,
        embedder=embedder,
        search=SearchOptions(session_weight=0.0, neighbour_weight=1.0),
        write_policy="full_transcript",
    )
    try:
        await plain.add_session_to_memory(session_with(app, user, turns))
        query = "glacier hike Iceland group tour dentist"
        base = await plain.search_memory(app_name=app, user_id=user, query=query)
        after = await lifted.search_memory(app_name=app, user_id=user, query=query)
        assert {m.id for m in base.memories} == {m.id for m in after.memories}
        base_scores = [m.custom_metadata["score"] for m in base.memories]
        after_scores = [m.custom_metadata["score"] for m in after.memories]
        assert sum(after_scores) > sum(base_scores)  # neighbours lent each other score
        assert after_scores == sorted(after_scores, reverse=True)
    finally:
        await plain.close()
        await lifted.close()


def _fact(rid: str, score: float, dense: float, text: str, days_ago: int, **metadata):
    when = datetime.now(timezone.utc) - timedelta(days=days_ago)
    return _row(
        rid,
        score,
        "",
        text,
        text=text,
        dense_score=dense,
        event_time=when,
        memory_type="fact",
        metadata=metadata,
    )


def test_a_linked_change_leads_the_memory_it_may_update_for_a_present_question():
    old = _fact("old", 0.50, 0.70, "My standup is at 10am", 90)
    # far below the old one for the question (outside every recency window), linked to it
    new = _fact("new", 0.20, 0.36, "standup moved to 9.15", 1, may_update="old")
    other = _fact("other", 0.30, 0.40, "Sprint review is Friday 4pm", 1)
    kw = {"session_weight": 0.0, "neighbour_weight": 0.0, "limit": 3}
    now = [r["id"] for r in rerank([old, other, new], plain_present=True, **kw)]
    assert now.index("new") == now.index("old") - 1  # just above it, no further
    assert now[0] == "new" and set(now) == {"old", "new", "other"}
    # a question about the past keeps the fused order; so does a link to a row not returned
    assert [r["id"] for r in rerank([old, other, new], **kw)] == ["old", "other", "new"]
    stray = _fact("stray", 0.20, 0.36, "moved to 9.15", 1, may_update="gone")
    ids = [r["id"] for r in rerank([old, other, stray], plain_present=True, **kw)]
    assert ids == ["old", "other", "stray"]


def test_a_link_never_lifts_an_older_row_above_a_newer_one():
    new = _fact("new", 0.50, 0.70, "I drive a Creta", 1)
    odd = _fact("odd", 0.20, 0.36, "I drove a City", 90, may_update="new")  # older: ignored
    kw = {"session_weight": 0.0, "neighbour_weight": 0.0, "limit": 2}
    assert [r["id"] for r in rerank([new, odd], plain_present=True, **kw)] == ["new", "odd"]
