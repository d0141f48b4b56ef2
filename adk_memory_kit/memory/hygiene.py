"""Reading the hygiene keys of ``custom_metadata``: time-to-live, importance and subject.

- ``ttl`` / ``ttl_seconds``: seconds (number) or a ``timedelta``; the item expires that long after
  it is written and is never returned afterwards (``purge_expired`` deletes it).
- ``expires_at``: an explicit ISO-8601 expiry time.
- ``importance``: a number in [0, 1]; stored and returned, used to order equally relevant items.
- ``subject``: a supersession key (e.g. ``diet``). A new fact with the same subject marks the old
  ones superseded (``valid_to`` set) instead of deleting them; search ranks current facts first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.documents import parse_timestamp


@dataclass
class Hygiene:
    expires_at: datetime | None = None
    importance: float | None = None
    subject: str | None = None


def pop_hygiene(metadata: dict[str, Any], now: datetime | None = None) -> Hygiene:
    """Remove and validate the hygiene keys from ``metadata`` (mutated in place)."""
    now = now or datetime.now(timezone.utc)
    hygiene = Hygiene()
    ttl = metadata.pop("ttl_seconds", None)
    ttl = metadata.pop("ttl", ttl)
    if ttl is not None:
        if isinstance(ttl, timedelta):
            ttl = ttl.total_seconds()
        if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or ttl <= 0:
            raise InvalidInputError(f"ttl must be a positive number of seconds, got {ttl!r}")
        hygiene.expires_at = now + timedelta(seconds=float(ttl))
    expires = metadata.pop("expires_at", None)
    if expires is not None:
        hygiene.expires_at = expires if isinstance(expires, datetime) else parse_timestamp(expires)
    importance = metadata.pop("importance", None)
    if importance is not None:
        if isinstance(importance, bool) or not isinstance(importance, (int, float)):
            raise InvalidInputError(f"importance must be a number in [0, 1], got {importance!r}")
        if not 0.0 <= float(importance) <= 1.0:
            raise InvalidInputError(f"importance must be in [0, 1], got {importance}")
        hygiene.importance = float(importance)
    subject = metadata.pop("subject", None)
    if subject is not None:
        if not isinstance(subject, str) or not subject.strip():
            raise InvalidInputError(f"subject must be a non-empty string, got {subject!r}")
        hygiene.subject = subject.strip().lower()
    return hygiene
