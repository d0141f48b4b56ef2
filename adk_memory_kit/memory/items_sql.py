"""The memory table (``adk_memory_items``) and the session-snapshot table: every statement the
memory service runs on them, except ranked search (``memory/search.py``) and the DDL
(``memory/schema.py``).

Each function takes an open :class:`AsyncConnection` and runs in the caller's transaction;
the service decides where a transaction begins and ends. Every statement on per-user rows
carries ``app_name`` and ``user_id`` equality (the sharding key). Embeddings are bound and
read with ``pgvector.sqlalchemy``'s ``VECTOR`` type.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pgvector import Vector
from pgvector.sqlalchemy import VECTOR
from sqlalchemy import bindparam, text
from sqlalchemy.ext.asyncio import AsyncConnection

from adk_memory_kit.core.memory_scopes import SHARED_PREFIX
from adk_memory_kit.db.fence import guard_write
from adk_memory_kit.memory.ann_names import INDEX_NAME_SQL
from adk_memory_kit.memory.consolidation import Neighbour
from adk_memory_kit.memory.documents import MemoryDocument, StoredKey
from adk_memory_kit.memory.hygiene import Hygiene
from adk_memory_kit.memory.tables import SNAPSHOTS, TABLE
from adk_memory_kit.sensitive import redact_for_store
from adk_memory_kit.text.entities import entities

# One statement per batch: the rows travel as one JSON array (json_to_recordset), so the
# statement-level statistics triggers (memory/term_stats.py) run once per batch, not per row.
# Every value keeps its type's text form (vectors as pgvector's text, times in ISO 8601 with
# their offset); ``importance`` goes as float8 and is rounded to real on assignment, as a bound
# float parameter is.
# ``ann_pending`` (issue 45): a row of a user who has a partial HNSW index waits outside it
# (memory/ann.py: no graph insert on the write path); the flag is whether that index exists,
# looked up by name. A rewritten row keeps its flag unless its embedding changes (then its
# new version would enter the graph: it waits too).
_COLUMNS = (
    "id, app_name, user_id, session_id, event_id, kind, author, role, text, search_text,"
    " context_text, source_hash, embedding, event_time, subject, expires_at, importance,"
    " valid_to, metadata, memory_type, tags, valid_from, scope, ann_pending, entities"
)
_PENDING = f"to_regclass({INDEX_NAME_SQL.format(app='x.app', user='x.user')}) IS NOT NULL"
_INSERT = f"""
INSERT INTO {TABLE} AS t ({_COLUMNS})
SELECT x.id, x.app, x.user, x.session_id, x.event_id, x.kind, x.author, x.role, x.text,
    x.search_text, x.context_text, x.source_hash, CAST(x.embedding AS vector), x.event_time,
    x.subject, x.expires_at, x.importance, x.valid_to, CAST(x.metadata AS jsonb),
    x.memory_type, x.tags, x.valid_from, coalesce(x.scope, 'user'), {_PENDING},
    coalesce(x.entities, '{{}}')
FROM json_to_recordset(CAST(:rows AS json)) AS x(id uuid, app text, "user" text,
    session_id text, event_id text, kind text, author text, role text, text text,
    search_text text, context_text text, source_hash text, embedding text,
    event_time timestamptz, subject text, expires_at timestamptz, importance float8,
    valid_to timestamptz, metadata text, memory_type text, tags text[], valid_from timestamptz,
    scope text, entities text[])
ON CONFLICT (app_name, user_id, session_id, event_id) DO UPDATE SET
    kind = EXCLUDED.kind, author = EXCLUDED.author, role = EXCLUDED.role, text = EXCLUDED.text,
    search_text = EXCLUDED.search_text, context_text = EXCLUDED.context_text,
    source_hash = EXCLUDED.source_hash, entities = EXCLUDED.entities,
    embedding = EXCLUDED.embedding, event_time = EXCLUDED.event_time, ingested_at = now(),
    ann_pending = CASE WHEN t.embedding = EXCLUDED.embedding THEN t.ann_pending
        ELSE EXCLUDED.ann_pending END,
"""

# Explicit adds (add_memory, add_events_to_memory) state the item whole: hygiene values,
# supersession and metadata are replaced by what the caller passed.
UPSERT_EXPLICIT = text(
    _INSERT
    + """    subject = EXCLUDED.subject, expires_at = EXCLUDED.expires_at,
    importance = EXCLUDED.importance, valid_to = EXCLUDED.valid_to, metadata = EXCLUDED.metadata,
    memory_type = EXCLUDED.memory_type, tags = EXCLUDED.tags, valid_from = EXCLUDED.valid_from
"""
)

# Session snapshots carry no hygiene values: re-ingesting a session keeps the expiry,
# importance, subject, supersession and extra metadata keys an explicit add set on its rows.
UPSERT_SESSION = text(
    _INSERT
    + """    subject = COALESCE(EXCLUDED.subject, t.subject),
    expires_at = COALESCE(EXCLUDED.expires_at, t.expires_at),
    importance = COALESCE(EXCLUDED.importance, t.importance),
    metadata = t.metadata || EXCLUDED.metadata,
    memory_type = COALESCE(t.memory_type, EXCLUDED.memory_type),
    tags = CASE WHEN cardinality(t.tags) > 0 THEN t.tags ELSE EXCLUDED.tags END,
    valid_from = COALESCE(t.valid_from, EXCLUDED.valid_from)
"""
)

# The one by-id read of a write: each requested id with the source hash the caller would
# store. The stored embedding comes back only where it can be reused (same embedded-text
# half) and the row will be rewritten: its hash differs, or ``:same_too`` (explicit adds
# rewrite rows whose hygiene values changed). Unchanged rows cost no vector transfer.
_BY_IDS = text(
    f"""
SELECT t.id::text AS id, t.session_id, t.event_id, t.kind, t.source_hash, t.subject,
       t.expires_at, t.importance, t.memory_type, t.tags, t.valid_from,
       CASE WHEN split_part(t.source_hash, ':', 1) = split_part(x.h, ':', 1)
                 AND (:same_too OR t.source_hash <> x.h)
            THEN t.embedding END AS embedding
FROM unnest(CAST(:ids AS uuid[]), CAST(:hashes AS text[])) AS x(id, h)
JOIN {TABLE} t ON t.app_name = :app AND t.user_id = :user AND t.id = x.id
"""
).columns(embedding=VECTOR())

# Current (unexpired, not superseded) facts of a subject, other than ``keep``.
_SUBJECT_TIMES = text(
    f"SELECT coalesce(valid_from, event_time) AS event_time FROM {TABLE}"
    " WHERE app_name = :app AND user_id = :user"
    " AND subject = :subject AND valid_to IS NULL AND review_state IS NULL"
    " AND (expires_at IS NULL OR expires_at > now())"
    " AND NOT (id = ANY(CAST(:keep AS uuid[])))"
)

# Existing current facts with the subject, dated no later than the newest incoming fact, are
# superseded as of the date of the earliest incoming fact not older than them.
_SUPERSEDE = text(
    f"""
UPDATE {TABLE} t SET valid_to = (
    SELECT min(x) FROM unnest(CAST(:times AS timestamptz[])) AS x
    WHERE x >= coalesce(t.valid_from, t.event_time))
WHERE t.app_name = :app AND t.user_id = :user AND t.subject = :subject
    AND t.valid_to IS NULL AND t.review_state IS NULL
    AND coalesce(t.valid_from, t.event_time) <= :newest
    AND NOT (t.id = ANY(CAST(:keep AS uuid[])))
"""
)

# A snapshot's event rows that are gone from it (not newer than it, not in ``keep``).
_DELETE_MISSING_EVENTS = text(
    f"DELETE FROM {TABLE} WHERE app_name = :app AND user_id = :user"
    " AND session_id = :sid AND kind = 'event' AND event_time <= :newest"
    " AND NOT (id = ANY(CAST(:keep AS uuid[])))"
)
_COUNT_MISSING_EVENTS = text(
    f"SELECT count(*) FROM {TABLE} WHERE app_name = :app AND user_id = :user"
    " AND session_id = :sid AND kind = 'event' AND event_time <= :newest"
    " AND NOT (id = ANY(CAST(:keep AS uuid[])))"
)
_COUNT_IDS = text(
    f"SELECT count(*) FROM {TABLE} WHERE app_name = :app AND user_id = :user"
    " AND id = ANY(CAST(:keep AS uuid[]))"
)

_SNAPSHOT_MARK = text(
    f"SELECT newest_event_at FROM {SNAPSHOTS}"
    " WHERE app_name = :app AND user_id = :user AND session_id = :sid"
)
_SET_SNAPSHOT_MARK = text(
    f"""
INSERT INTO {SNAPSHOTS} AS s (app_name, user_id, session_id, newest_event_at)
VALUES (:app, :user, :sid, :newest)
ON CONFLICT (app_name, user_id, session_id) DO UPDATE SET
    newest_event_at = greatest(s.newest_event_at, EXCLUDED.newest_event_at), written_at = now()
"""
)

_COUNT_SESSION_EVENTS = text(
    f"SELECT count(*) FROM {TABLE} WHERE app_name = :app AND user_id = :user"
    " AND session_id = :sid AND kind = 'event'"
)

_DELETE_ID = text(f"DELETE FROM {TABLE} WHERE app_name = :app AND user_id = :user AND id = :mid")
_DELETE_SESSION = text(
    f"DELETE FROM {TABLE} WHERE app_name = :app AND user_id = :user AND session_id = :sid"
)
_DELETE_SESSION_SNAPSHOT = text(
    f"DELETE FROM {SNAPSHOTS} WHERE app_name = :app AND user_id = :user AND session_id = :sid"
)
_DELETE_USER = text(f"DELETE FROM {TABLE} WHERE app_name = :app AND user_id = :user")
_DELETE_USER_SNAPSHOTS = text(f"DELETE FROM {SNAPSHOTS} WHERE app_name = :app AND user_id = :user")
# Maintenance across users: expired rows, wherever they are (the expiry index serves it).
# scale-lint: global maintenance, deletes expired rows of every user (on Citus a multi-shard
# DELETE, run from a scheduled job)
_PURGE_EXPIRED = text(f"DELETE FROM {TABLE} WHERE expires_at IS NOT NULL AND expires_at <= now()")
_COUNT_BY_KIND = text(
    f"SELECT kind, count(*) AS n FROM {TABLE} WHERE app_name = :app AND user_id = :user"
    " GROUP BY kind"
)
# Admin listing of one app's users (no user filter by design); shared scopes' reserved owners
# (``~shared:...``) are not users.
# scale-lint: lists the users of an app (admin and forget tooling), on Citus a multi-shard query
_LIST_USERS = text(
    f"SELECT DISTINCT user_id FROM {TABLE} WHERE app_name = :app"
    " AND NOT starts_with(user_id, :shared) ORDER BY 1"
)

_XACT_LOCK = text("SELECT pg_advisory_xact_lock(hashtextextended(:k, 0))")
_XACT_LOCK_SHARED = text("SELECT pg_advisory_xact_lock_shared(hashtextextended(:k, 0))")


@dataclass(frozen=True)
class StoredRow:
    """What is stored under one row id: its key, hashes, hygiene values and, when the text
    to embed is unchanged, its embedding (else ``None``)."""

    id: str
    session_id: str
    event_id: str
    kind: str
    source_hash: str
    subject: str | None
    expires_at: datetime | None
    importance: float | None
    memory_type: str | None = None
    tags: list[str] | None = None
    valid_from: datetime | None = None
    embedding: Any = None

    @property
    def key(self) -> StoredKey:
        """The row's key (to update it in place)."""
        return StoredKey(self.id, self.session_id, self.event_id, self.kind)

    def differs(self, doc: MemoryDocument, hygiene: Hygiene) -> bool:
        """Whether an explicit add of ``doc`` with ``hygiene`` would change this row."""
        if self.source_hash != doc.source_hash or self.subject != hygiene.subject:
            return True
        if self.expires_at != hygiene.expires_at:
            return True
        if self.memory_type != memory_type_of(doc, hygiene) or list(self.tags or []) != list(
            hygiene.tags
        ):
            return True
        if hygiene.valid_from is not None and self.valid_from != hygiene.valid_from:
            return True
        if (self.importance is None) != (hygiene.importance is None):
            return True
        # importance is stored as real (float4): compare at its precision
        return (
            self.importance is not None
            and hygiene.importance is not None
            and abs(self.importance - hygiene.importance) > 1e-6
        )


async def read_by_ids(
    conn: AsyncConnection,
    app: str,
    user: str,
    lookups: Iterable[tuple[str, str | None]],
    *,
    same_too: bool,
) -> dict[str, StoredRow]:
    """The stored rows among ``lookups`` (``(row id, source hash to store or None)``), by id.

    One query. A row's embedding is returned only if the embedded-text half of its hash
    equals the given one's, and the hashes differ or ``same_too`` is set (``None`` for the
    hash: never).
    """
    pairs = dict(lookups)
    if not pairs:
        return {}
    params = {"app": app, "user": user, "ids": list(pairs), "hashes": list(pairs.values())}
    rows = await conn.execute(_BY_IDS, {**params, "same_too": same_too})
    return {r.id: StoredRow(**r._asdict()) for r in rows}


Gate = Callable[[str | None], str | None]


def batch_gate() -> Gate:
    """The store's redaction gate (:func:`redact_for_store`) remembering its answers for one
    batch: a text repeated in the batch (the author, a metadata key, a turn that is also its
    own search text) is scanned once. The gate is a function of the text alone, so the
    stored values are the same; keep one per batch (it holds the batch's texts)."""
    seen: dict[str, str] = {}

    def gate(value: str | None) -> str | None:
        if not value:
            return value
        done = seen.get(value)
        if done is None:
            done = seen[value] = redact_for_store(value)
        return done

    return gate


def redact_json(value: Any, gate: Gate) -> Any:
    """:func:`adk_memory_kit.sensitive.redact_value` with ``gate`` for its strings: every
    string in a JSON-like value (dict keys included) redacted, other scalars as they are."""
    if isinstance(value, str):
        return gate(value)
    if isinstance(value, dict):
        return {
            (gate(k) if isinstance(k, str) else k): redact_json(v, gate) for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact_json(v, gate) for v in value]
    if isinstance(value, tuple):
        return tuple(redact_json(v, gate) for v in value)
    return value


def row(
    app: str,
    user: str,
    doc: MemoryDocument,
    embedding: Any,
    hygiene: Hygiene,
    valid_to: datetime | None,
    gate: Gate | None = None,
    scope: str = "user",
) -> dict[str, Any]:
    """The bind parameters of one upserted row; every text column passes the redaction gate
    (``gate``: one :func:`batch_gate` shared by the rows of a batch; default: a new one).
    ``scope``: the row's memory scope (core/memory_scopes.py; a database constraint ties it
    to ``user``)."""
    gate = gate or batch_gate()
    # The subject and tags are index keys: full-text matched at the context's low weight
    # (a query "diet" finds the facts filed under that subject), never part of the text.
    keys = " ".join(x for x in (hygiene.subject or "", *hygiene.tags) if x)
    context = "\n".join(x for x in (doc.context_text, keys) if x)
    return {
        "id": doc.id,
        "app": app,
        "user": user,
        "session_id": doc.session_id,
        "event_id": doc.event_id,
        "kind": doc.kind,
        "author": (author := gate(doc.author)),
        "role": doc.role,
        "text": (stored := gate(doc.text)),
        "search_text": gate(doc.search_text),
        "context_text": gate(context),
        "source_hash": doc.source_hash,
        "embedding": embedding,
        "event_time": doc.event_time,
        "subject": gate(hygiene.subject),
        "expires_at": hygiene.expires_at,
        "importance": hygiene.importance,
        "valid_to": valid_to,
        "metadata": json.dumps(redact_json(doc.metadata, gate), default=str, sort_keys=True),
        "memory_type": memory_type_of(doc, hygiene),
        "tags": [gate(t) for t in hygiene.tags],
        "valid_from": hygiene.valid_from or doc.event_time,
        "scope": scope,
        # the entities the stored (redacted) text names (issue 48, memory/entities.py)
        "entities": entities(stored, author) if stored else [],
    }


def memory_type_of(doc: MemoryDocument, hygiene: Hygiene) -> str:
    """The stored type: as given, else ``episode`` for conversation turns, ``fact`` else."""
    return hygiene.memory_type or ("episode" if doc.kind == "event" else "fact")


async def upsert(conn: AsyncConnection, rows: Sequence[dict[str, Any]], *, session: bool) -> None:
    """Upsert ``rows`` (from :func:`row`): as a session snapshot (keeps hygiene values set by
    explicit adds) or as explicit items (replaces them).

    One statement for the batch (its statistics triggers run once). Rows repeating a key
    (session id, event id) of an earlier row go in a later statement, in order, so the result
    is that of upserting the rows one by one."""
    statement = UPSERT_SESSION if session else UPSERT_EXPLICIT
    for part in _rounds(rows):
        await conn.execute(statement, {"rows": _rows_json(part)})


def _rounds(rows: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """``rows`` split so that no part holds a key twice: part k holds each key's k-th row,
    in the given order (one part when no key repeats)."""
    parts: list[list[dict[str, Any]]] = []
    seen: dict[tuple[str, str], int] = {}
    for r in rows:
        key = (r["session_id"], r["event_id"])
        k = seen.get(key, 0)
        seen[key] = k + 1
        if k == len(parts):
            parts.append([])
        parts[k].append(r)
    return parts


def _json_value(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _rows_json(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as the JSON array the upsert reads (vectors in pgvector's text form)."""
    return json.dumps(
        [
            {k: Vector._to_db(v) if k == "embedding" else _json_value(v) for k, v in r.items()}
            for r in rows
        ],
        allow_nan=False,
    )


async def lock_user(conn: AsyncConnection, app: str, user: str, *, exclusive: bool) -> None:
    """Writers share a per-user lock; deleting the whole user takes it exclusively, so a
    write racing a user delete lands either wholly before or wholly after it. A writer
    (``exclusive=False``) is refused while a forget of the user runs (the forget fence)."""
    if not exclusive:
        await guard_write(conn, app, user)
    await conn.execute(
        _XACT_LOCK if exclusive else _XACT_LOCK_SHARED,
        {"k": json.dumps([TABLE, "user", app, user])},
    )


async def lock_session(conn: AsyncConnection, app: str, user: str, session_id: str) -> None:
    """Serialise concurrent writers of one session (transaction-scoped advisory lock)."""
    await conn.execute(_XACT_LOCK, {"k": json.dumps([TABLE, app, user, session_id])})


async def lock_subject(conn: AsyncConnection, app: str, user: str, subject: str) -> None:
    """Serialise writers of one subject's facts (supersession reads, then writes)."""
    await conn.execute(_XACT_LOCK, {"k": json.dumps([TABLE, "subject", app, user, subject])})


async def current_subject_times(
    conn: AsyncConnection, app: str, user: str, subject: str, keep: Sequence[str]
) -> list[datetime]:
    """Dates of the subject's current, unexpired facts other than the rows in ``keep``."""
    rows = await conn.execute(
        _SUBJECT_TIMES, {"app": app, "user": user, "subject": subject, "keep": list(keep)}
    )
    return [r.event_time for r in rows]


async def supersede(
    conn: AsyncConnection,
    app: str,
    user: str,
    subject: str,
    times: Sequence[datetime],
    keep: Sequence[str],
) -> None:
    """Supersede current facts of ``subject`` not newer than ``max(times)`` (except ``keep``),
    each as of the earliest of ``times`` not older than it."""
    ordered = sorted(set(times))
    await conn.execute(
        _SUPERSEDE,
        {
            "app": app,
            "user": user,
            "subject": subject,
            "times": ordered,
            "newest": ordered[-1],
            "keep": list(keep),
        },
    )


async def newer_snapshot_stored(
    conn: AsyncConnection, app: str, user: str, session_id: str, newest: datetime
) -> bool:
    """Whether a snapshot of the session newer than ``newest`` was already written."""
    mark = await conn.scalar(_SNAPSHOT_MARK, {"app": app, "user": user, "sid": session_id})
    return mark is not None and mark > newest


async def mark_snapshot(
    conn: AsyncConnection, app: str, user: str, session_id: str, newest: datetime
) -> None:
    """Record a snapshot up to ``newest`` (the mark never moves back)."""
    await conn.execute(
        _SET_SNAPSHOT_MARK, {"app": app, "user": user, "sid": session_id, "newest": newest}
    )


async def delete_missing_events(
    conn: AsyncConnection,
    app: str,
    user: str,
    session_id: str,
    newest: datetime,
    keep: Sequence[str],
) -> None:
    """Delete the session's event rows not in ``keep`` and not newer than ``newest``."""
    await conn.execute(
        _DELETE_MISSING_EVENTS,
        {"app": app, "user": user, "sid": session_id, "newest": newest, "keep": list(keep)},
    )


async def count_session_events(conn: AsyncConnection, app: str, user: str, session_id: str) -> int:
    """How many event rows the session has in memory."""
    found = await conn.scalar(_COUNT_SESSION_EVENTS, {"app": app, "user": user, "sid": session_id})
    return int(found or 0)


async def session_row_changes(
    conn: AsyncConnection,
    app: str,
    user: str,
    session_id: str,
    newest: datetime,
    keep: Sequence[str],
) -> tuple[int, int]:
    """``(added, deleted)``: the rows a snapshot keeping ``keep`` would add and delete
    (read-only; the counterpart of ``upsert`` + :func:`delete_missing_events`)."""
    params = {"app": app, "user": user, "sid": session_id, "newest": newest, "keep": list(keep)}
    deleted = await conn.scalar(_COUNT_MISSING_EVENTS, params)
    present = await conn.scalar(_COUNT_IDS, params)
    return len(set(keep)) - int(present or 0), int(deleted or 0)


async def delete_id(conn: AsyncConnection, app: str, user: str, row_id: str) -> int:
    """Delete one row; returns how many were deleted."""
    result = await conn.execute(_DELETE_ID, {"app": app, "user": user, "mid": row_id})
    return result.rowcount or 0


async def delete_session(conn: AsyncConnection, app: str, user: str, session_id: str) -> int:
    """Delete a session's rows and its snapshot mark; returns how many rows were deleted."""
    params = {"app": app, "user": user, "sid": session_id}
    result = await conn.execute(_DELETE_SESSION, params)
    await conn.execute(_DELETE_SESSION_SNAPSHOT, params)
    return result.rowcount or 0


async def delete_user(conn: AsyncConnection, app: str, user: str) -> int:
    """Delete a user's rows and snapshot marks; returns how many rows were deleted."""
    params = {"app": app, "user": user}
    result = await conn.execute(_DELETE_USER, params)
    await conn.execute(_DELETE_USER_SNAPSHOTS, params)
    return result.rowcount or 0


async def purge_expired(conn: AsyncConnection) -> int:
    """Delete every row whose time-to-live has passed; returns how many."""
    return (await conn.execute(_PURGE_EXPIRED)).rowcount or 0


async def count_by_kind(conn: AsyncConnection, app: str, user: str) -> Mapping[str, int]:
    """How many rows the user has, by kind."""
    return {r.kind: r.n for r in await conn.execute(_COUNT_BY_KIND, {"app": app, "user": user})}


async def list_users(conn: AsyncConnection, app: str) -> list[str]:
    """The users of ``app`` that have rows (a shared scope's owner is none)."""
    params = {"app": app, "shared": SHARED_PREFIX}
    return [r.user_id for r in await conn.execute(_LIST_USERS, params)]


# ---------------------------------------------------------------- hygiene (issue 16)
# Every statement names one user (app_name and user_id equality).

_RECORD_ACCESS = text(
    f"""
UPDATE {TABLE} t SET access_count = t.access_count + x.n,
    last_accessed_at = greatest(t.last_accessed_at, x.at)
FROM unnest(CAST(:ids AS uuid[]), CAST(:ns AS int[]), CAST(:ats AS timestamptz[])) AS x(id, n, at)
WHERE t.app_name = :app AND t.user_id = :user AND t.id = x.id
"""
)

_PIN = text(
    f"UPDATE {TABLE} SET pinned = :pinned, pin_reason = :reason"
    " WHERE app_name = :app AND user_id = :user AND id = :mid RETURNING id"
)

# A row may decay when it is not pinned, does not feed ``user:`` state, was not used (recalled,
# confirmed or learned) since the cutoff and is not more important than the limit.
_STALE_WHERE = """app_name = :app AND user_id = :user AND NOT pinned
    AND NOT (metadata ? 'state_key')
    AND greatest(last_accessed_at, last_confirmed_at, recorded_at) < :cutoff
    AND coalesce(importance, 0) <= :max_importance"""
_STALE = text(
    f"SELECT id::text AS id, memory_type, importance, access_count,"
    f" greatest(last_accessed_at, last_confirmed_at, recorded_at) AS last_used"
    f" FROM {TABLE} WHERE {_STALE_WHERE} ORDER BY last_used, id"
)
_DELETE_STALE = text(f"DELETE FROM {TABLE} WHERE {_STALE_WHERE} AND id = ANY(CAST(:ids AS uuid[]))")

_ROW = text(
    f"""
SELECT id::text AS id, session_id, event_id, kind, author, text, subject, memory_type, tags,
       importance, metadata, coalesce(valid_from, event_time) AS valid_from, valid_to,
       superseded_reason
FROM {TABLE} WHERE app_name = :app AND user_id = :user AND id = :mid
"""
)

_RETRACT = text(
    f"UPDATE {TABLE} SET valid_to = least(coalesce(valid_to, :at), :at),"
    " superseded_reason = :reason, superseded_by = :by"
    " WHERE app_name = :app AND user_id = :user AND id = :mid"
)

# The facts a new one is compared with: every fact of its subject, and the nearest facts by
# embedding (conversation turns and rows left for review are not facts to consolidate with).
_NEIGHBOURS = text(
    f"""
SELECT t.id::text AS id, t.text, t.subject, coalesce(t.valid_from, t.event_time) AS valid_from,
       t.valid_to, t.superseded_reason, 1 - (t.embedding <=> :vec) AS similarity
FROM {TABLE} t
WHERE t.app_name = :app AND t.user_id = :user AND t.kind <> 'event' AND t.review_state IS NULL
  AND (t.subject = :subject OR t.id IN (
      SELECT n.id FROM {TABLE} n
      WHERE n.app_name = :app AND n.user_id = :user AND n.kind <> 'event'
        AND n.review_state IS NULL AND n.valid_to IS NULL
      ORDER BY n.embedding <=> :vec LIMIT :k))
ORDER BY coalesce(t.valid_from, t.event_time), t.id
"""
).bindparams(bindparam("vec", type_=VECTOR()))

_CONFIRM = text(
    f"UPDATE {TABLE} SET last_confirmed_at = now(),"
    " valid_from = least(coalesce(valid_from, event_time),"
    " coalesce(CAST(:from AS timestamptz), 'infinity'::timestamptz))"
    " WHERE app_name = :app AND user_id = :user AND id = :mid"
)

# Validity windows of one subject's chain: each fact is valid until the next one's start.
# Corrected rows keep their own window but still end their predecessor's.
_REWINDOW = text(
    f"""
WITH w AS (
    SELECT id, superseded_reason, lead(coalesce(valid_from, event_time)) OVER (
        ORDER BY coalesce(valid_from, event_time), recorded_at, id) AS next_from
    FROM {TABLE}
    WHERE app_name = :app AND user_id = :user AND subject = :subject AND kind <> 'event'
      AND review_state IS NULL AND (expires_at IS NULL OR expires_at > now())
)
UPDATE {TABLE} t SET valid_to = w.next_from
FROM w
WHERE t.app_name = :app AND t.user_id = :user AND t.id = w.id
  AND w.superseded_reason IS NULL AND t.valid_to IS DISTINCT FROM w.next_from
"""
)

_MARK_CONFLICT = text(
    f"UPDATE {TABLE} SET review_state = 'conflict',"
    " metadata = metadata || jsonb_build_object('conflict_with', CAST(:other AS text))"
    " WHERE app_name = :app AND user_id = :user AND id = :mid"
)


@dataclass(frozen=True)
class StaleRow:
    """A row that ``purge_stale`` removes (never its text)."""

    id: str
    memory_type: str | None
    importance: float | None
    access_count: int
    last_used: datetime


async def record_access(
    conn: AsyncConnection, app: str, user: str, rows: Mapping[str, tuple[int, datetime]]
) -> None:
    """Add recall counts and last-access times to the user's rows (one UPDATE)."""
    ids = sorted(rows)
    await conn.execute(
        _RECORD_ACCESS,
        {
            "app": app,
            "user": user,
            "ids": ids,
            "ns": [rows[i][0] for i in ids],
            "ats": [rows[i][1] for i in ids],
        },
    )


async def set_pinned(
    conn: AsyncConnection, app: str, user: str, row_id: str, pinned: bool, reason: str | None
) -> bool:
    """Pin (or unpin) one row; whether it exists."""
    reason = redact_for_store(reason)
    params = {"app": app, "user": user, "mid": row_id, "pinned": pinned, "reason": reason}
    return (await conn.execute(_PIN, params)).first() is not None


async def stale_rows(
    conn: AsyncConnection, app: str, user: str, cutoff: datetime, max_importance: float
) -> list[StaleRow]:
    """The user's rows that may decay (see ``_STALE_WHERE``)."""
    params = {"app": app, "user": user, "cutoff": cutoff, "max_importance": max_importance}
    return [StaleRow(**r._asdict()) for r in await conn.execute(_STALE, params)]


async def delete_stale(
    conn: AsyncConnection,
    app: str,
    user: str,
    cutoff: datetime,
    max_importance: float,
    ids: Sequence[str],
) -> int:
    """Delete the rows among ``ids`` that are still stale (rechecked in the statement)."""
    params = {"app": app, "user": user, "cutoff": cutoff, "max_importance": max_importance}
    return (await conn.execute(_DELETE_STALE, {**params, "ids": list(ids)})).rowcount or 0


async def read_row(conn: AsyncConnection, app: str, user: str, row_id: str) -> Any:
    """One row's fields for a correction (``None`` when the user has no such row)."""
    return (await conn.execute(_ROW, {"app": app, "user": user, "mid": row_id})).first()


async def retract(
    conn: AsyncConnection,
    app: str,
    user: str,
    row_id: str,
    at: datetime,
    reason: str,
    by: str | None,
) -> None:
    """Supersede one row as corrected at ``at`` (kept, with the reason and who)."""
    reason, by = redact_for_store(reason), redact_for_store(by)
    params = {"app": app, "user": user, "mid": row_id, "at": at, "reason": reason, "by": by}
    await conn.execute(_RETRACT, params)


async def neighbours(
    conn: AsyncConnection, app: str, user: str, vec: Any, subject: str | None, k: int
) -> list[Neighbour]:
    """The subject's facts and the ``k`` nearest current facts, oldest first."""
    params = {"app": app, "user": user, "vec": vec, "subject": subject, "k": k}
    return [Neighbour(**r._asdict()) for r in await conn.execute(_NEIGHBOURS, params)]


async def confirm(
    conn: AsyncConnection, app: str, user: str, row_id: str, earliest: datetime | None
) -> None:
    """Refresh a fact's ``last_confirmed_at``; move its ``valid_from`` back to ``earliest``."""
    await conn.execute(_CONFIRM, {"app": app, "user": user, "mid": row_id, "from": earliest})


async def rewindow(conn: AsyncConnection, app: str, user: str, subject: str) -> None:
    """Recompute the validity windows of one subject's facts from their start times."""
    await conn.execute(_REWINDOW, {"app": app, "user": user, "subject": subject})


async def mark_conflict(
    conn: AsyncConnection, app: str, user: str, row_id: str, other: str
) -> None:
    """Leave one row for review (never recalled), naming the fact it conflicts with."""
    await conn.execute(_MARK_CONFLICT, {"app": app, "user": user, "mid": row_id, "other": other})
