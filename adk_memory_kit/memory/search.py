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

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from itertools import combinations
from typing import Any

from pgvector.sqlalchemy import VECTOR
from pydantic import Field
from sqlalchemy import TextClause, bindparam, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.core.config import KitConfig
from adk_memory_kit.memory.ann import index_name, scope_literals
from adk_memory_kit.memory.fusion import FusionWeights, fuse
from adk_memory_kit.memory.query import websearch_or_query
from adk_memory_kit.memory.rerank import rerank
from adk_memory_kit.memory.schema import TABLE
from adk_memory_kit.memory.term_stats import TERM_STATS, USER_STATS

MAX_LIMIT = 2**31 - 1
# The relevance floor's similarity for rows without a full-text match (SearchOptions): the 5th
# percentile of the evidence turns' similarity on the LoCoMo tuning split (docs/memory.md).
MIN_SIMILARITY = 0.33
# Read-time re-ordering weights (memory/rerank.py), tuned on the LoCoMo tuning split.
SESSION_WEIGHT = 0.05
NEIGHBOUR_WEIGHT = 0.1


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
    ann_auto_build: bool = Field(
        True,
        description="Build a heavy user's partial HNSW index in the background when a "
        "search finds it missing (memory/ann.py IndexBuilder); False: only maintenance "
        "jobs build indexes (index_heavy_users).",
    )
    session_weight: float = Field(
        SESSION_WEIGHT,
        ge=0,
        allow_inf_nan=False,
        description="Read-time session prior: a row gains this times the summed fused score "
        "of the other top rows of its session (memory/rerank.py; 0: off).",
    )
    neighbour_weight: float = Field(
        NEIGHBOUR_WEIGHT,
        ge=0,
        allow_inf_nan=False,
        description="Read-time neighbour propagation: a row gains this times the best fused "
        "score of its neighbouring turns among the top rows (memory/rerank.py; 0: off).",
    )
    rerank_depth: int = Field(
        50,
        ge=1,
        le=MAX_LIMIT,
        description="How many fused rows the read-time re-orderings consider.",
    )
    relevance_floor: bool = Field(
        True,
        description="Return only relevant rows: a full-text match of the query (the turn or "
        "its indexed context), or a cosine similarity of at least min_similarity. A query "
        "of stop words only returns nothing. False: every ranked row, as before.",
    )
    min_similarity: float = Field(
        MIN_SIMILARITY,
        ge=-1,
        le=1,
        allow_inf_nan=False,
        description="The relevance floor's cosine similarity for a row without a full-text "
        "match (calibrated on the LoCoMo tuning split, docs/locomo.md).",
    )


_LIVE = "(t.expires_at IS NULL OR t.expires_at > now())"
_AS_OF = "CAST(:as_of AS timestamptz)"
# Of a subject's facts valid at ``as_of``, only the newest (valid_from, then id) is: facts
# written out of order may leave an older one's window open (its valid_to is the newest fact
# current when it was written), and a fact that was valid then is the newest one that had
# started. One probe of the subject index per candidate holding a subject.
_NEWER_VALID = f"""SELECT 1 FROM {TABLE} n
        WHERE n.app_name = :app AND n.user_id = :user AND n.subject = t.subject
            AND n.id <> t.id AND n.review_state IS NULL
            AND (n.expires_at IS NULL OR n.expires_at > now())
            AND coalesce(n.valid_from, n.event_time) <= {_AS_OF}
            AND (n.valid_to IS NULL OR n.valid_to > {_AS_OF})
            AND (coalesce(n.valid_from, n.event_time), n.id)
                > (coalesce(t.valid_from, t.event_time), t.id)"""
# The caller's filters, inside every ranked list (issue 16): types (procedures only when asked
# for by type), tags (any of), the validity window at ``as_of``; conflicts left for review
# are never recalled. Without ``as_of``, superseded rows (``valid_to`` passed) are not
# returned (issue 29); ``as_of`` reaches them at a time their window holds.
_FILTERS = f"""(CASE WHEN CAST(:types AS text[]) IS NULL
        THEN t.memory_type IS DISTINCT FROM 'procedure'
        ELSE t.memory_type = ANY(CAST(:types AS text[])) END)
    AND (CAST(:tags AS text[]) IS NULL OR t.tags && CAST(:tags AS text[]))
    AND t.review_state IS NULL
    AND (CAST(:all_versions AS boolean) OR {_AS_OF} IS NOT NULL
        OR t.valid_to IS NULL OR t.valid_to > now())
    AND ({_AS_OF} IS NULL OR (coalesce(t.valid_from, t.event_time) <= {_AS_OF}
        AND (t.valid_to IS NULL OR t.valid_to > {_AS_OF})
        AND (t.subject IS NULL OR NOT EXISTS ({_NEWER_VALID}))))"""
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
_TF = """(cardinality(array_positions(u.weights, 'A'))
            + :ctxw * (cardinality(u.weights) - cardinality(array_positions(u.weights, 'A'))))"""


def _query_lexemes(tsv: str) -> str:
    """``tsv`` reduced to the query's lexemes (positions and weights kept), for ``unnest``.

    ``ts_delete`` of the lexemes that are *not* the query's (the tsvector without the query's
    lexemes, as an array) leaves only the query's: the same entries as filtering a full
    ``unnest(tsv)``, without building the positions and weights of every other lexeme (about
    half the cost of BM25 per candidate)."""
    return f"ts_delete({tsv}, tsvector_to_array(ts_delete({tsv}, q.lx)))"


def _hits(rows: str, scope: str) -> str:
    """The ``hits`` list: (id, dl, lexeme, tf) of every query lexeme in the rows of ``rows``
    (a table alias ``t``) that match the English query, under the condition ``scope``."""
    return f"""hits AS MATERIALIZED (
    SELECT t.id, t.search_len AS dl, u.lexeme, {_TF} AS tf
    FROM {rows} t CROSS JOIN q CROSS JOIN LATERAL unnest({_query_lexemes("t.tsv_en")}) AS u
    WHERE {scope} AND t.tsv_en @@ q.tq_en
)"""


# (float8 throughout: numeric ln() costs ~2 us a call, a tenth of a candidate's whole budget)
_BM25 = """sum(ln(1 + (s.n - d.df + 0.5::float8) / (d.df + 0.5::float8))
        * h.tf * (:k1 + 1) / (h.tf + :k1 * (1 - :b + :b * h.dl / s.avgdl)))"""

# Fusion and the final fetch of the light path (a heavy user's lists are fused in the process,
# memory/fusion.py, with the same ranking). Each list carries its raw score (bm25,
# exact = ts_rank_cd); dense (cosine similarity) is computed for the returned rows.
# A row's ordering keys besides its fused score: current first, the author bonus, importance,
# newest first (then id). The heavy statements return them with each listed row, so the fusion
# of a heavy user ranks its few hundred fused rows without reading them again.
_ORDER_KEYS = f"""{_CURRENT} AS cur, {_AUTHOR_BONUS} AS bonus,
       coalesce(t.importance, 0)::float8 AS imp, t.event_time AS et"""
_TABLE_ORDER_KEYS = f"""(SELECT t.id, {_ORDER_KEYS} FROM {TABLE} t
    WHERE t.app_name = :app AND t.user_id = :user)"""


# The columns of a returned row (besides its scores).
_ITEM_COLUMNS = """t.id, t.session_id, t.event_id, t.kind, t.author, t.role, t.text, t.event_time,
       t.ingested_at, t.subject, t.valid_to, t.expires_at, t.importance, t.metadata,
       t.memory_type, t.tags, t.valid_from, t.recorded_at, t.last_accessed_at,
       t.access_count, t.last_confirmed_at, t.pinned, t.superseded_reason, t.superseded_by,
       t.search_text, t.context_text"""


# The relevance floor: a row in the BM25 or exact list matched the query's words; a row only
# in the dense list must be similar enough (:floor NULL: no floor).
_RELEVANT = """(CAST(:floor AS float8) IS NULL OR f.bm25 IS NOT NULL OR f.exact IS NOT NULL
           OR f.sim >= CAST(:floor AS float8))"""


# Fusion of ``vec``, ``bm25`` and ``exact`` by weighted RRF, ranked with the user's ordering
# keys, and the top :lim rows fetched.
_FUSE_AND_FETCH = f"""fused AS (
    SELECT id, sum(rrf) AS score, max(bm25) AS bm25, max(exact) AS exact, max(sim) AS sim
    FROM (
        SELECT id, :wv / (:rrf_k + rank) AS rrf, NULL::float8 AS bm25, NULL::float8 AS exact,
               sim
        FROM vec
        UNION ALL
        SELECT id, :wt / (:rrf_k + rank), score, NULL, NULL FROM bm25
        UNION ALL
        SELECT id, :we / (:rrf_k + rank), NULL, score, NULL FROM exact
    ) u GROUP BY id
), top AS (
    SELECT f.id, f.score + o.bonus AS score, f.bm25, f.exact,
           row_number() OVER (ORDER BY o.cur DESC, f.score + o.bonus DESC, o.imp DESC,
                              o.et DESC, f.id) AS pos
    FROM fused f JOIN {_TABLE_ORDER_KEYS} o ON o.id = f.id
    WHERE {_RELEVANT}
    ORDER BY pos
    LIMIT :lim
)
SELECT {_ITEM_COLUMNS},
       p.score, 1 - (t.embedding <=> {_QVEC}) AS dense_score, p.bm25 AS bm25_score,
       p.exact AS exact_score
FROM top p JOIN {TABLE} t ON t.id = p.id
WHERE t.app_name = :app AND t.user_id = :user
ORDER BY p.pos"""


# Light users: exact lists over all of the user's rows (recall 1.0). Document frequencies are
# read off the rows matching the query, in the statement: cost linear in the user's rows.
HYBRID_SQL = text(
    f"""
WITH {_Q}, vec AS (
    SELECT t.id, row_number() OVER (ORDER BY t.embedding <=> {_QVEC}, t.id) AS rank,
           1 - (t.embedding <=> {_QVEC}) AS sim
    FROM {TABLE} t
    WHERE {_SCOPE}
    ORDER BY t.embedding <=> {_QVEC}, t.id
    LIMIT :cand
), {_hits(TABLE, _SCOPE)}, stats AS MATERIALIZED (
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

_VECTOR_COLUMNS = f"""{_ITEM_COLUMNS},
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
    SELECT v.id, row_number() OVER (ORDER BY v.dist, v.id) AS rank, 1 - v.dist AS sim FROM (
        SELECT t.id, t.embedding <=> {_QVEC} AS dist
        FROM {TABLE} t
        WHERE {_SCOPE} AND {literal_scope}
        ORDER BY t.embedding <=> {_QVEC}
        LIMIT :cand
    ) v
)"""


# Heavy users: every list is bounded by the result, not by the user's history, and the work is
# split into three statements so the lexical one (which needs no query vector) can run on a
# second connection while the query is embedded and the dense list searched
# (:func:`search_on_engine`); :func:`search_rows` runs the same three on one connection.
# * stats / terms: n, avgdl and each query lexeme's df from the write-maintained statistics
#   (memory/term_stats.py); no row is counted at query time.
# * lexical (:func:`heavy_lexical_sql`): candidates are every row holding one of the query's
#   rarest lexemes (their dfs adding up to at most :budget) and up to :budget / 2 rows read in
#   coverage tiers of the common ones (:func:`candidate_queries`), their tsvectors read in the
#   same heap visit; BM25 is scored on them, the exact phrase on the BM25 top :cand; each row
#   comes back with its ordering keys (:data:`_ORDER_KEYS`).
# * dense (:func:`heavy_sql`): the user's top :cand by HNSW, each with its BM25 and exact-phrase
#   scores and ordering keys.
# * fusion, in the process (memory/fusion.py, the same ranking as the light path's SQL
#   fusion): both statements' lists merged (one score per id), each re-ranked and cut to
#   :cand, fused by RRF and ranked with the ordering keys they carry; then only the returned
#   rows are fetched (:data:`HEAVY_FETCH_SQL`). Tested: one connection and two give the same
#   rows, and on small data the heavy path returns what the light path does.
_HEAVY_STATS = f"""stats AS MATERIALIZED (
    SELECT greatest(s.n, 1) AS n, greatest(s.total_len::float8 / greatest(s.n, 1), 1) AS avgdl
    FROM {USER_STATS} s WHERE s.app_name = :app AND s.user_id = :user
), terms AS MATERIALIZED (
    SELECT ts.lexeme, ts.df FROM {TERM_STATS} ts CROSS JOIN q
    WHERE ts.app_name = :app AND ts.user_id = :user AND ts.lexeme = ANY(q.lx)
)"""

_BM25_OF_HITS = f"""SELECT h.id, {_BM25} AS score
        FROM hits h JOIN terms d USING (lexeme) CROSS JOIN stats s
        GROUP BY h.id"""


def _exact_of(rows: str) -> str:
    """Exact-phrase scores (``ts_rank_cd`` over the unstemmed turn) of the rows of ``rows``."""
    return f"""SELECT r.id, ts_rank_cd('{{0, 0, 0, 1}}', r.tsv, q.tq, 1) AS score
        FROM {rows} r CROSS JOIN q
        WHERE r.tsv @@ q.tq"""


def _ranked(name: str, scores: str, where: str = "true") -> str:
    """The ranked list ``name`` (id, score, rank): the top :cand of ``scores``."""
    return f"""{name} AS (
    SELECT x.id, x.score, row_number() OVER (ORDER BY x.score DESC, x.id) AS rank
    FROM ({scores}) x
    WHERE {where}
    ORDER BY rank
    LIMIT :cand
)"""


# The query's lexemes and this user's document frequencies (write-maintained, one index probe
# per lexeme): the input of :func:`candidate_queries`.
_LEXEME_DF_SQL = text(
    f"""
SELECT ts.lexeme, ts.df FROM {TERM_STATS} ts
WHERE ts.app_name = :app AND ts.user_id = :user
  AND ts.lexeme = ANY(ARRAY(SELECT lexeme FROM unnest(to_tsvector('english', :qtext))))
"""
)

# At most this many common lexemes (the rarest of them) form the coverage tiers: the tier
# "at least m of k" is an OR of C(k, m) conjunctions, each evaluated by the GIN index over the
# union of their posting lists, so k = 4 keeps a tier to 6 conjunctions (k = 6 gave the same
# overlap with the exact ranking and cost up to 60 ms a tier).
TIER_LEXEMES = 4


def _tsquery_literal(lexeme: str) -> str:
    return "'" + lexeme.replace("'", "''") + "'"


def _at_least(lexemes: list[str], m: int) -> str:
    """A tsquery text matching rows that hold at least ``m`` of ``lexemes``."""
    return " | ".join(
        "(" + " & ".join(_tsquery_literal(x) for x in combo) + ")"
        for combo in combinations(lexemes, m)
    )


@dataclass(frozen=True)
class CandidateQueries:
    """How a heavy user's lexical candidates are generated (tsquery texts).

    ``rare``: the rarest lexemes whose document frequencies add up to at most the budget, OR-ed:
    every row holding one is read (``None``: even the rarest lexeme is more frequent).
    ``tiers``: the other (common) lexemes by coverage, best first: rows holding all of the
    :data:`TIER_LEXEMES` rarest common lexemes, then at least one fewer, and so on down to
    one. Rows are read tier by tier until the common budget is spent (a row read in one tier
    comes again in the next, where the cap counts it again; the candidates hold it once), so
    a row matching more of the query is never dropped for one matching less: only within the
    last tier read does the table's order decide.
    """

    rare: str | None
    tiers: tuple[str, ...]


def candidate_queries(dfs: Mapping[str, int], budget: int) -> CandidateQueries:
    """Split the query's lexemes (with this user's document frequencies) into the rare set and
    the coverage tiers of the common ones. Lexemes holding a backslash are left to BM25."""
    usable = sorted((df, lexeme) for lexeme, df in dfs.items() if "\\" not in lexeme)
    rare: list[str] = []
    common: list[str] = []
    total = 0
    for df, lexeme in usable:
        if not common and total + df <= budget:
            rare.append(lexeme)
            total += df
        else:
            common.append(lexeme)
    top = common[:TIER_LEXEMES]
    tiers = tuple(_at_least(top, m) for m in range(len(top), 0, -1))
    return CandidateQueries(rare=" | ".join(_tsquery_literal(x) for x in rare) or None, tiers=tiers)


_CAND_COLUMNS = f"t.id, t.tsv, t.tsv_en, t.search_len, {_ORDER_KEYS}"
# The exact-phrase list of a heavy user ranks the candidates of the BM25 list (and, in the
# dense statement, the dense list): ts_rank_cd costs ~12 us a row, and a row matching the
# query's unstemmed words matches its stems too, so it is in the BM25 list when it matters.
_BM25_TOP_ROWS = "(SELECT l.id, l.tsv FROM lexcand l JOIN bm25 b ON b.id = l.id)"


@lru_cache(maxsize=32)
def heavy_lexical_sql(rare: bool, tiers: int) -> TextClause:
    """The lexical lists of a heavy user: (list, id, score, ordering keys) rows, list 'bm25'
    or 'exact', each list best first.

    Candidates: every row matching ``:tq_rare`` (when ``rare``; at most :budget), then rows of
    the coverage tiers ``:tier0`` .. in order, at most :budget / 2 of them (a later tier's
    index scan does not run once the budget is spent). The candidates' tsvectors are read in
    the same heap visit; BM25 and the exact phrase are scored on them only."""
    branches = []
    if rare:
        branches.append(
            f"(SELECT {_CAND_COLUMNS} FROM {TABLE} t"
            f" WHERE {_SCOPE} AND t.tsv_en @@ CAST(:tq_rare AS tsquery) LIMIT :budget)"
        )
    if tiers:
        tier_rows = "\n            UNION ALL\n            ".join(
            f"(SELECT {_CAND_COLUMNS} FROM {TABLE} t"
            f" WHERE {_SCOPE} AND t.tsv_en @@ CAST(:tier{i} AS tsquery))"
            for i in range(tiers)
        )
        branches.append(
            f"(SELECT * FROM (\n            {tier_rows}\n        ) x LIMIT :budget / 2)"
        )
    if not branches:
        branches.append(f"(SELECT {_CAND_COLUMNS} FROM {TABLE} t WHERE false)")
    union = "\n        UNION ALL\n        ".join(branches)
    return text(
        f"""
WITH {_Q}, {_HEAVY_STATS}, lexcand AS MATERIALIZED (
    SELECT DISTINCT ON (c.id) c.* FROM (
        {union}
    ) c
), {_hits("lexcand", "true")},
{_ranked("bm25", _BM25_OF_HITS)},
{_ranked("exact", _exact_of(_BM25_TOP_ROWS), "x.score > 0")}
SELECT 'bm25' AS list, b.id, b.score, l.cur, l.bonus, l.imp, l.et
FROM bm25 b JOIN lexcand l ON l.id = b.id
UNION ALL
SELECT 'exact', e.id, e.score, l.cur, l.bonus, l.imp, l.et
FROM exact e JOIN lexcand l ON l.id = e.id
ORDER BY 1, 3 DESC, 2
"""
    )


# The rows a heavy user's search returns, by id (the fusion ran in the process, memory/fusion.py).
HEAVY_FETCH_SQL = text(
    f"""
SELECT {_ITEM_COLUMNS}, 1 - (t.embedding <=> {_QVEC}) AS dense_score
FROM {TABLE} t
WHERE t.app_name = :app AND t.user_id = :user AND t.id = ANY(CAST(:ids AS uuid[]))
"""
).bindparams(_QVEC_PARAM)


def _dense_statement(literal_scope: str) -> str:
    """The dense list of a heavy user with each row's BM25 and exact-phrase scores."""
    return f"""
WITH {_Q}, {_HEAVY_STATS}, {_heavy_vec(literal_scope)}, drows AS MATERIALIZED (
    SELECT t.id, t.tsv, t.tsv_en, t.search_len, {_ORDER_KEYS}
    FROM vec v JOIN {TABLE} t ON t.id = v.id
    WHERE {_SCOPE}
), {_hits("drows", "true")}, dbm25 AS ({_BM25_OF_HITS}), dexact AS ({_exact_of("drows")})
SELECT v.id, b.score AS bm25, e.score AS exact, v.sim, d.cur, d.bonus, d.imp, d.et
FROM vec v JOIN drows d ON d.id = v.id
    LEFT JOIN dbm25 b ON b.id = v.id LEFT JOIN dexact e ON e.id = v.id
ORDER BY v.rank
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
    """The dense statement of one heavy user, with the app and user also inline as literals
    (``hybrid``: ids with their BM25 and exact-phrase scores and ordering keys, for the fusion;
    otherwise the vector-only search)."""
    literal_scope = " AND ".join(f"t.{p}" for p in scope_literals(app, user))
    if hybrid:
        return text(_dense_statement(literal_scope)).bindparams(_QVEC_PARAM)
    return text(_HEAVY_VECTOR_ONLY.format(vec=_heavy_vec(literal_scope))).bindparams(_QVEC_PARAM)


@dataclass(frozen=True)
class SearchFilters:
    """The caller's filters, applied inside every ranked list.

    ``types``: only these memory types (``None``: every type except ``procedure``, which is
    never recalled unless asked for by type); ``tags``: items holding any of them;
    ``as_of``: items whose validity window ``[valid_from, valid_to)`` holds that time;
    ``include_superseded``: superseded items too (an operator's view of the history).
    """

    types: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    as_of: datetime | None = None
    include_superseded: bool = False

    def params(self) -> dict[str, Any]:
        return {
            "types": list(self.types) if self.types is not None else None,
            "tags": list(self.tags) if self.tags is not None else None,
            "as_of": self.as_of,
            "all_versions": self.include_superseded,
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


def search_params(
    app: str,
    user: str,
    terms: list[str],
    limit: int,
    options: SearchOptions,
    filters: SearchFilters | None = None,
) -> dict[str, Any]:
    """The bound parameters every search statement shares (all but the query vector)."""
    params: dict[str, Any] = {
        "app": app,
        "user": user,
        "lim": limit,
        "cand": max(options.candidates, limit),
        "budget": max(options.lexical_budget, 1),
        "floor": options.min_similarity if options.relevance_floor else None,
        **(filters or SearchFilters()).params(),
    }
    if terms:
        params.update(text_params(terms, options))
    return params


async def _rows(conn: AsyncConnection, sql: TextClause, params: dict[str, Any]) -> list[Any]:
    return list((await conn.execute(sql, params)).mappings().all())


async def lexical_lists(conn: AsyncConnection, params: dict[str, Any]) -> list[Any]:
    """A heavy user's BM25 and exact-phrase lists (no query vector needed): one probe of the
    query lexemes' document frequencies, then one statement."""
    found = await conn.execute(_LEXEME_DF_SQL, params)
    plan = candidate_queries({r.lexeme: int(r.df) for r in found}, params["budget"])
    tiers = {f"tier{i}": tier for i, tier in enumerate(plan.tiers)}
    sql = heavy_lexical_sql(plan.rare is not None, len(plan.tiers))
    return await _rows(conn, sql, {**params, "tq_rare": plan.rare, **tiers})


async def _dense_list(
    conn: AsyncConnection, plan: SearchPlan, params: dict[str, Any], options: SearchOptions
) -> list[Any]:
    """A heavy user's dense top :cand (HNSW when the user has an index), best first, each
    with its BM25 and exact-phrase scores."""
    await _set_ef_search(conn, plan, params, options)
    return await _rows(conn, heavy_sql(params["app"], params["user"]), params)


async def _set_ef_search(
    conn: AsyncConnection, plan: SearchPlan, params: dict[str, Any], options: SearchOptions
) -> None:
    if plan.ann:
        ef = str(min(max(options.ann_ef_search, params["cand"]), 1000))
        await conn.execute(_HNSW_SETTINGS_SQL, {"ef": ef})


async def _fuse(
    conn: AsyncConnection, params: dict[str, Any], lexical: list[Any], dense: list[Any]
) -> list[Mapping[str, Any]]:
    """Fuse a heavy user's lists (memory/fusion.py) and fetch the returned rows, in order."""
    top = fuse(
        dense=dense,
        lexical=lexical,
        weights=FusionWeights(
            rrf_k=params["rrf_k"], vector=params["wv"], text=params["wt"], exact=params["we"]
        ),
        cand=params["cand"],
        limit=params["lim"],
        min_similarity=params["floor"],
    )
    if not top:
        return []
    found = {
        r["id"]: r
        for r in await _rows(conn, HEAVY_FETCH_SQL, {**params, "ids": [f.id for f in top]})
    }
    return [
        {**found[f.id], "score": f.score, "bm25_score": f.bm25, "exact_score": f.exact}
        for f in top
        if f.id in found  # a row deleted since the lists were read is not returned
    ]


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
    was not in that list). :func:`search_on_engine` returns the same rows faster for heavy
    users; this runs every statement on the one connection. The read-time re-orderings
    apply as there (memory/rerank.py).
    """
    if not (options.session_weight > 0 or options.neighbour_weight > 0):
        return await _fused_rows(conn, app, user, qvec, terms, limit, options, plan, filters)
    rows = await _fused_rows(
        conn, app, user, qvec, terms, max(limit, options.rerank_depth), options, plan, filters
    )
    return rerank(
        rows,
        session_weight=options.session_weight,
        neighbour_weight=options.neighbour_weight,
        limit=limit,
        as_of=filters.as_of if filters else None,
    )


async def _fused_rows(
    conn: AsyncConnection,
    app: str,
    user: str,
    qvec: list[float],
    terms: list[str],
    limit: int,
    options: SearchOptions,
    plan: SearchPlan | None,
    filters: SearchFilters | None,
) -> list[Mapping[str, Any]]:
    """The fused rows of :func:`search_rows`, before any re-ordering."""
    if not terms and options.relevance_floor:
        return []  # stop words only: nothing is relevant
    plan = plan or await plan_search(conn, app, user, options)
    params = {**search_params(app, user, terms, limit, options, filters), "qvec": qvec}
    if not plan.heavy:
        return await _rows(conn, HYBRID_SQL if terms else VECTOR_ONLY_SQL, params)
    if not terms:
        await _set_ef_search(conn, plan, params, options)
        return await _rows(conn, heavy_sql(app, user, hybrid=False), params)
    lexical = await lexical_lists(conn, params)
    dense = await _dense_list(conn, plan, params, options)
    return await _fuse(conn, params, lexical, dense)


async def _read_plan(
    engine: AsyncEngine, app: str, user: str, options: SearchOptions
) -> SearchPlan:
    """The user's plan; read once more on a fresh connection if the first one was lost.

    The plan is read while the query is embedded, so a server that dies meanwhile can take
    the connection with it mid-statement; the read has no side effects, and the pool
    reconnects on the second try.
    """
    try:
        async with engine.connect() as conn:
            return await plan_search(conn, app, user, options)
    except DBAPIError as exc:
        if not exc.connection_invalidated:
            raise
    async with engine.connect() as conn:
        return await plan_search(conn, app, user, options)


async def search_on_engine(
    engine: AsyncEngine,
    *,
    app: str,
    user: str,
    embed_query: Callable[[], Awaitable[list[float]]],
    terms: list[str],
    limit: int,
    options: SearchOptions,
    filters: SearchFilters | None = None,
    on_plan: Callable[[SearchPlan], None] | None = None,
    present_tense: bool = False,
) -> list[Mapping[str, Any]]:
    """The rows :func:`search_rows` returns, with ``embed_query`` called for the query vector.

    ``present_tense`` (the question asks about now, :func:`~.rerank.asks_about_now`): the
    newest of the rows answering it about equally well leads them (memory/rerank.py).

    ``on_plan`` is called with the user's plan as soon as it is read (the service starts a
    missing index's background build from it). With a session or neighbour weight, the top
    ``rerank_depth`` fused rows are re-ordered (memory/rerank.py) before the cut to ``limit``.

    The query is embedded while the user's plan is read; for a heavy user with query terms
    the lexical lists also run then, on a second pooled connection, so the search takes about
    the longer of the two sides rather than their sum. The connection that runs the statements
    needing the vector is taken after the embedding, so a database that went away meanwhile
    is reconnected by the pool. If either side fails, the other is cancelled and awaited
    before the error propagates; no connection is left busy.
    """
    if not terms and options.relevance_floor:
        return []  # stop words only: nothing is relevant (and nothing to embed)
    reorder = options.session_weight > 0 or options.neighbour_weight > 0 or present_tense
    if reorder:
        rows = await _search_on_engine(
            engine,
            app=app,
            user=user,
            embed_query=embed_query,
            terms=terms,
            limit=max(limit, options.rerank_depth),
            options=options,
            filters=filters,
            on_plan=on_plan,
        )
        return rerank(
            rows,
            session_weight=options.session_weight,
            neighbour_weight=options.neighbour_weight,
            limit=limit,
            as_of=filters.as_of if filters else None,
            present_tense=present_tense and not (filters and filters.as_of),
            floor=options.min_similarity if options.relevance_floor else -1.0,
        )
    return await _search_on_engine(
        engine,
        app=app,
        user=user,
        embed_query=embed_query,
        terms=terms,
        limit=limit,
        options=options,
        filters=filters,
        on_plan=on_plan,
    )


async def _search_on_engine(
    engine: AsyncEngine,
    *,
    app: str,
    user: str,
    embed_query: Callable[[], Awaitable[list[float]]],
    terms: list[str],
    limit: int,
    options: SearchOptions,
    filters: SearchFilters | None,
    on_plan: Callable[[SearchPlan], None] | None,
) -> list[Mapping[str, Any]]:
    embedding = asyncio.ensure_future(embed_query())
    lexical_task: asyncio.Future[list[Any]] | None = None
    try:
        plan = await _read_plan(engine, app, user, options)
        if on_plan is not None:
            on_plan(plan)
        params = search_params(app, user, terms, limit, options, filters)
        if plan.heavy and terms:
            lexical_task = asyncio.ensure_future(_lexical_on_own_connection(engine, params))
        params["qvec"] = await embedding
        async with engine.connect() as conn:
            if lexical_task is None:
                return await _fused_rows(
                    conn, app, user, params["qvec"], terms, limit, options, plan, filters
                )
            dense = await _dense_list(conn, plan, params, options)
            lexical = await lexical_task
            return await _fuse(conn, params, lexical, dense)
    finally:
        started = [t for t in (embedding, lexical_task) if t is not None]
        for task in started:
            if not task.done():
                task.cancel()
        await asyncio.gather(*started, return_exceptions=True)


async def _lexical_on_own_connection(engine: AsyncEngine, params: dict[str, Any]) -> list[Any]:
    async with engine.connect() as conn:
        return await lexical_lists(conn, params)


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
