"""Reading the hygiene keys of ``custom_metadata``: time-to-live, importance, subject, type,
tags and validity start.

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

- ``memory_type``: ``fact`` (the default of explicit adds), ``preference``, ``episode`` (the
  type of conversation turns), ``procedure``, ``template`` or any other lower-case word
  (letters, digits, ``_``; at most 40). Procedures are never recalled unless asked for by type.
- ``tags``: a string or a list of strings (lower-cased, at most 32 of at most 64 characters);
  ``search(tags=...)`` returns items holding any of the given tags.
- ``valid_from``: when the fact became true in the world (ISO-8601 or ``datetime``; default:
  the entry's timestamp). ``search(as_of=t)`` returns the facts whose window
  ``[valid_from, valid_to)`` holds ``t``.

Explicit adds (``add_memory``, ``add_events_to_memory``) state these values: re-adding an item
with other values (or none) replaces the stored ones. ``add_session_to_memory`` carries none,
so re-ingesting a session keeps whatever an explicit add set on the same rows.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from adk_memory_kit.core.validation import short
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.documents import checked_utc, clean_text, parse_timestamp
from adk_memory_kit.sensitive import redact_for_store

MEMORY_TYPES = ("fact", "preference", "episode", "procedure", "template")
_TYPE = re.compile(r"[a-z][a-z0-9_]{0,39}")
MAX_TAGS = 32


@dataclass
class Hygiene:
    expires_at: datetime | None = None
    importance: float | None = None
    subject: str | None = None
    memory_type: str | None = None
    tags: list[str] = field(default_factory=list)
    valid_from: datetime | None = None


def check_memory_type(value: object, name: str = "memory_type") -> str:
    """``value`` as a memory type (lower-case word), or :class:`InvalidInputError`."""
    text = value.strip().lower() if isinstance(value, str) else None
    if not text or not _TYPE.fullmatch(text):
        raise InvalidInputError(
            f"{name} must be a lower-case word such as {', '.join(MEMORY_TYPES)}"
            " (letters, digits, _; at most 40)"
        )
    return text


def check_tags(value: object, name: str = "tags") -> list[str]:
    """``value`` (a string or a list of strings) as sorted, de-duplicated, lower-case tags."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple, set, frozenset)):
        raise InvalidInputError(f"{name} must be a string or a list of strings")
    tags = set()
    for item in items:
        if not isinstance(item, str) or not item.strip() or len(item.strip()) > 64:
            raise InvalidInputError(f"each of {name} must be a non-empty string of at most 64")
        # gated before lower-casing: a key id lower-cased is no longer a key id to a detector
        tags.add(clean_text(redact_for_store(item.strip()).lower()))
    if len(tags) > MAX_TAGS:
        raise InvalidInputError(f"{name} holds {len(tags)} tags; at most {MAX_TAGS} are allowed")
    return sorted(tags)


def _time(value: object, name: str) -> datetime:
    if isinstance(value, datetime):  # naive means UTC, as for an ISO string
        return checked_utc(value, name)
    if not isinstance(value, str):
        raise InvalidInputError(f"{name} must be an ISO-8601 string or a datetime")
    return parse_timestamp(value)


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
            raise InvalidInputError(f"ttl must be a positive number of seconds, got {short(ttl)}")
        try:
            expires_at = now + timedelta(seconds=seconds)
        except OverflowError as exc:
            raise InvalidInputError(f"ttl {short(ttl)} seconds is too large") from exc
        hygiene.expires_at = checked_utc(expires_at, "expiry (now + ttl)")
    expires = metadata.pop("expires_at", None)
    if expires is not None:
        hygiene.expires_at = _time(expires, "expires_at")
    memory_type = metadata.pop("memory_type", None)
    if memory_type is not None:
        hygiene.memory_type = check_memory_type(memory_type)
    tags = metadata.pop("tags", None)
    if tags is not None:
        hygiene.tags = check_tags(tags)
    valid_from = metadata.pop("valid_from", None)
    if valid_from is not None:
        hygiene.valid_from = _time(valid_from, "valid_from")
    importance = metadata.pop("importance", None)
    if importance is not None:
        value = _number(importance)
        if value is None:
            raise InvalidInputError(
                f"importance must be a number in [0, 1], got {short(importance)}"
            )
        if not 0.0 <= value <= 1.0:  # NaN fails this too
            raise InvalidInputError(f"importance must be in [0, 1], got {importance}")
        hygiene.importance = value
    subject = metadata.pop("subject", None)
    if subject is not None:
        if not isinstance(subject, str) or not subject.strip():
            raise InvalidInputError(f"subject must be a non-empty string, got {short(subject)}")
        hygiene.subject = clean_text(redact_for_store(subject.strip()).lower())
    return hygiene
