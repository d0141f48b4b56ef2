"""The memory table and its migrations: an ordered list of SQL steps with a version table.

Every unique key and index leads with (app_name, user_id), the distribution key, so the
table can be hash-partitioned or distributed (Citus) by user without code changes.
"""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.db.homes import home_comment_step
from adk_memory_kit.db.migrations import (
    Step,
    lock_and_read_version,
    recorded_embedding,
    run_steps,
)
from adk_memory_kit.errors import DatabaseUnavailableError, EmbeddingDimensionError

TABLE = "adk_memory_items"
# One row per ingested session: the newest event time of the latest snapshot written, so an
# older snapshot of the session that commits after a newer one changes nothing.
SNAPSHOTS = "adk_memory_session_snapshots"
COMPONENT = "memory"


def _steps(dim: int) -> list[Step]:
    """Schema steps, one statement each; step N brings the schema from version N-1 to N.

    Append, never edit. ``legacy`` marks where a version of the old block numbering ended.
    """
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
            legacy=1,
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
        )""",
            legacy=2,
        ),
        home_comment_step(TABLE, "memory_items"),
        home_comment_step(SNAPSHOTS, "session_snapshots"),
    ]


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


async def ensure_schema(engine: AsyncEngine, *, dim: int, model_id: str) -> None:
    """Create or migrate the memory table; refuse a schema or embedder it cannot use."""
    async with engine.begin() as conn:
        steps = _steps(dim)
        version = await lock_and_read_version(conn, COMPONENT, steps)
        await _ensure_extension(conn)
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
