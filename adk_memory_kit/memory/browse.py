"""Reading one user's memories without a query: a sorted, filtered page, and everything at once.

The listing is unranked (no embedding, no search): it is how an operator browses what the kit
holds about a user (the memory console) and how a user's data is exported (right of access).
Every statement carries ``app_name`` and ``user_id`` equality, like the rest of the memory
table's SQL (``memory/items_sql.py``); nothing here writes, and a look is never counted as a use.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from google.adk.memory.memory_entry import MemoryEntry
from sqlalchemy import text

from adk_memory_kit.core.scope import user_scoped
from adk_memory_kit.core.validation import check_scope
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.hygiene import check_memory_type, check_tags
from adk_memory_kit.memory.tables import TABLE

if TYPE_CHECKING:
    from adk_memory_kit.memory.store import MemoryStore

#: ``sort`` -> the ORDER BY key (newest / largest first with ``descending``; empty last).
SORTS: dict[str, str] = {
    "time": "coalesce(t.valid_from, t.event_time)",
    "recorded": "t.recorded_at",
    "importance": "coalesce(t.importance, 0)",
    "last_used": "t.last_accessed_at",
    "uses": "t.access_count",
}
#: ``state``: current items only, superseded (corrected, replaced) only, or both.
STATES = ("current", "superseded", "all")
MAX_PAGE = 500

_COLUMNS = """t.id, t.session_id, t.event_id, t.kind, t.author, t.role, t.text, t.event_time,
       t.ingested_at, t.subject, t.valid_to, t.expires_at, t.importance, t.metadata,
       t.memory_type, t.tags, t.valid_from, t.recorded_at, t.last_accessed_at,
       t.access_count, t.last_confirmed_at, t.pinned, t.superseded_reason, t.superseded_by,
       t.review_state, t.scope, t.entities"""

_STATE_SQL = {
    "current": " AND t.valid_to IS NULL",
    "superseded": " AND t.valid_to IS NOT NULL",
    "all": "",
}


@dataclass
class MemoryPage:
    """One page of a user's memories: ``items`` (``MemoryEntry`` shaped like ``search``'s,
    without scores), ``total`` matching the filters, and where the page starts."""

    items: list[MemoryEntry] = field(default_factory=list)
    total: int = 0
    offset: int = 0
    limit: int = 50

    @property
    def has_next(self) -> bool:
        return self.offset + len(self.items) < self.total


def _where(types: Sequence[str] | None, tags: Sequence[str] | None, contains: str, state: str):
    """The conditions after the user's scope (each statement names the user itself)."""
    sql = _STATE_SQL[state]
    params: dict[str, Any] = {}
    if types:
        sql += " AND coalesce(t.memory_type, 'fact') = ANY(CAST(:types AS text[]))"
        params["types"] = list(types)
    if tags:
        sql += " AND t.tags && CAST(:tags AS text[])"
        params["tags"] = list(tags)
    if contains:
        sql += " AND strpos(lower(t.text), :contains) > 0"
        params["contains"] = contains.lower()
    return sql, params


@user_scoped
async def list_memories(
    store: MemoryStore,
    *,
    app_name: str,
    user_id: str,
    sort: str = "time",
    descending: bool = True,
    types: Sequence[str] | None = None,
    tags: Sequence[str] | None = None,
    contains: str = "",
    state: str = "current",
    offset: int = 0,
    limit: int = 50,
) -> MemoryPage:
    """A page of the user's memories, sorted by ``sort`` (see :data:`SORTS`), filtered by
    memory type, tags (any of), a case-insensitive substring and ``state``. Read-only."""
    check_scope(app_name, user_id)
    if sort not in SORTS:
        raise InvalidInputError(f"sort must be one of {', '.join(SORTS)}")
    if state not in STATES:
        raise InvalidInputError(f"state must be one of {', '.join(STATES)}")
    for name, value, low, high in (("offset", offset, 0, 2**31), ("limit", limit, 1, MAX_PAGE)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise InvalidInputError(f"{name} must be a whole number")
        if not low <= value <= high:
            raise InvalidInputError(f"{name} must be between {low} and {high}")
    if not isinstance(contains, str):
        raise InvalidInputError("contains must be a string")
    checked_types = [check_memory_type(t, "types") for t in types or ()]
    checked_tags = check_tags(list(tags)) if tags else []
    where, params = _where(checked_types, checked_tags, contains.strip(), state)
    params |= {"app": app_name, "user": user_id, "offset": int(offset), "limit": int(limit)}
    direction = "DESC" if descending else "ASC"
    query = text(
        f"SELECT {_COLUMNS} FROM {TABLE} t WHERE t.app_name = :app AND t.user_id = :user{where}"
        f" ORDER BY {SORTS[sort]} {direction} NULLS LAST, t.event_time DESC, t.id"
        " LIMIT :limit OFFSET :offset"
    )
    count = text(
        f"SELECT count(*) FROM {TABLE} t WHERE t.app_name = :app AND t.user_id = :user{where}"
    )
    engine = await store.ready()
    async with engine.connect() as conn:
        rows = [r._mapping for r in await conn.execute(query, params)]
        total = int((await conn.execute(count, params)).scalar_one())
    return MemoryPage([_entry(r) for r in rows], total, int(offset), int(limit))


@user_scoped
async def export_memories(
    store: MemoryStore, *, app_name: str, user_id: str
) -> list[dict[str, Any]]:
    """Every memory row of the user (current, superseded and held for review), oldest first,
    as JSON-ready dicts: the stored fields, without the embedding and the search index. Each
    row's ``scope`` says whose it is (``user``, or ``agent:<name>`` for an agent's private
    rows of this user); shared rows (app, group) belong to no user and are never exported.
    ``entities``: the entity keys each row names (issue 48; the entity table,
    ``adk_memory_entities``, is their per-user count and holds nothing else)."""
    check_scope(app_name, user_id)
    query = text(
        f"SELECT {_COLUMNS} FROM {TABLE} t WHERE t.app_name = :app AND t.user_id = :user"
        " ORDER BY t.recorded_at, t.event_time, t.id"
    )
    engine = await store.ready()
    async with engine.connect() as conn:
        rows = [r._mapping for r in await conn.execute(query, {"app": app_name, "user": user_id})]
    return [_jsonable(dict(r)) for r in rows]


def _entry(row: Any) -> MemoryEntry:
    from adk_memory_kit.memory.entries import entry_from_row

    entry = entry_from_row({**row, "score": 0.0})
    meta = dict(entry.custom_metadata or {})
    for key in ("score", "scores"):
        meta.pop(key, None)
    if row["review_state"]:
        meta["review_state"] = row["review_state"]
    return entry.model_copy(update={"custom_metadata": meta})


def _jsonable(row: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in row.items():
        if hasattr(value, "isoformat"):
            value = value.isoformat()
        elif key == "id":
            value = str(value)
        elif isinstance(value, (list, tuple)):
            value = list(value)
        out[key] = value
    return out
