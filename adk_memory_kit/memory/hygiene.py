"""Reading the hygiene keys of ``custom_metadata``: time-to-live, importance and subject.

- ``ttl`` / ``ttl_seconds``: seconds (a finite positive number) or a ``timedelta``; the item
  expires that long after it is written and is never returned afterwards (``purge_expired``
  deletes it). The expiry must fall before the year 9999.
- ``expires_at``: an explicit expiry time, an ISO-8601 string or a ``datetime``; naive values
  (no offset) are UTC, whichever form they come in.
- ``importance``: a number in [0, 1]; stored and returned, used to order equally relevant items.
- ``subject``: a supersession key (e.g. ``diet``). The fact with the latest date (its
  ``timestamp``, not the order of the writes) is current; older facts with the same subject are
  kept, marked superseded (``valid_to`` = the date of the fact that replaced them), and search
  ranks current facts first. A fact added after a newer one is stored already superseded.

Explicit adds (``add_memory``, ``add_events_to_memory``) state these values: re-adding an item
with other values (or none) replaces the stored ones. ``add_session_to_memory`` carries none,
so re-ingesting a session keeps whatever an explicit add set on the same rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.documents import checked_utc, clean_text, parse_timestamp


@dataclass
class Hygiene:
    expires_at: datetime | None = None
    importance: float | None = None
    subject: str | None = None


def _number(value: Any) -> float | None:
    """``value`` as a float, or ``None`` if it is not a real number (bools are not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:
        return math.inf


def pop_hygiene(metadata: dict[str, Any], now: datetime | None = None) -> Hygiene:
    """Remove and validate the hygiene keys from ``metadata`` (mutated in place)."""
    now = now or datetime.now(timezone.utc)
    hygiene = Hygiene()
    ttl = metadata.pop("ttl_seconds", None)
    ttl = metadata.pop("ttl", ttl)
    if ttl is not None:
        if isinstance(ttl, timedelta):
            ttl = ttl.total_seconds()
        seconds = _number(ttl)
        if seconds is None or not math.isfinite(seconds) or seconds <= 0:
            raise InvalidInputError(f"ttl must be a positive number of seconds, got {ttl!r}")
        try:
            expires_at = now + timedelta(seconds=seconds)
        except OverflowError as exc:
            raise InvalidInputError(f"ttl {ttl!r} seconds is too large") from exc
        hygiene.expires_at = checked_utc(expires_at, "expiry (now + ttl)")
    expires = metadata.pop("expires_at", None)
    if expires is not None:
        if isinstance(expires, datetime):  # naive means UTC, as for an ISO string
            hygiene.expires_at = checked_utc(expires, "expires_at")
        else:
            hygiene.expires_at = parse_timestamp(expires)
    importance = metadata.pop("importance", None)
    if importance is not None:
        value = _number(importance)
        if value is None:
            raise InvalidInputError(f"importance must be a number in [0, 1], got {importance!r}")
        if not 0.0 <= value <= 1.0:  # NaN fails this too
            raise InvalidInputError(f"importance must be in [0, 1], got {importance}")
        hygiene.importance = value
    subject = metadata.pop("subject", None)
    if subject is not None:
        if not isinstance(subject, str) or not subject.strip():
            raise InvalidInputError(f"subject must be a non-empty string, got {subject!r}")
        hygiene.subject = clean_text(subject.strip().lower())
    return hygiene
