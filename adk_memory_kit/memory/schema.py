"""The memory table and its migrations: an ordered list of SQL steps with a version table.

Every unique key and index leads with (app_name, user_id), the distribution key, so the
table can be hash-partitioned or distributed (Citus) by user without code changes. With
``StorageOptions(partitions=N)`` a new database's memory tables are created ``PARTITION BY
HASH (user_id)`` into N partitions (docs/scale.md).
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.core.memory_scopes import (
    AGENT_PREFIX,
    APP,
    APP_OWNER,
    GROUP_PREFIX,
    SHARED_PREFIX,
    USER,
)
from adk_memory_kit.db.catalog import home_comment_step
from adk_memory_kit.db.migrations import (
    Step,
    lock_and_read_version,
    recorded_embedding,
    run_steps,
)
from adk_memory_kit.errors import (
    DatabaseUnavailableError,
    EmbeddingDimensionError,
    SchemaMismatchError,
)
from adk_memory_kit.memory import entities as entity_table
from adk_memory_kit.memory import grants, term_stats
from adk_memory_kit.memory.tables import SNAPSHOTS, TABLE, create_partitions_step

COMPONENT = "memory"


def _steps(dim: int, partitions: int | None = None) -> list[Step]:
    """Schema steps, one statement each; step N brings the schema from version N-1 to N.

    Append, never edit.
    ``partitions`` changes only how a new database's tables are created (steps 1 and 6, and
    the partition steps that run only on partitioned tables), never the number of steps.
    """

    by_user = " PARTITION BY HASH (user_id)" if partitions else ""
    return [
        Step(
            f"""
        CREATE TABLE IF NOT EXISTS {TABLE} (
            id          uuid        NOT NULL,
            app_name    text        NOT NULL,
            user_id     text        NOT NULL,
            session_id  text        NOT NULL DEFAULT '',
            event_id    text        NOT NULL,
            kind        text        NOT NULL DEFAULT 'event',
            author      text,
            role        text,
            text        text        NOT NULL,
            search_text text        NOT NULL,
            context_text text       NOT NULL DEFAULT '',
            source_hash text        NOT NULL,
            embedding   vector({dim}) NOT NULL,
            tsv         tsvector GENERATED ALWAYS AS (
                setweight(to_tsvector('simple', search_text), 'A')
                || setweight(to_tsvector('simple', context_text), 'D')) STORED,
            tsv_en      tsvector GENERATED ALWAYS AS (
                setweight(to_tsvector('english', search_text), 'A')
                || setweight(to_tsvector('english', context_text), 'D')) STORED,
            search_len  integer GENERATED ALWAYS AS (
                length(to_tsvector('english', search_text))) STORED,
            event_time  timestamptz NOT NULL,
            ingested_at timestamptz NOT NULL DEFAULT now(),
            subject     text,
            valid_to    timestamptz,
            expires_at  timestamptz,
            importance  real,
            metadata    jsonb       NOT NULL DEFAULT '{{}}'::jsonb,
            PRIMARY KEY (app_name, user_id, id),
            UNIQUE (app_name, user_id, session_id, event_id)
        )"""
            + by_user
        ),
        Step(f"CREATE INDEX IF NOT EXISTS {TABLE}_tsv_idx ON {TABLE} USING gin (tsv)"),
        Step(f"CREATE INDEX IF NOT EXISTS {TABLE}_tsv_en_idx ON {TABLE} USING gin (tsv_en)"),
        Step(
            f"CREATE INDEX IF NOT EXISTS {TABLE}_subject_idx"
            f" ON {TABLE} (app_name, user_id, subject)"
            " WHERE subject IS NOT NULL"
        ),
        Step(
            f"CREATE INDEX IF NOT EXISTS {TABLE}_expires_idx ON {TABLE} (expires_at)"
            " WHERE expires_at IS NOT NULL",
        ),
        Step(
            f"""
        CREATE TABLE IF NOT EXISTS {SNAPSHOTS} (
            app_name    text        NOT NULL,
            user_id     text        NOT NULL,
            session_id  text        NOT NULL,
            newest_event_at timestamptz NOT NULL,
            written_at  timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (app_name, user_id, session_id)
        )"""
            + by_user,
        ),
        home_comment_step(TABLE, "memory_items"),
        home_comment_step(SNAPSHOTS, "session_snapshots"),
        # issue 13 (scale): partitions, then per-user BM25 statistics kept by triggers
        create_partitions_step(TABLE, partitions),
        create_partitions_step(SNAPSHOTS, partitions),
        *term_stats.steps(partitions),
        *_hygiene_steps(),
        Step(_STORAGE_SETTINGS),
        # issue 45: the statistics trigger deletes emptied lexemes by key (memory/term_stats.py)
        Step(term_stats.FUNCTION),
        # issue 47: memory scopes (docs/scopes.md); every existing row is the user's own
        *_scope_steps(),
        *grants.steps(),
        # issue 45: rows written to a user who has an HNSW index wait outside it (memory/ann.py)
        *_pending_steps(),
        # issue 48: the entities each row names and the per-user entity table (memory/entities.py)
        *entity_table.steps(partitions),
    ]


def _pending_steps() -> list[Step]:
    """Issue 45: the ``ann_pending`` flag (a constant default: no table rewrite, every
    existing row is indexed as before) and the partial btree a search's exact scan of a
    user's pending rows reads (memory/search_sql.py). Indexes built before keep working
    (they cover pending rows too; the search filters them out of the HNSW scan) and are
    replaced by the next build (memory/ann.py)."""
    return [
        Step(
            f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS ann_pending boolean"
            " NOT NULL DEFAULT false"
        ),
        Step(
            f"CREATE INDEX IF NOT EXISTS {TABLE}_ann_pending_idx"
            f" ON {TABLE} (app_name, user_id) WHERE ann_pending"
        ),
    ]


# A row's scope and its owner go together: the user's own and agent-private rows under a
# user's id, shared rows (app, group) under their reserved owner id (core/memory_scopes.py).
_SCOPE_OWNER = f"""CHECK (CASE
    WHEN scope = '{APP}' THEN user_id = '{APP_OWNER}'
    WHEN scope LIKE '{GROUP_PREFIX}%' THEN user_id = '{SHARED_PREFIX}' || scope
    ELSE (scope = '{USER}' OR scope LIKE '{AGENT_PREFIX}%')
        AND user_id NOT LIKE '{SHARED_PREFIX}%' END)"""


def _scope_steps() -> list[Step]:
    """Issue 47: the ``scope`` column (a constant default: no table rewrite, every existing
    row becomes ``user``) and the constraint tying a scope to its owner (not re-checked on
    the existing rows of a plain table, which are all ``user``; a partitioned table cannot
    skip the check, so it scans once)."""
    name = f"{TABLE}_scope_owner"
    constraint = f"ALTER TABLE {TABLE} ADD CONSTRAINT {name} {_SCOPE_OWNER}"
    missing = f"NOT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = '{name}')"
    return [
        Step(f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS scope text NOT NULL DEFAULT '{USER}'"),
        Step(constraint + " NOT VALID", only_if=f"{_relkind_is('r')} AND {missing}"),
        Step(constraint, only_if=f"{_relkind_is('p')} AND {missing}"),
    ]


def _relkind_is(kind: str) -> str:
    return f"(SELECT relkind::text FROM pg_class WHERE oid = to_regclass('{TABLE}')) = '{kind}'"


# Storage settings of the memory table and its full-text indexes (on each partition when
# partitioned), for searches that stay fast while the table is written:
# * fillfactor 70 leaves room for one more version of a row on each page (a row takes
#   ~1.8 kB of heap: its vector is stored out of line), so an UPDATE that changes no indexed
#   column (a recorded access, a pin, a confirmation) is a HOT update: no new entry in any
#   index (no HNSW insert), and the row keeps its place. At fillfactor 100 a flush of the
#   access counts after a heavy user's searches re-inserted every recalled row into every
#   index, costing the searches around it ~10 ms at p95 (docs/scale.md). The heap grows
#   ~30%; pages written before this step keep their layout until the table is rewritten
#   (VACUUM FULL, pg_repack).
# * gin_pending_list_limit 256 kB: new rows wait in a GIN index's pending list, which every
#   full-text index scan reads until it is merged (at the limit, or by VACUUM); the heavy
#   path runs several scans per search, so a 4 MB list (the default) cost ~10-20 ms a search.
_STORAGE_SETTINGS = f"""DO $$
DECLARE r record;
BEGIN
    FOR r IN
        SELECT c.oid::regclass AS rel FROM pg_class c
        WHERE c.oid = to_regclass('{TABLE}') AND c.relkind = 'r'
        UNION ALL
        SELECT i.inhrelid::regclass FROM pg_inherits i WHERE i.inhparent = to_regclass('{TABLE}')
    LOOP
        EXECUTE format('ALTER TABLE %s SET (fillfactor = 70)', r.rel);
    END LOOP;
    FOR r IN
        SELECT c.oid::regclass AS rel FROM pg_class c
        WHERE c.relkind = 'i' AND (
            c.oid IN (to_regclass('{TABLE}_tsv_idx'), to_regclass('{TABLE}_tsv_en_idx'))
            OR c.oid IN (SELECT i.inhrelid FROM pg_inherits i WHERE i.inhparent IN
                (to_regclass('{TABLE}_tsv_idx'), to_regclass('{TABLE}_tsv_en_idx'))))
    LOOP
        EXECUTE format('ALTER INDEX %s SET (gin_pending_list_limit = 256)', r.rel);
    END LOOP;
END $$"""


def _hygiene_steps() -> list[Step]:
    """Issue 16 (memory hygiene): types, tags, time travel, use-based decay, pins,
    corrections and consolidation review. One column per step; see docs/hygiene.md."""
    columns = [
        "memory_type text",  # fact | preference | episode | procedure | template | ...
        "tags text[] NOT NULL DEFAULT '{}'",
        "valid_from timestamptz",  # when true in the world (NULL: event_time)
        "recorded_at timestamptz NOT NULL DEFAULT now()",  # when learned (never rewritten)
        "last_accessed_at timestamptz",
        "access_count integer NOT NULL DEFAULT 0",
        "last_confirmed_at timestamptz",
        "pinned boolean NOT NULL DEFAULT false",
        "pin_reason text",
        "superseded_reason text",  # set by correct_memory (with superseded_by)
        "superseded_by text",
        "review_state text",  # 'conflict': left for review, never recalled
    ]
    return [
        *(Step(f"ALTER TABLE {TABLE} ADD COLUMN IF NOT EXISTS {c}") for c in columns),
        # scale-lint: migration backfill of the new column on every existing row
        Step(
            f"UPDATE {TABLE} SET memory_type = CASE WHEN kind = 'event' THEN 'episode'"
            " ELSE 'fact' END WHERE memory_type IS NULL"
        ),
        Step(
            f"CREATE INDEX IF NOT EXISTS {TABLE}_type_idx"
            f" ON {TABLE} (app_name, user_id, memory_type)"
        ),
    ]


async def _check_partitioned(conn: AsyncConnection) -> None:
    """Refuse ``partitions=N`` on an existing plain (unpartitioned) memory table."""
    kind = await conn.scalar(
        text("SELECT relkind::text FROM pg_class WHERE oid = to_regclass(:t)"), {"t": TABLE}
    )
    if kind == "r":
        raise SchemaMismatchError(
            f"partitions was given but the existing table {TABLE} is not partitioned; "
            "PostgreSQL cannot partition a table in place. Migrate it first (docs/scale.md, "
            "'Migrating an existing table to partitions'), or pass partitions=None"
        )


async def _ensure_extension(conn: AsyncConnection) -> None:
    try:
        await conn.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
    except Exception as exc:
        # one line: the driver's first line only, not SQLAlchemy's SQL and background link
        cause = getattr(exc, "orig", None) or exc
        lines = str(cause).strip().splitlines()
        detail = " ".join(lines[0].split())[:200] if lines else ""
        raise DatabaseUnavailableError(
            "the pgvector extension is not available on this PostgreSQL server "
            f"({cause.__class__.__name__}: {detail}); install pgvector and run "
            "CREATE EXTENSION vector as a superuser, or use the embedded default"
        ) from exc


async def ensure_schema(
    engine: AsyncEngine, *, dim: int, model_id: str, partitions: int | None = None
) -> None:
    """Create or migrate the memory table; refuse a schema or embedder it cannot use.

    ``partitions``: create a new database's tables hash-partitioned by ``user_id``. An
    existing unpartitioned memory table is refused (see docs/scale.md for the migration); an
    existing partitioned one is used as it is, whatever its partition count.
    """
    async with engine.begin() as conn:
        steps = _steps(dim, partitions)
        version = await lock_and_read_version(conn, COMPONENT, steps)
        await _ensure_extension(conn)
        if partitions:
            await _check_partitioned(conn)
        if version is not None:
            stored_model, stored_dim = await recorded_embedding(conn, COMPONENT)
            if stored_dim != dim:
                raise EmbeddingDimensionError(
                    f"embedding dimension {dim} does not match the stored {stored_dim} "
                    f"(model {stored_model}); use the same embedder or migrate the table"
                )
            if stored_model != model_id:
                raise EmbeddingDimensionError(
                    f"embedder {model_id!r} differs from the stored {stored_model!r}: "
                    "vectors from different models are not comparable; use the same embedder "
                    "or re-embed the table"
                )
        await run_steps(
            conn,
            COMPONENT,
            steps,
            version or 0,
            embedding_model=model_id,
            embedding_dim=dim,
        )
