"""The SQL of hybrid search: every statement that reads ranked lists, and the final fetch.

Statements return *lists*, never a ranking: each listed row carries its list's raw score and
the row's ordering keys, and one Python function (memory/fusion.py) fuses and ranks them for
every user. Three lists, each filtered on (app_name, user_id) inside its own WHERE clause, so
no list ever holds another user's rows:

* ``vec``: cosine distance of the query embedding (an exact scan of a light user's rows; a
  heavy user's own partial HNSW index, memory/ann.py, with an exact scan of their few rows
  not yet folded into it).
* ``bm25``: Okapi BM25 over the English-stemmed ``tsv_en`` (the turn at weight A, its
  neighbouring turns at weight D counted ``context_weight`` times). Document frequencies and
  the collection size are the user's own, so a word that is everywhere in *this* user's
  memory (their name, say) weighs little.
* ``exact``: ``ts_rank_cd`` over the unstemmed ``simple`` tsvector of the turn itself (not its
  neighbours), where an identifier such as ``A-4521`` is an exact phrase: it ranks an entry
  holding ``A-4521`` above one holding ``A-4512`` (or ``B-4521``), which stemming alone cannot
  tell apart.

Light users (:data:`LIGHT_LISTS_SQL`): every list exact over the user's rows (cost linear in
them, and in nothing else: :data:`LIGHT_SETTINGS_SQL` keeps the plan on the user's own rows
whatever other users hold). Heavy users: the bounded statements below (:func:`heavy_lexical_sql`,
:func:`heavy_sql`).
"""

from __future__ import annotations

from functools import lru_cache

from pgvector.sqlalchemy import VECTOR
from sqlalchemy import TextClause, bindparam, text

from adk_memory_kit.memory import entities as entity_table
from adk_memory_kit.memory.ann_names import scope_literals
from adk_memory_kit.memory.tables import TABLE
from adk_memory_kit.memory.term_stats import TERM_STATS, USER_STATS

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
# issue 47: the memory scopes read under this owner (``user``, the calling agent's
# ``agent:<name>``; a shared owner's one scope), memory/scoped_search.py
_SCOPES = "t.scope = ANY(CAST(:scopes AS text[]))"
_SCOPE = f"t.app_name = :app AND t.user_id = :user AND {_SCOPES} AND {_LIVE} AND {_FILTERS}"
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


# A row's ordering keys besides its fused score (memory/fusion.py): current first, the author
# bonus, importance, newest first (then id). Every list row carries them, so the fusion ranks
# its few hundred rows without reading them again.
_ORDER_KEYS = f"""{_CURRENT} AS cur, {_AUTHOR_BONUS} AS bonus,
       coalesce(t.importance, 0)::float8 AS imp, t.event_time AS et"""


# The columns of a returned row (besides its scores).
_ITEM_COLUMNS = """t.id, t.session_id, t.event_id, t.kind, t.author, t.role, t.text, t.event_time,
       t.ingested_at, t.subject, t.valid_to, t.expires_at, t.importance, t.metadata,
       t.memory_type, t.tags, t.valid_from, t.recorded_at, t.last_accessed_at,
       t.access_count, t.last_confirmed_at, t.pinned, t.superseded_reason, t.superseded_by,
       t.search_text, t.context_text, t.scope, t.entities"""


# Light users: exact lists over all of the user's rows (recall 1.0). Document frequencies are
# read off the rows matching the query, in the statement: cost linear in the user's rows.
# Rows: (list, id, score, sim, bm25, exact, ordering keys); ``list`` is 'vec' (score = sim,
# the cosine similarity; bm25 and exact: the row's score in those lists, NULL if not in
# them), or 'bm25' / 'exact' for a row of that list that is not in the vec list (a row in
# several lists comes once if it is in the vec list: fewer rows for the fusion to read).
# The light statements read only the user's rows, whatever the planner's statistics say
# (issue 49). Left to itself the planner matched the full-text lists through the shared GIN
# indexes, whose scan returns every matching row of *every* user before the user filter
# (60k rows and ~80 ms next to a 100k-row neighbour, against 300 of the user's own), and just
# after a neighbour's bulk load, before autovacuum analysed it, it chose sequential scans of
# the whole table. With bitmap and sequential scans off for the statement's transaction, the
# only path left is the btree on (app_name, user_id, ...): the user's rows, each full-text
# match a filter on them (a light user has fewer than ``heavy_user_rows`` rows).
LIGHT_SETTINGS_SQL = text(
    "SELECT set_config('enable_bitmapscan', 'off', true), set_config('enable_seqscan', 'off', true)"
)

LIGHT_LISTS_SQL = text(
    f"""
WITH {_Q}, vec AS (
    SELECT t.id, 1 - (t.embedding <=> {_QVEC}) AS sim,
           row_number() OVER (ORDER BY t.embedding <=> {_QVEC}, t.id) AS rank
    FROM {TABLE} t
    WHERE {_SCOPE}
    ORDER BY rank
    LIMIT :cand
), {_hits(TABLE, _SCOPE)}, stats AS MATERIALIZED (
    SELECT count(*) AS n, greatest(avg(t.search_len), 1) AS avgdl
    FROM {TABLE} t
    WHERE {_SCOPE}
), df AS MATERIALIZED (
    SELECT lexeme, count(*) AS df FROM hits GROUP BY lexeme
), bm25 AS (
    SELECT h.id, {_BM25} AS score
    FROM hits h JOIN df d USING (lexeme) CROSS JOIN stats s
    GROUP BY h.id
    ORDER BY score DESC, h.id
    LIMIT :cand
), exact AS (
    SELECT s.id, s.score FROM (
        SELECT t.id, ts_rank_cd('{{0, 0, 0, 1}}', t.tsv, q.tq, 1) AS score
        FROM {TABLE} t CROSS JOIN q
        WHERE {_SCOPE} AND t.tsv @@ q.tq
        ORDER BY score DESC, t.id
        LIMIT :cand
    ) s
    WHERE s.score > 0
), lists AS (
    SELECT 'vec' AS list, v.id, v.sim AS score, v.sim, v.rank, b.score AS bm25, e.score AS exact
    FROM vec v LEFT JOIN bm25 b ON b.id = v.id LEFT JOIN exact e ON e.id = v.id
    UNION ALL
    SELECT 'bm25', id, score, NULL, 0, NULL, NULL FROM bm25 WHERE id NOT IN (SELECT id FROM vec)
    UNION ALL
    SELECT 'exact', id, score, NULL, 0, NULL, NULL FROM exact WHERE id NOT IN (SELECT id FROM vec)
)
SELECT l.list, l.id, l.score, l.sim, l.bm25, l.exact, {_ORDER_KEYS}
FROM lists l JOIN {TABLE} t ON t.id = l.id
WHERE t.app_name = :app AND t.user_id = :user
ORDER BY l.list, l.rank
"""
).bindparams(_QVEC_PARAM)

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


def _nearest(columns: str, literal_scope: str) -> str:
    """The user's :cand rows nearest the query (each with ``columns``, which name its distance
    ``dist``), nearest first: the indexed rows through the user's partial HNSW index (its
    predicate, memory/ann.py, is the literal scope and ``NOT ann_pending``: the literals let
    the planner use it), the pending rows (issue 45: written since, not yet folded into the
    index; few, bounded) by an exact scan through their partial btree, merged by distance.
    Without an index both are exact scans, of all of the user's rows together."""
    return f"""SELECT * FROM (
            (SELECT {columns}
            FROM {TABLE} t
            WHERE {_SCOPE} AND {literal_scope} AND NOT t.ann_pending
            ORDER BY t.embedding <=> {_QVEC}
            LIMIT :cand)
            UNION ALL
            (SELECT {columns}
            FROM {TABLE} t
            WHERE {_SCOPE} AND {literal_scope} AND t.ann_pending
            ORDER BY t.embedding <=> {_QVEC}
            LIMIT :cand)
        ) n
        ORDER BY n.dist, n.id
        LIMIT :cand"""


def _heavy_vec(literal_scope: str) -> str:
    """The dense list of a heavy user. ``literal_scope`` names the user as SQL literals, so
    the planner can use the user's partial HNSW index (memory/ann.py); without one the list
    is an exact scan of the user's rows."""
    nearest = _nearest(f"t.id, t.embedding <=> {_QVEC} AS dist", literal_scope)
    return f"""vec AS MATERIALIZED (
    SELECT v.id, row_number() OVER (ORDER BY v.dist, v.id) AS rank, 1 - v.dist AS sim FROM (
        {nearest}
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
#   rows are fetched (:data:`FETCH_SQL`). Tested: one connection and two give the same
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


# The query's lexemes, this user's document frequencies and row count (write-maintained, one
# index probe per lexeme): the input of memory/lexical.py's ``candidate_queries``.
LEXEME_DF_SQL = text(
    f"""
SELECT ts.lexeme, ts.df,
    COALESCE((SELECT s.n FROM {USER_STATS} s WHERE s.app_name = :app AND s.user_id = :user), 0)
        AS n
FROM {TERM_STATS} ts
WHERE ts.app_name = :app AND ts.user_id = :user
  AND ts.lexeme = ANY(ARRAY(SELECT lexeme FROM unnest(to_tsvector('english', :qtext))))
"""
)


_CAND_COLUMNS = "t.id, t.tsv_en, t.search_len"


def _coverage(terms: int) -> str:
    """A candidate's coverage score (memory/lexical.py ``coverage_terms``): per query lexeme,
    :cw<i>t if the turn holds it, else :cw<i>c if a neighbouring turn does."""
    parts = [
        f"CASE WHEN c.tsv_en @@ CAST(:cq{i}t AS tsquery) THEN :cw{i}t"
        f" WHEN c.tsv_en @@ CAST(:cq{i}c AS tsquery) THEN :cw{i}c ELSE 0 END"
        for i in range(terms)
    ]
    return " + ".join(parts) or "0::float8"  # an expression: a bare 0 is a column position


@lru_cache(maxsize=128)
def heavy_lexical_sql(rare: bool, tiers: int, terms: int) -> TextClause:
    """The lexical lists of a heavy user: (list, id, score, ordering keys) rows, list 'bm25'
    or 'exact', each list best first.

    Candidates: every row matching ``:tq_rare`` (when ``rare``; at most :budget), then rows of
    the coverage tiers ``:tier0`` .. in order, at most :budget / 2 of them (a later tier's
    index scan does not run once the budget is spent), each read with its ``tsv_en`` in the
    same heap visit. They are pre-ranked by their coverage score (``terms`` query lexemes,
    :func:`_coverage`: a few tsvector lookups a row) and only the best :rescore are scored by
    BM25; the exact phrase is scored on the BM25 top :cand, whose unstemmed tsvectors and
    ordering keys are read by primary key."""
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
), rescored AS MATERIALIZED (
    SELECT c.* FROM lexcand c
    ORDER BY {_coverage(terms)} DESC, c.id
    LIMIT :rescore
), {_hits("rescored", "true")},
{_ranked("bm25", _BM25_OF_HITS)},
scored AS MATERIALIZED (
    SELECT b.id, b.score, t.tsv, {_ORDER_KEYS}
    FROM bm25 b JOIN {TABLE} t ON t.id = b.id
    WHERE t.app_name = :app AND t.user_id = :user
),
{_ranked("exact", _exact_of("scored"), "x.score > 0")}
SELECT 'bm25' AS list, s.id, s.score, s.cur, s.bonus, s.imp, s.et
FROM scored s
UNION ALL
SELECT 'exact', e.id, e.score, s.cur, s.bonus, s.imp, s.et
FROM exact e JOIN scored s ON s.id = e.id
ORDER BY 1, 3 DESC, 2
"""
    )


# The rows a heavy user's search returns, by id (the fusion ran in the process, memory/fusion.py).
#: The entity list (issue 48): memory/entities.py's statement with the returned columns.
ENTITY_LIST_SQL = text(
    entity_table.ENTITY_LIST_SQL.format(columns=_ITEM_COLUMNS, qvec=_QVEC)
).bindparams(_QVEC_PARAM)

FETCH_SQL = text(
    f"""
SELECT {_ITEM_COLUMNS}, 1 - (t.embedding <=> {_QVEC}) AS dense_score
FROM {TABLE} t
WHERE t.app_name = :app AND t.user_id = :user AND t.id = ANY(CAST(:ids AS uuid[]))
"""
).bindparams(_QVEC_PARAM)


def _dense_statement(literal_scope: str) -> str:
    """The dense list of a heavy user with each row's BM25 and exact-phrase scores.

    The columns the scores and the fusion need are read by the index scan that finds the
    rows (one heap visit per row), not by a second probe of each row by primary key."""
    columns = f"""t.id, t.embedding <=> {_QVEC} AS dist, t.tsv, t.tsv_en, t.search_len,
            {_ORDER_KEYS}"""
    return f"""
WITH {_Q}, {_HEAVY_STATS}, drows AS MATERIALIZED (
    SELECT v.*, row_number() OVER (ORDER BY v.dist, v.id) AS rank, 1 - v.dist AS sim FROM (
        {_nearest(columns, literal_scope)}
    ) v
), {_hits("drows", "true")}, dbm25 AS ({_BM25_OF_HITS}), dexact AS ({_exact_of("drows")})
SELECT d.id, b.score AS bm25, e.score AS exact, d.sim, d.cur, d.bonus, d.imp, d.et
FROM drows d LEFT JOIN dbm25 b ON b.id = d.id LEFT JOIN dexact e ON e.id = d.id
ORDER BY d.rank
"""


_HEAVY_VECTOR_ONLY = f"""
WITH {{vec}}
SELECT {_VECTOR_COLUMNS}
FROM vec v JOIN {TABLE} t ON t.id = v.id
WHERE t.app_name = :app AND t.user_id = :user
ORDER BY {_CURRENT} DESC, v.rank
LIMIT :lim
"""

PROFILE_SQL = text(
    f"SELECT (SELECT n FROM {USER_STATS} WHERE app_name = :app AND user_id = :user) AS n,"
    " to_regclass(:ix) IS NOT NULL AS ann"
)

# The plan of a search with query terms, in one round trip: :data:`PROFILE_SQL`'s row count
# and index flag, with the query lexemes' document frequencies (:data:`LEXEME_DF_SQL`'s,
# as two arrays in the same order; NULL when the user holds none of them), so a heavy user's
# lexical statement needs no probe of its own.
PROFILE_TERMS_SQL = text(
    f"""
SELECT p.n, to_regclass(:ix) IS NOT NULL AS ann, d.lexemes, d.dfs
FROM (SELECT (SELECT n FROM {USER_STATS} WHERE app_name = :app AND user_id = :user) AS n) p
CROSS JOIN LATERAL (
    SELECT array_agg(ts.lexeme ORDER BY ts.lexeme) AS lexemes,
           array_agg(ts.df ORDER BY ts.lexeme) AS dfs
    FROM {TERM_STATS} ts
    WHERE ts.app_name = :app AND ts.user_id = :user
      AND ts.lexeme = ANY(ARRAY(SELECT lexeme FROM unnest(to_tsvector('english', :qtext))))
) d
"""
)

HNSW_SETTINGS_SQL = text(
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
