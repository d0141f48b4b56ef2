"""Between the store's rows and ADK's types: search arguments in, ``MemoryEntry`` out."""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.core.validation import check_bool, check_strings, short
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.config import MAX_LIMIT
from adk_memory_kit.memory.documents import checked_utc, parse_timestamp
from adk_memory_kit.memory.hygiene import check_memory_type, check_tags
from adk_memory_kit.memory.search import SearchFilters


def search_limit(limit: object, default: int) -> int:
    """The result cap of one search: ``limit`` (a whole number in 1..MAX_LIMIT) or ``default``."""
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, numbers.Integral)):
        raise InvalidInputError(f"limit must be a whole number, got {short(limit)}")
    cap = default if limit is None else int(limit)
    if not 0 < cap <= MAX_LIMIT:
        raise InvalidInputError(f"limit must be between 1 and {MAX_LIMIT}, got {cap}")
    return cap


def search_filters(
    types: Sequence[str] | None,
    tags: Sequence[str] | None,
    as_of: datetime | str | None,
    include_superseded: bool,
) -> SearchFilters:
    """The checked filters of one search (each refusal names its argument)."""
    types = check_strings("types", types)
    check_bool("include_superseded", include_superseded)
    return SearchFilters(
        types=None if types is None else tuple(check_memory_type(t, "types") for t in types),
        tags=None if tags is None else tuple(check_tags(tags)),
        as_of=_as_of(as_of),
        include_superseded=include_superseded,
    )


def _as_of(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return checked_utc(value, "as_of")
    if isinstance(value, str):
        if len(value) > 64:
            raise InvalidInputError(
                "as_of must be an ISO-8601 date or time (at most 64 characters)"
            )
        return parse_timestamp(value)
    raise InvalidInputError("as_of must be a datetime or an ISO-8601 string")


def entry_from_row(row: Mapping[str, Any]) -> MemoryEntry:
    """A search row as ADK's ``MemoryEntry``: the scores and hygiene values in its metadata."""
    event_time: datetime = row["event_time"]
    metadata = dict(row["metadata"] or {})
    metadata.update(
        score=float(row["score"]),
        session_id=row["session_id"],
        event_id=row["event_id"],
        kind=row["kind"],
        ingested_at=row["ingested_at"].astimezone(timezone.utc).isoformat(),
    )
    # the score parts the memory console shows (None: the row was not in that ranked list)
    metadata["scores"] = {
        "dense": _float_or_none(row.get("dense_score")),
        "bm25": _float_or_none(row.get("bm25_score")),
        "exact": _float_or_none(row.get("exact_score")),
        "fused": float(row["score"]),
    }
    for key in ("subject", "importance", "memory_type", "superseded_reason", "superseded_by"):
        if row.get(key) is not None:
            metadata[key] = row[key]
    metadata["tags"] = list(row.get("tags") or [])
    for key in ("valid_from", "recorded_at", "last_accessed_at", "last_confirmed_at"):
        if row.get(key) is not None:
            metadata[key] = row[key].astimezone(timezone.utc).isoformat()
    metadata["access_count"] = int(row.get("access_count") or 0)
    metadata["scope"] = row.get("scope") or "user"  # issue 47: whose memory it is
    metadata["pinned"] = bool(row.get("pinned"))
    if row["valid_to"] is not None:
        metadata["superseded_at"] = row["valid_to"].astimezone(timezone.utc).isoformat()
    if row["expires_at"] is not None:
        metadata["expires_at"] = row["expires_at"].astimezone(timezone.utc).isoformat()
    return MemoryEntry(
        id=str(row["id"]),
        author=row["author"],
        timestamp=event_time.astimezone(timezone.utc).isoformat(),
        custom_metadata=metadata,
        content=types.Content(role=row["role"] or "user", parts=[types.Part(text=row["text"])]),
    )


def _float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)
