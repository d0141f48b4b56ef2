"""Reciprocal-rank fusion: the one ranking of every search path, light and heavy.

The SQL statements (memory/search_sql.py) only read ranked lists, each row with its list's
score and its ordering keys; this module ranks them, for a light user's exact lists and a
heavy user's bounded ones alike, so a tuning change is made here once.

Guarantees: each list is ranked by score (descending, then id), the BM25 list keeps rows with
a score and the exact-phrase list rows scoring above 0, each cut to ``cand``; a row's fused
score is the sum, in the order vector, BM25, exact, of ``weight / (rrf_k + rank)`` over the
lists holding it (float8 arithmetic, as the SQL fusion it replaced); rows are ordered current
first, then fused score plus author bonus, importance and event time (all descending; a
missing time first, as PostgreSQL sorts NULL), then id. The relevance floor keeps a row only
in the dense list when its cosine similarity reaches ``min_similarity``.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

_NO_TIME = datetime.min.replace(tzinfo=timezone.utc)


@dataclass(frozen=True)
class FusionWeights:
    """RRF constant and list weights (``SearchOptions`` rrf_k / vector / text / exact)."""

    rrf_k: int
    vector: float
    text: float
    exact: float


@dataclass(frozen=True)
class FusedRow:
    """One returned row: ``score`` is the fused score plus the author bonus; ``bm25`` and
    ``exact`` the row's score in that list (``None``: not in the cut list)."""

    id: uuid.UUID
    score: float
    bm25: float | None
    exact: float | None


def _ranked(scores: Mapping[int, float], cand: int) -> list[tuple[int, float]]:
    """``scores`` best first (score descending, then id), cut to ``cand``."""
    by_id = sorted(scores.items(), key=lambda item: item[0])
    by_id.sort(key=lambda item: item[1], reverse=True)  # stable: ties stay in id order
    return by_id[:cand]


def fuse(
    *,
    dense: list[Mapping[str, Any]],
    lexical: list[Mapping[str, Any]],
    weights: FusionWeights,
    cand: int,
    limit: int,
    min_similarity: float | None = None,
) -> list[FusedRow]:
    """The top ``limit`` rows of the fused lists.

    ``dense``: the dense list best first, rows with ``id``, ``sim`` (cosine similarity),
    ``bm25``, ``exact`` (the row's scores; ``None`` or absent: no match) and the ordering keys
    ``cur``, ``bonus``, ``imp``, ``et``. ``lexical``: rows with ``list`` (``'bm25'`` or
    ``'exact'``), ``id``, ``score`` and the same ordering keys. A row in both carries the same
    scores (one scoring expression). ``min_similarity``: the relevance floor (``None``: none);
    a row in neither cut lexical list is returned only if its dense row's ``sim`` reaches it.
    """
    # ids as the UUID's integer: it orders as the UUID (and as PostgreSQL's uuid) and hashes
    # and compares in C, where a UUID does both in Python (the light path fuses ~600 rows).
    # Each row is read once (a driver's row mapping is slow to index), into: its UUID, its
    # ordering keys (a dense row's win; the same values either way) and one BM25 and one
    # exact-phrase score per id (a lexical row's first, then a dense row's).
    ids: dict[int, uuid.UUID] = {}
    keys: dict[int, tuple[Any, Any, Any, Any]] = {}
    bm25_scores: dict[int, float] = {}
    exact_scores: dict[int, float] = {}
    for row in lexical:
        row_id = row["id"]
        key = row_id.int
        ids[key] = row_id
        keys[key] = (row["cur"], row["bonus"], row["imp"], row["et"])
        score = row["score"]
        if score is None:
            continue
        if row["list"] == "bm25":
            if key not in bm25_scores:
                bm25_scores[key] = float(score)
        elif row["list"] == "exact":
            if key not in exact_scores and score > 0:
                exact_scores[key] = float(score)
        else:
            raise KeyError(row["list"])
    vec: list[int] = []
    sims: dict[int, Any] = {}
    for position, row in enumerate(dense):
        row_id = row["id"]
        key = row_id.int
        ids[key] = row_id
        keys[key] = (row["cur"], row["bonus"], row["imp"], row["et"])
        if position < cand:
            vec.append(key)
        get = row.get
        score = get("bm25")
        if score is not None and key not in bm25_scores:
            bm25_scores[key] = float(score)
        score = get("exact")
        if score is not None and key not in exact_scores and score > 0:
            exact_scores[key] = float(score)
        sims[key] = get("sim")
    bm25 = _ranked(bm25_scores, cand)
    exact = _ranked(exact_scores, cand)
    fused: dict[int, float] = {}
    bm25_of: dict[int, float] = {}
    exact_of: dict[int, float] = {}
    for rank, row_id in enumerate(vec, start=1):
        fused[row_id] = fused.get(row_id, 0.0) + weights.vector / (weights.rrf_k + rank)
    for rank, (row_id, score) in enumerate(bm25, start=1):
        fused[row_id] = fused.get(row_id, 0.0) + weights.text / (weights.rrf_k + rank)
        bm25_of[row_id] = score
    for rank, (row_id, score) in enumerate(exact, start=1):
        fused[row_id] = fused.get(row_id, 0.0) + weights.exact / (weights.rrf_k + rank)
        exact_of[row_id] = score

    final = {row_id: score + keys[row_id][1] for row_id, score in fused.items()}

    def order(row_id: int) -> tuple[bool, float, float, bool, datetime]:
        cur, _, imp, et = keys[row_id]
        # PostgreSQL sorts a NULL time first in descending order
        return (
            bool(cur),
            final[row_id],
            float(imp),
            et is None,
            et if et is not None else _NO_TIME,
        )

    if min_similarity is not None:
        floor = min_similarity
        fused = {
            row_id: score
            for row_id, score in fused.items()
            if row_id in bm25_of
            or row_id in exact_of
            or ((sim := sims.get(row_id)) is not None and sim >= floor)
        }
    ranked = sorted(fused)  # id order, kept among equal keys by the stable sort below
    ranked.sort(key=order, reverse=True)
    return [
        FusedRow(
            id=ids[row_id],
            score=final[row_id],
            bm25=bm25_of.get(row_id),
            exact=exact_of.get(row_id),
        )
        for row_id in ranked[:limit]
    ]


def add_ranked_list(
    rows: list[Mapping[str, Any]], ranked: list[str], *, weight: float, rrf_k: int
) -> list[Mapping[str, Any]]:
    """``rows`` (each with ``id`` and ``score``) with one more ranked list fused in: a row
    at (1-based) rank ``r`` of ``ranked`` (ids as text) gains ``weight / (rrf_k + r)``; a row
    of ``ranked`` not in ``rows`` is left out. Best first (score descending; ties keep the
    order of ``rows``)."""
    gain = {row_id: weight / (rrf_k + rank) for rank, row_id in enumerate(ranked, start=1)}
    fused = [
        {**row, "score": float(row["score"]) + gain[key]}
        if (key := str(row["id"])) in gain
        else row
        for row in rows
    ]
    return sorted(fused, key=lambda row: -float(row["score"]))
