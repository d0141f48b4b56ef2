"""Hybrid retrieval in one SQL statement: exact vector scan + full text, fused by weighted RRF.

Both halves filter on (app_name, user_id) inside their own WHERE clause, so the candidate lists
never contain another user's rows, and the per-user btree (the primary key's prefix) keeps the
exact distance scan to that user's rows (see README: index strategy).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text

from adk_memory_kit.memory.schema import TABLE


@dataclass
class SearchOptions:
    """Ranking knobs. ``text_weight`` 2x lets an exact identifier win over a near-miss vector."""

    limit: int = 10
    candidates: int = 60
    rrf_k: int = 60
    vector_weight: float = 1.0
    text_weight: float = 2.0


_LIVE = "(t.expires_at IS NULL OR t.expires_at > now())"

HYBRID_SQL = text(
    f"""
WITH vec AS (
    SELECT t.id, row_number() OVER (ORDER BY t.embedding <=> CAST(:qvec AS vector)) AS rank
    FROM {TABLE} t
    WHERE t.app_name = :app AND t.user_id = :user AND {_LIVE}
    ORDER BY t.embedding <=> CAST(:qvec AS vector)
    LIMIT :cand
), txt AS (
    SELECT s.id, row_number() OVER (ORDER BY s.score DESC, s.id) AS rank
    FROM (
        SELECT t.id, ts_rank_cd(t.tsv, q.tq, 1) AS score
        FROM {TABLE} t, websearch_to_tsquery('simple', :tsq) AS q(tq)
        WHERE t.app_name = :app AND t.user_id = :user AND {_LIVE} AND t.tsv @@ q.tq
        ORDER BY score DESC
        LIMIT :cand
    ) s
), fused AS (
    SELECT id, sum(score) AS score FROM (
        SELECT id, :wv / (:rrf_k + rank) AS score FROM vec
        UNION ALL
        SELECT id, :wt / (:rrf_k + rank) AS score FROM txt
    ) u GROUP BY id
)
SELECT t.id, t.session_id, t.event_id, t.kind, t.author, t.role, t.text, t.event_time,
       t.ingested_at, t.subject, t.valid_to, t.expires_at, t.importance, t.metadata,
       f.score
FROM fused f JOIN {TABLE} t ON t.id = f.id
WHERE t.app_name = :app AND t.user_id = :user
ORDER BY (t.valid_to IS NULL) DESC, f.score DESC, coalesce(t.importance, 0) DESC,
         t.event_time DESC
LIMIT :lim
"""
)

VECTOR_ONLY_SQL = text(
    f"""
SELECT t.id, t.session_id, t.event_id, t.kind, t.author, t.role, t.text, t.event_time,
       t.ingested_at, t.subject, t.valid_to, t.expires_at, t.importance, t.metadata,
       1 - (t.embedding <=> CAST(:qvec AS vector)) AS score
FROM {TABLE} t
WHERE t.app_name = :app AND t.user_id = :user AND {_LIVE}
ORDER BY (t.valid_to IS NULL) DESC, t.embedding <=> CAST(:qvec AS vector)
LIMIT :lim
"""
)


def vector_literal(vector: list[float]) -> str:
    """pgvector's text form, e.g. ``[0.1,0.2]``."""
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"
