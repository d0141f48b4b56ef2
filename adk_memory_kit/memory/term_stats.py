"""Per-user BM25 statistics kept up to date on write, so no search counts frequencies.

Two companion tables of the memory table, both keyed by (app_name, user_id) first:

* ``adk_memory_user_stats``: per user, how many rows (``n``) and the sum of their BM25
  lengths (``total_len``, the ``search_len`` column), so ``avgdl = total_len / n``.
* ``adk_memory_term_stats``: per user and English-stemmed lexeme of ``tsv_en``, the number of
  rows holding it (``df``). A lexeme leaves the table when its last row goes.

Guarantees: statement-level triggers on the memory table (with transition tables) apply the
delta of every INSERT, UPDATE (only rows whose lexemes or length changed count) and DELETE in
the same transaction as the write, whichever code path writes (the memory service, lifecycle
jobs, forget, a purge of expired rows, a bulk ``COPY``). A rolled-back write leaves them
unchanged. Writers of one user serialise their statistics on a per-user advisory lock taken in
sorted (app, user) order, so two transactions never deadlock on the statistics rows.
``TRUNCATE`` bypasses triggers: after one, rebuild with :data:`REBUILD_STEPS`.

Expired rows are counted until deleted (``purge_expired``): document frequencies are then an
upper bound, which only lowers the IDF of words in rows that are about to go.
"""

from __future__ import annotations

from adk_memory_kit.db.catalog import home_comment_step
from adk_memory_kit.db.migrations import Step
from adk_memory_kit.memory.tables import TABLE, create_partitions_step, no_trigger

USER_STATS = "adk_memory_user_stats"
TERM_STATS = "adk_memory_term_stats"

_LOCK_USERS = """
    PERFORM pg_advisory_xact_lock(hashtextextended(
        'adk_memory_term_stats' || chr(31) || u.app_name || chr(31) || u.user_id, 0))
    FROM (SELECT DISTINCT app_name, user_id FROM {rows} ORDER BY 1, 2) u"""


def _apply(rows: str, *, touched_only: bool = True) -> str:
    """The statements applying the row deltas in ``rows`` (app, user, tsv_en, len, sign).

    Lexemes whose ``df`` fell to zero are deleted: with ``touched_only`` (the current
    function) only lexemes of rows that left are looked at, by primary key, so the cost is the
    statement's rows'; without it (the first version) every lexeme of each user losing a row
    was read."""
    if touched_only:
        # scale-lint: trigger body; joined on the statement's rows (app_name, user_id, lexeme)
        gone = f"""
        DELETE FROM {TERM_STATS} s
        USING (SELECT DISTINCT d.app_name, d.user_id, l.lexeme
               FROM {rows} d CROSS JOIN LATERAL unnest(tsvector_to_array(d.tsv_en)) AS l(lexeme)
               WHERE d.sign < 0) u
        WHERE s.app_name = u.app_name AND s.user_id = u.user_id AND s.lexeme = u.lexeme
            AND s.df <= 0;"""
    else:
        # scale-lint: trigger body; joined on the statement's users (app_name, user_id)
        gone = f"""
        DELETE FROM {TERM_STATS} s
        USING (SELECT DISTINCT app_name, user_id FROM {rows} d WHERE sign < 0) u
        WHERE s.app_name = u.app_name AND s.user_id = u.user_id AND s.df <= 0;"""
    # scale-lint: trigger body; each statement touches only the users of the rows the
    # triggering statement wrote (joined on app_name, user_id), so it stays on their shard
    return f"""
        INSERT INTO {USER_STATS} AS s (app_name, user_id, n, total_len)
        SELECT app_name, user_id, sum(sign), sum(sign * search_len) FROM {rows} d
        GROUP BY 1, 2 ORDER BY 1, 2
        ON CONFLICT (app_name, user_id) DO UPDATE
            SET n = s.n + EXCLUDED.n, total_len = s.total_len + EXCLUDED.total_len;
        INSERT INTO {TERM_STATS} AS s (app_name, user_id, lexeme, df)
        SELECT d.app_name, d.user_id, l.lexeme, sum(d.sign)
        FROM {rows} d CROSS JOIN LATERAL unnest(tsvector_to_array(d.tsv_en)) AS l(lexeme)
        GROUP BY 1, 2, 3 HAVING sum(d.sign) <> 0 ORDER BY 1, 2, 3
        ON CONFLICT (app_name, user_id, lexeme) DO UPDATE SET df = s.df + EXCLUDED.df;{gone}
        DELETE FROM {USER_STATS} s
        USING (SELECT DISTINCT app_name, user_id FROM {rows} d WHERE sign < 0) u
        WHERE s.app_name = u.app_name AND s.user_id = u.user_id AND s.n <= 0;"""


_INSERTED = "(SELECT app_name, user_id, tsv_en, search_len, 1 AS sign FROM new_rows)"
_DELETED = "(SELECT app_name, user_id, tsv_en, search_len, -1 AS sign FROM old_rows)"
# Updated rows whose lexemes or length changed: the new version counts +1, the old -1.
_UPDATED = """(
            SELECT n.app_name, n.user_id, n.tsv_en, n.search_len, 1 AS sign
            FROM new_rows n JOIN old_rows o USING (app_name, user_id, id)
            WHERE n.tsv_en IS DISTINCT FROM o.tsv_en OR n.search_len <> o.search_len
            UNION ALL
            SELECT o.app_name, o.user_id, o.tsv_en, o.search_len, -1 AS sign
            FROM old_rows o JOIN new_rows n USING (app_name, user_id, id)
            WHERE n.tsv_en IS DISTINCT FROM o.tsv_en OR n.search_len <> o.search_len)"""


def _function(*, touched_only: bool) -> str:
    """The trigger function (one statement: CREATE OR REPLACE)."""
    return f"""
CREATE OR REPLACE FUNCTION adk_memory_term_stats_apply() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
    IF TG_OP = 'INSERT' THEN
        {_LOCK_USERS.format(rows="new_rows")};
        {_apply(_INSERTED, touched_only=touched_only)}
    ELSIF TG_OP = 'DELETE' THEN
        {_LOCK_USERS.format(rows="old_rows")};
        {_apply(_DELETED, touched_only=touched_only)}
    ELSIF EXISTS {_UPDATED} THEN
        {_LOCK_USERS.format(rows=_UPDATED + " x")};
        {_apply(_UPDATED, touched_only=touched_only)}
    END IF;
    RETURN NULL;
END
$fn$"""


# The first version (step of steps()); FUNCTION replaces it (a later step of memory/schema.py).
_FUNCTION_V1 = _function(touched_only=False)
#: The trigger function as of issue 45: lexemes left with no row are found by primary key
#: among the leaving rows' lexemes, not by reading all of the user's lexemes.
FUNCTION = _function(touched_only=True)


def _table(name: str, columns: str, key: str, partitions: int | None) -> str:
    suffix = " PARTITION BY HASH (user_id)" if partitions else ""
    return f"CREATE TABLE IF NOT EXISTS {name} ({columns}, PRIMARY KEY ({key})){suffix}"


def steps(partitions: int | None) -> list[Step]:
    """Migration steps of the statistics (one statement each), appended after the memory
    table's own steps.

    The step list has the same length whatever ``partitions`` is (a database records only a
    step count): with ``partitions`` the two tables are created hash-partitioned by
    ``user_id`` and one step per table creates the partitions (it runs only on a partitioned
    table); the last steps backfill both tables from existing rows.
    """
    return [
        Step(
            _table(
                USER_STATS,
                "app_name text NOT NULL, user_id text NOT NULL, n bigint NOT NULL,"
                " total_len bigint NOT NULL",
                "app_name, user_id",
                partitions,
            )
        ),
        Step(
            _table(
                TERM_STATS,
                "app_name text NOT NULL, user_id text NOT NULL, lexeme text NOT NULL,"
                " df bigint NOT NULL",
                "app_name, user_id, lexeme",
                partitions,
            )
        ),
        create_partitions_step(USER_STATS, partitions),
        create_partitions_step(TERM_STATS, partitions),
        home_comment_step(USER_STATS, "memory_user_stats"),
        home_comment_step(TERM_STATS, "memory_term_stats"),
        Step(_FUNCTION_V1),
        Step(
            f"CREATE TRIGGER adk_memory_term_stats_ins AFTER INSERT ON {TABLE}"
            " REFERENCING NEW TABLE AS new_rows"
            " FOR EACH STATEMENT EXECUTE FUNCTION adk_memory_term_stats_apply()",
            only_if=no_trigger("adk_memory_term_stats_ins"),
        ),
        Step(
            f"CREATE TRIGGER adk_memory_term_stats_upd AFTER UPDATE ON {TABLE}"
            " REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows"
            " FOR EACH STATEMENT EXECUTE FUNCTION adk_memory_term_stats_apply()",
            only_if=no_trigger("adk_memory_term_stats_upd"),
        ),
        Step(
            f"CREATE TRIGGER adk_memory_term_stats_del AFTER DELETE ON {TABLE}"
            " REFERENCING OLD TABLE AS old_rows"
            " FOR EACH STATEMENT EXECUTE FUNCTION adk_memory_term_stats_apply()",
            only_if=no_trigger("adk_memory_term_stats_del"),
        ),
        *(Step(sql) for sql in REBUILD_STEPS),
    ]


# Recompute both tables from the memory table (the migration backfill; after a TRUNCATE).
REBUILD_STEPS: tuple[str, ...] = (
    f"DELETE FROM {TERM_STATS}",  # scale-lint: global rebuild of derived statistics
    f"DELETE FROM {USER_STATS}",  # scale-lint: global rebuild of derived statistics
    f"INSERT INTO {USER_STATS} (app_name, user_id, n, total_len)"
    f" SELECT app_name, user_id, count(*), coalesce(sum(search_len), 0) FROM {TABLE}"
    " GROUP BY 1, 2",  # scale-lint: global rebuild of derived statistics
    f"INSERT INTO {TERM_STATS} (app_name, user_id, lexeme, df)"
    f" SELECT t.app_name, t.user_id, l.lexeme, count(*) FROM {TABLE} t"
    " CROSS JOIN LATERAL unnest(tsvector_to_array(t.tsv_en)) AS l(lexeme)"
    " GROUP BY 1, 2, 3",  # scale-lint: global rebuild of derived statistics
)
