"""The in-process fusion of a heavy user's lists (memory/fusion.py): ranks, cuts and order."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest

from adk_memory_kit.memory.fusion import FusionWeights, fuse

T0 = datetime(2025, 1, 1, tzinfo=timezone.utc)
WEIGHTS = FusionWeights(rrf_k=20, vector=1.0, text=1.5, exact=0.3)


def ids(n: int) -> list[uuid.UUID]:
    return sorted(uuid.uuid4() for _ in range(n))


def keys(cur=True, bonus=0.0, imp=0.0, et=T0) -> dict:
    return {"cur": cur, "bonus": bonus, "imp": imp, "et": et}


def dense_row(row_id, bm25=None, exact=None, **k) -> dict:
    return {"id": row_id, "bm25": bm25, "exact": exact, **keys(**k)}


def lex_row(row_id, name, score, **k) -> dict:
    return {"id": row_id, "list": name, "score": score, **keys(**k)}


def test_scores_sum_the_lists_holding_a_row():
    a, b, c = ids(3)
    dense = [dense_row(a, bm25=2.0), dense_row(b)]
    lexical = [lex_row(c, "bm25", 3.0), lex_row(a, "bm25", 2.0), lex_row(c, "exact", 0.5)]
    top = fuse(dense=dense, lexical=lexical, weights=WEIGHTS, cand=10, limit=10)
    got = {f.id: f for f in top}
    assert got[a].score == 1.0 / 21 + 1.5 / 22  # dense rank 1, bm25 rank 2
    assert got[c].score == 1.5 / 21 + 0.3 / 21  # bm25 rank 1, exact rank 1
    assert got[b].score == 1.0 / 22 and got[b].bm25 is None and got[b].exact is None
    assert (got[a].bm25, got[c].exact) == (2.0, 0.5)
    assert [f.id for f in top] == [a, c, b]


def test_equal_scores_rank_by_id_and_lists_are_cut():
    rows = ids(5)
    lexical = [lex_row(r, "bm25", 1.0) for r in reversed(rows)]
    top = fuse(dense=[], lexical=lexical, weights=WEIGHTS, cand=3, limit=10)
    # ranks 1..3 go to the three smallest ids; the other two fall outside the cut list
    assert [f.id for f in top] == rows[:3]
    assert [f.score for f in top] == [1.5 / 21, 1.5 / 22, 1.5 / 23]


def test_exact_list_keeps_positive_scores_only():
    a, b = ids(2)
    dense = [dense_row(a, exact=0.0), dense_row(b, exact=0.2)]
    top = fuse(dense=dense, lexical=[], weights=WEIGHTS, cand=10, limit=10)
    assert {f.id: f.exact for f in top} == {a: None, b: 0.2}


def test_current_rows_first_then_bonus_importance_time_and_id():
    rows = ids(6)
    # every row only in the BM25 list with the same score: the fused scores differ by rank,
    # so give the bonus enough weight to reorder, and make the rest tie exactly
    lexical = [
        lex_row(rows[0], "bm25", 5.0, cur=False),
        lex_row(rows[1], "bm25", 1.0, bonus=1.0),
    ]
    dense = [
        dense_row(rows[2], imp=0.9),
        dense_row(rows[3], et=T0 + timedelta(days=1)),
    ]
    top = fuse(dense=dense, lexical=lexical, weights=WEIGHTS, cand=10, limit=10)
    order = [f.id for f in top]
    assert order[-1] == rows[0]  # superseded last despite the best BM25 score
    assert order[0] == rows[1]  # the author bonus
    assert top[0].score == pytest.approx(1.5 / 22 + 1.0)


def test_exact_ties_fall_to_importance_time_then_id():
    a, b, c, d = ids(4)
    zero = FusionWeights(rrf_k=20, vector=0.0, text=0.0, exact=0.0)
    dense = [
        dense_row(d),
        dense_row(c),
        dense_row(b, et=T0 + timedelta(seconds=1)),
        dense_row(a, imp=0.5),
    ]
    top = fuse(dense=dense, lexical=[], weights=zero, cand=10, limit=10)
    assert [f.id for f in top] == [a, b, c, d]
    assert fuse(dense=dense, lexical=[], weights=zero, cand=10, limit=2)[1].id == b


def test_a_row_in_both_statements_is_counted_once():
    a = ids(1)[0]
    dense = [dense_row(a, bm25=1.0, exact=0.4)]
    lexical = [lex_row(a, "bm25", 1.0), lex_row(a, "exact", 0.4)]
    (only,) = fuse(dense=dense, lexical=lexical, weights=WEIGHTS, cand=10, limit=10)
    assert only.score == 1.0 / 21 + 1.5 / 21 + 0.3 / 21


def test_nothing_to_fuse():
    assert fuse(dense=[], lexical=[], weights=WEIGHTS, cand=10, limit=10) == []
