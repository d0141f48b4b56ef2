"""Hybrid retrieval in one SQL statement: exact vector scan + BM25 + exact phrases, fused by RRF.

Three ranked lists, every one filtered on (app_name, user_id) inside its own WHERE clause, so no
list ever holds another user's rows, and the per-user btree (the primary key's prefix) keeps the
exact distance scan to that user's rows (see README: index strategy):

* ``vec``: cosine distance of the query embedding, exact scan of the user's rows.
* ``bm25``: Okapi BM25 over the English-stemmed ``tsv_en`` (the turn at weight A, its
  neighbouring turns at weight D counted ``context_weight`` times). Document frequencies and
  the collection size come from the user's own rows, so a word that is everywhere in *this*
  user's memory (their name, say) weighs little.
* ``exact``: ``ts_rank_cd`` over the unstemmed ``simple`` tsvector of the turn itself (not its
  neighbours), where an identifier such as ``A-4521`` is an exact phrase: it ranks an entry
  holding ``A-4521`` above one holding ``A-4512`` (or ``B-4521``), which stemming alone cannot
  tell apart.

The lists are fused by weighted reciprocal rank; a turn whose author the query names gets a
small bonus on top.
"""

from __future__ import annotations

from typing import Any

from pgvector.sqlalchemy import VECTOR
from pydantic import Field
from sqlalchemy import bindparam, text

from adk_memory_kit.core.config import KitConfig
from adk_memory_kit.memory.query import websearch_or_query
from adk_memory_kit.memory.schema import TABLE

MAX_LIMIT = 2**31 - 1


class SearchOptions(KitConfig):
    """Ranking knobs; the defaults are tuned on LoCoMo (docs/locomo.md). Validated at
    construction: a negative weight or RRF constant is refused with ``InvalidInputError``."""

    limit: int = Field(10, ge=1, le=MAX_LIMIT, description="Results returned by default.")
    candidates: int = Field(
        200, ge=1, le=MAX_LIMIT, description="Depth of each ranked list before fusion."
    )
    rrf_k: int = Field(
        20,
        ge=0,
        le=1_000_000,
        description="The RRF constant (lower trusts the top of each list more).",
    )
    vector_weight: float = Field(
        1.0, ge=0, allow_inf_nan=False, description="RRF weight of the vector list."
    )
    text_weight: float = Field(
        1.5, ge=0, allow_inf_nan=False, description="RRF weight of the BM25 list."
    )
    exact_weight: float = Field(
        0.3,
        ge=0,
        allow_inf_nan=False,
        description="RRF weight of the unstemmed exact-phrase list.",
    )
    bm25_k1: float = Field(1.2, ge=0, allow_inf_nan=False, description="BM25 term saturation.")
    bm25_b: float = Field(
        0.3, ge=0, le=1, allow_inf_nan=False, description="BM25 length normalisation."
    )
    context_weight: float = Field(
        0.5,
        ge=0,
        allow_inf_nan=False,
        description="How much a word found only in a neighbouring turn counts, relative to "
        "one in the turn itself.",
    )
    author_weight: float = Field(
        0.02,
        ge=0,
        allow_inf_nan=False,
        description="Added to the fused score of a turn whose author the query names "
        '("what did Caroline ...").',
    )


_LIVE = "(t.expires_at IS NULL OR t.expires_at > now())"
_SCOPE = f"t.app_name = :app AND t.user_id = :user AND {_LIVE}"
_AUTHOR_BONUS = "CASE WHEN lower(t.author) = ANY(CAST(:terms AS text[])) THEN :wa ELSE 0 END"

HYBRID_SQL = text(
    f"""
WITH q AS (
    SELECT websearch_to_tsquery('english', :tsq) AS tq_en,
           websearch_to_tsquery('simple', :tsq) AS tq,
           ARRAY(SELECT lexeme FROM unnest(to_tsvector('english', :qtext))) AS lx
), vec AS (
    SELECT t.id, row_number() OVER (ORDER BY t.embedding <=> CAST(:qvec AS vector), t.id) AS rank
    FROM {TABLE} t
    WHERE {_SCOPE}
    ORDER BY t.embedding <=> CAST(:qvec AS vector), t.id
    LIMIT :cand
), hits AS MATERIALIZED (
    SELECT t.id, t.search_len AS dl, u.lexeme,
           (SELECT count(*) FILTER (WHERE w = 'A') + :ctxw * count(*) FILTER (WHERE w <> 'A')
            FROM unnest(u.weights) AS w) AS tf
    FROM {TABLE} t CROSS JOIN q CROSS JOIN LATERAL unnest(t.tsv_en) AS u
    WHERE {_SCOPE} AND t.tsv_en @@ q.tq_en AND u.lexeme = ANY(q.lx)
), stats AS MATERIALIZED (
    SELECT count(*) AS n, greatest(avg(t.search_len), 1) AS avgdl
    FROM {TABLE} t
    WHERE {_SCOPE}
), df AS MATERIALIZED (
    SELECT lexeme, count(*) AS df FROM hits GROUP BY lexeme
), bm25 AS (
    SELECT h.id, row_number() OVER (ORDER BY sum(
        ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5))
        * h.tf * (:k1 + 1) / (h.tf + :k1 * (1 - :b + :b * h.dl / s.avgdl))) DESC, h.id) AS rank
    FROM hits h JOIN df d USING (lexeme) CROSS JOIN stats s
    GROUP BY h.id
    ORDER BY rank
    LIMIT :cand
), exact AS (
    SELECT s.id, row_number() OVER (ORDER BY s.score DESC, s.id) AS rank
    FROM (
        SELECT t.id, ts_rank_cd('{{0, 0, 0, 1}}', t.tsv, q.tq, 1) AS score
        FROM {TABLE} t CROSS JOIN q
        WHERE {_SCOPE} AND t.tsv @@ q.tq
        ORDER BY score DESC, t.id
        LIMIT :cand
    ) s
    WHERE s.score > 0
), fused AS (
    SELECT id, sum(score) AS score FROM (
        SELECT id, :wv / (:rrf_k + rank) AS score FROM vec
        UNION ALL
        SELECT id, :wt / (:rrf_k + rank) AS score FROM bm25
        UNION ALL
        SELECT id, :we / (:rrf_k + rank) AS score FROM exact
    ) u GROUP BY id
)
SELECT t.id, t.session_id, t.event_id, t.kind, t.author, t.role, t.text, t.event_time,
       t.ingested_at, t.subject, t.valid_to, t.expires_at, t.importance, t.metadata,
       f.score + {_AUTHOR_BONUS} AS score
FROM fused f JOIN {TABLE} t ON t.id = f.id
WHERE t.app_name = :app AND t.user_id = :user
ORDER BY (t.valid_to IS NULL) DESC, f.score + {_AUTHOR_BONUS} DESC,
         coalesce(t.importance, 0) DESC, t.event_time DESC, t.id
LIMIT :lim
"""
).bindparams(bindparam("qvec", type_=VECTOR()))

VECTOR_ONLY_SQL = text(
    f"""
SELECT t.id, t.session_id, t.event_id, t.kind, t.author, t.role, t.text, t.event_time,
       t.ingested_at, t.subject, t.valid_to, t.expires_at, t.importance, t.metadata,
       1 - (t.embedding <=> CAST(:qvec AS vector)) AS score
FROM {TABLE} t
WHERE t.app_name = :app AND t.user_id = :user AND {_LIVE}
ORDER BY (t.valid_to IS NULL) DESC, t.embedding <=> CAST(:qvec AS vector), t.id
LIMIT :lim
"""
).bindparams(bindparam("qvec", type_=VECTOR()))


def text_params(terms: list[str], options: SearchOptions) -> dict[str, Any]:
    """The full-text and fusion parameters of :data:`HYBRID_SQL` for the query's terms."""
    return {
        "tsq": websearch_or_query(terms),
        "qtext": " ".join(terms),
        "terms": terms,
        "rrf_k": options.rrf_k,
        "wv": options.vector_weight,
        "wt": options.text_weight,
        "we": options.exact_weight,
        "wa": options.author_weight,
        "k1": options.bm25_k1,
        "b": options.bm25_b,
        "ctxw": options.context_weight,
    }
