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

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from pgvector.sqlalchemy import VECTOR
from pydantic import Field
from sqlalchemy import TextClause, bindparam, text
from sqlalchemy.ext.asyncio import AsyncConnection

from adk_memory_kit.core.config import KitConfig
from adk_memory_kit.memory.ann import index_name, scope_literals
from adk_memory_kit.memory.query import websearch_or_query
from adk_memory_kit.memory.schema import TABLE
from adk_memory_kit.memory.term_stats import TERM_STATS, USER_STATS

MAX_LIMIT = 2**31 - 1


class SearchOptions(KitConfig):
    """Ranking knobs; the defaults are tuned on LoCoMo (docs/locomo.md). Validated at
    construction: a negative weight or RRF constant is refused with ``InvalidInputError``.

    Heavy users (``heavy_user_rows`` rows or more) take the bounded path (:func:`heavy_sql`):
    ``lexical_budget`` caps the rows the full-text candidate stage reads, and
    ``ann_ef_search`` is HNSW's ``ef_search`` on the user's partial index (memory/ann.py).
    """

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
    heavy_user_rows: int = Field(
        3_000,
        ge=1,
        le=2**62,
        description="Users with at least this many rows take the bounded heavy path "
        "(write-maintained statistics, bounded candidate lists).",
    )
    lexical_budget: int = Field(
        1_000,
        ge=1,
        le=MAX_LIMIT,
        description="Heavy path: the most rows the full-text candidate stage reads.",
    )
    ann_ef_search: int = Field(
        400,
        ge=1,
        le=1_000,
        description="Heavy path: HNSW ef_search on the user's partial index (memory/ann.py).",
    )


_LIVE = "(t.expires_at IS NULL OR t.expires_at > now())"
_AS_OF = "CAST(:as_of AS timestamptz)"
# The caller's filters, inside every ranked list (issue 16): types (procedures only when asked
# for by type), tags (any of), the validity window at ``as_of``; conflicts left for review
# are never recalled.
_FILTERS = f"""(CASE WHEN CAST(:types AS text[]) IS NULL
        THEN t.memory_type IS DISTINCT FROM 'procedure'
        ELSE t.memory_type = ANY(CAST(:types AS text[])) END)
    AND (CAST(:tags AS text[]) IS NULL OR t.tags && CAST(:tags AS text[]))
    AND t.review_state IS NULL
    AND ({_AS_OF} IS NULL OR (coalesce(t.valid_from, t.event_time) <= {_AS_OF}
        AND (t.valid_to IS NULL OR t.valid_to > {_AS_OF})))"""
_SCOPE = f"t.app_name = :app AND t.user_id = :user AND {_LIVE} AND {_FILTERS}"
# current first: not superseded (at ``as_of`` when given)
_CURRENT = f"coalesce(t.valid_to IS NULL OR t.valid_to > {_AS_OF}, false)"
_AUTHOR_BONUS = "CASE WHEN lower(t.author) = ANY(CAST(:terms AS text[])) THEN :wa ELSE 0 END"
_QVEC = "CAST(:qvec AS vector)"
_QVEC_PARAM = bindparam("qvec", type_=VECTOR())

_Q = """q AS (
    SELECT websearch_to_tsquery('english', :tsq) AS tq_en,
           websearch_to_tsquery('simple', :tsq) AS tq,
           ARRAY(SELECT lexeme FROM unnest(to_tsvector('english', :qtext))) AS lx
)"""

# BM25 term frequency of one lexeme: an occurrence at weight A (the turn) counts 1, one at
# weight D (a neighbouring turn) counts :ctxw.
_TF = """(SELECT count(*) FILTER (WHERE w = 'A') + :ctxw * count(*) FILTER (WHERE w <> 'A')
            FROM unnest(u.weights) AS w)"""

_BM25 = """sum(ln(1 + (s.n - d.df + 0.5) / (d.df + 0.5))
        * h.tf * (:k1 + 1) / (h.tf + :k1 * (1 - :b + :b * h.dl / s.avgdl)))"""

# Fusion and the final fetch, shared by both paths. Each list carries its raw score (bm25,
# exact = ts_rank_cd); dense (cosine similarity) is computed for the returned rows.
_FUSE_AND_FETCH = f"""fused AS (
    SELECT id, sum(rrf) AS score, max(bm25) AS bm25, max(exact) AS exact FROM (
        SELECT id, :wv / (:rrf_k + rank) AS rrf, NULL::float8 AS bm25, NULL::float8 AS exact
        FROM vec
        UNION ALL
        SELECT id, :wt / (:rrf_k + rank), score, NULL FROM bm25
        UNION ALL
        SELECT id, :we / (:rrf_k + rank), NULL, score FROM exact
    ) u GROUP BY id
)
SELECT t.id, t.session_id, t.event_id, t.kind, t.author, t.role, t.text, t.event_time,
       t.ingested_at, t.subject, t.valid_to, t.expires_at, t.importance, t.metadata,
       t.memory_type, t.tags, t.valid_from, t.recorded_at, t.last_accessed_at,
       t.access_count, t.last_confirmed_at, t.pinned, t.superseded_reason, t.superseded_by,
       f.score + {_AUTHOR_BONUS} AS score,
       1 - (t.embedding <=> {_QVEC}) AS dense_score, f.bm25 AS bm25_score,
       f.exact AS exact_score
FROM fused f JOIN {TABLE} t ON t.id = f.id
WHERE t.app_name = :app AND t.user_id = :user
ORDER BY {_CURRENT} DESC, f.score + {_AUTHOR_BONUS} DESC,
         coalesce(t.importance, 0) DESC, t.event_time DESC, t.id
LIMIT :lim"""

# Light users: exact lists over all of the user's rows (recall 1.0). Document frequencies are
# read off the rows matching the query, in the statement: cost linear in the user's rows.
HYBRID_SQL = text(
    f"""
WITH {_Q}, vec AS (
    SELECT t.id, row_number() OVER (ORDER BY t.embedding <=> {_QVEC}, t.id) AS rank
    FROM {TABLE} t
    WHERE {_SCOPE}
    ORDER BY t.embedding <=> {_QVEC}, t.id
    LIMIT :cand
), hits AS MATERIALIZED (
    SELECT t.id, t.search_len AS dl, u.lexeme, {_TF} AS tf
    FROM {TABLE} t CROSS JOIN q CROSS JOIN LATERAL unnest(t.tsv_en) AS u
    WHERE {_SCOPE} AND t.tsv_en @@ q.tq_en AND u.lexeme = ANY(q.lx)
), stats AS MATERIALIZED (
    SELECT count(*) AS n, greatest(avg(t.search_len), 1) AS avgdl
    FROM {TABLE} t
    WHERE {_SCOPE}
), df AS MATERIALIZED (
    SELECT lexeme, count(*) AS df FROM hits GROUP BY lexeme
), bm25 AS (
    SELECT h.id, {_BM25} AS score, row_number() OVER (ORDER BY {_BM25} DESC, h.id) AS rank
    FROM hits h JOIN df d USING (lexeme) CROSS JOIN stats s
    GROUP BY h.id
    ORDER BY rank
    LIMIT :cand
), exact AS (
    SELECT s.id, s.score, row_number() OVER (ORDER BY s.score DESC, s.id) AS rank
    FROM (
        SELECT t.id, ts_rank_cd('{{0, 0, 0, 1}}', t.tsv, q.tq, 1) AS score
        FROM {TABLE} t CROSS JOIN q
        WHERE {_SCOPE} AND t.tsv @@ q.tq
        ORDER BY score DESC, t.id
        LIMIT :cand
    ) s
    WHERE s.score > 0
), {_FUSE_AND_FETCH}
"""
)

_VECTOR_COLUMNS = f"""t.id, t.session_id, t.event_id, t.kind, t.author, t.role, t.text,
       t.event_time, t.ingested_at, t.subject, t.valid_to, t.expires_at, t.importance,
       t.metadata, t.memory_type, t.tags, t.valid_from, t.recorded_at, t.last_accessed_at,
       t.access_count, t.last_confirmed_at, t.pinned, t.superseded_reason, t.superseded_by,
       1 - (t.embedding <=> {_QVEC}) AS score,
       1 - (t.embedding <=> {_QVEC}) AS dense_score, NULL::float8 AS bm25_score,
       NULL::float8 AS exact_score"""

VECTOR_ONLY_SQL = text(
    f"""
SELECT {_VECTOR_COLUMNS}
FROM {TABLE} t
WHERE {_SCOPE}
ORDER BY {_CURRENT} DESC, t.embedding <=> {_QVEC}, t.id
LIMIT :lim
"""
).bindparams(_QVEC_PARAM)


def _heavy_vec(literal_scope: str) -> str:
    """The dense list of a heavy user. ``literal_scope`` names the user as SQL literals, so
    the planner can use the user's partial HNSW index (memory/ann.py); without one the list
    is an exact scan of the user's rows."""
    return f"""vec AS MATERIALIZED (
    SELECT v.id, row_number() OVER (ORDER BY v.dist, v.id) AS rank FROM (
        SELECT t.id, t.embedding <=> {_QVEC} AS dist
        FROM {TABLE} t
        WHERE {_SCOPE} AND {literal_scope}
        ORDER BY t.embedding <=> {_QVEC}
        LIMIT :cand
    ) v
)"""


# Heavy users: every list is bounded by the result, not by the user's history.
# * stats / terms: n, avgdl and each query lexeme's df from the write-maintained statistics
#   (memory/term_stats.py); no row is counted at query time.
# * gen / lexcand: the query's rarest lexemes, whose document frequencies add up to at most
#   :budget (at least the rarest one), generate up to :budget candidates through the GIN
#   index; the remaining (common) lexemes, when there are two or more, generate up to
#   :budget / 2 more from rows holding all of them (GIN intersects their posting lists, so a
#   conjunction of common words is cheap and selective). Common lexemes still score BM25 on
#   every candidate.
# * cand / crows: lexical candidates plus the dense top :cand, fetched once by primary key.
#   BM25 and the exact-phrase list are scored on them only (at most :budget + :cand rows).
_HEAVY_HYBRID = f"""
WITH {_Q}, stats AS MATERIALIZED (
    SELECT greatest(s.n, 1) AS n, greatest(s.total_len::float8 / greatest(s.n, 1), 1) AS avgdl
    FROM {USER_STATS} s WHERE s.app_name = :app AND s.user_id = :user
), terms AS MATERIALIZED (
    SELECT ts.lexeme, ts.df FROM {TERM_STATS} ts CROSS JOIN q
    WHERE ts.app_name = :app AND ts.user_id = :user AND ts.lexeme = ANY(q.lx)
), gen AS MATERIALIZED (
    SELECT string_agg(x.quoted, ' | ') FILTER (WHERE x.rare)::tsquery AS tq,
           CASE WHEN count(*) FILTER (WHERE NOT x.rare) >= 2
                THEN string_agg(x.quoted, ' & ') FILTER (WHERE NOT x.rare)::tsquery END AS tq_all
    FROM (
        SELECT '''' || replace(lexeme, '''', '''''') || '''' AS quoted,
               sum(df) OVER (ORDER BY df, lexeme) <= :budget
               OR row_number() OVER (ORDER BY df, lexeme) = 1 AS rare
        FROM terms WHERE strpos(lexeme, chr(92)) = 0
    ) x
), lexcand AS MATERIALIZED (
    (SELECT t.id FROM {TABLE} t
     WHERE {_SCOPE} AND t.tsv_en @@ (SELECT tq FROM gen)
     LIMIT :budget)
    UNION
    (SELECT t.id FROM {TABLE} t
     WHERE {_SCOPE} AND t.tsv_en @@ (SELECT tq_all FROM gen)
     LIMIT :budget / 2)
), {{vec}}, cand AS MATERIALIZED (
    SELECT id FROM lexcand UNION SELECT id FROM vec
), crows AS MATERIALIZED (
    SELECT t.id, t.tsv, t.tsv_en, t.search_len
    FROM cand c JOIN {TABLE} t ON t.id = c.id
    WHERE {_SCOPE}
), hits AS MATERIALIZED (
    SELECT r.id, r.search_len AS dl, u.lexeme, {_TF} AS tf
    FROM crows r CROSS JOIN q CROSS JOIN LATERAL unnest(r.tsv_en) AS u
    WHERE r.tsv_en @@ q.tq_en AND u.lexeme = ANY(q.lx)
), bm25 AS (
    SELECT h.id, {_BM25} AS score, row_number() OVER (ORDER BY {_BM25} DESC, h.id) AS rank
    FROM hits h JOIN terms d USING (lexeme) CROSS JOIN stats s
    GROUP BY h.id
    ORDER BY rank
    LIMIT :cand
), exact AS (
    SELECT s.id, s.score, row_number() OVER (ORDER BY s.score DESC, s.id) AS rank
    FROM (
        SELECT r.id, ts_rank_cd('{{{{0, 0, 0, 1}}}}', r.tsv, q.tq, 1) AS score
        FROM crows r CROSS JOIN q
        WHERE r.tsv @@ q.tq
    ) s
    WHERE s.score > 0
), {_FUSE_AND_FETCH}
"""

_HEAVY_VECTOR_ONLY = f"""
WITH {{vec}}
SELECT {_VECTOR_COLUMNS}
FROM vec v JOIN {TABLE} t ON t.id = v.id
WHERE t.app_name = :app AND t.user_id = :user
ORDER BY {_CURRENT} DESC, v.rank
LIMIT :lim
"""

_PROFILE_SQL = text(
    f"SELECT (SELECT n FROM {USER_STATS} WHERE app_name = :app AND user_id = :user) AS n,"
    " to_regclass(:ix) IS NOT NULL AS ann"
)

_HNSW_SETTINGS_SQL = text(
    "SELECT set_config('hnsw.ef_search', :ef, true),"
    " set_config('hnsw.iterative_scan', 'relaxed_order', true)"
)


@lru_cache(maxsize=256)
def heavy_sql(app: str, user: str, *, hybrid: bool = True) -> TextClause:
    """The bounded-cost search of one heavy user (the app and user also inline, as literals)."""
    literal_scope = " AND ".join(f"t.{p}" for p in scope_literals(app, user))
    template = _HEAVY_HYBRID if hybrid else _HEAVY_VECTOR_ONLY
    return text(template.format(vec=_heavy_vec(literal_scope))).bindparams(_QVEC_PARAM)


@dataclass(frozen=True)
class SearchFilters:
    """The caller's filters, applied inside every ranked list.

    ``types``: only these memory types (``None``: every type except ``procedure``, which is
    never recalled unless asked for by type); ``tags``: items holding any of them;
    ``as_of``: items whose validity window ``[valid_from, valid_to)`` holds that time.
    """

    types: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    as_of: datetime | None = None

    def params(self) -> dict[str, Any]:
        return {
            "types": list(self.types) if self.types is not None else None,
            "tags": list(self.tags) if self.tags is not None else None,
            "as_of": self.as_of,
        }


@dataclass(frozen=True)
class SearchPlan:
    """The path a search takes. ``rows``: the user's row count (statistics table);
    ``heavy``: bounded lists; ``ann``: the user's partial HNSW index serves the dense list."""

    rows: int
    heavy: bool
    ann: bool


async def plan_search(
    conn: AsyncConnection, app: str, user: str, options: SearchOptions
) -> SearchPlan:
    """One indexed lookup: the user's row count and whether their partial index exists."""
    params = {"app": app, "user": user, "ix": index_name(app, user)}
    row = (await conn.execute(_PROFILE_SQL, params)).one()
    rows = int(row.n or 0)
    return SearchPlan(rows=rows, heavy=rows >= options.heavy_user_rows, ann=bool(row.ann))


async def search_rows(
    conn: AsyncConnection,
    *,
    app: str,
    user: str,
    qvec: list[float],
    terms: list[str],
    limit: int,
    options: SearchOptions,
    plan: SearchPlan | None = None,
    filters: SearchFilters | None = None,
) -> list[Mapping[str, Any]]:
    """Search on ``conn``: the exact path for light users, the bounded one for heavy users.

    Every row carries ``score`` (the fused score, in ranking order) and its parts
    ``dense_score`` (cosine similarity), ``bm25_score`` and ``exact_score`` (``None``: the row
    was not in that list).
    """
    plan = plan or await plan_search(conn, app, user, options)
    params: dict[str, Any] = {
        "app": app,
        "user": user,
        "qvec": qvec,
        "lim": limit,
        "cand": max(options.candidates, limit),
        **(filters or SearchFilters()).params(),
    }
    if terms:
        params.update(text_params(terms, options))
    if not plan.heavy:
        sql = HYBRID_SQL if terms else VECTOR_ONLY_SQL
    else:
        if plan.ann:
            ef = str(min(max(options.ann_ef_search, params["cand"]), 1000))
            await conn.execute(_HNSW_SETTINGS_SQL, {"ef": ef})
        sql = heavy_sql(app, user, hybrid=bool(terms))
        params["budget"] = max(options.lexical_budget, 1)
    return list((await conn.execute(sql, params)).mappings().all())


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
