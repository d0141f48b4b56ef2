"""Shared input validation: ids, the (app, user) scope, text PostgreSQL can store, keys.

Every function raises :class:`~adk_memory_kit.errors.InvalidInputError` naming the bad
argument, before any query runs.

Limits (docs/limits.md): an app name or user id holds at most :data:`MAX_SCOPE_CHARS`
characters, any other id (session, memory key, reviewer) at most :data:`MAX_ID_CHARS`; ids
stay far below PostgreSQL's btree limit (about 2,700 bytes per index row), so a long id is
refused with a clear error instead of failing inside an index.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from adk_memory_kit.errors import InvalidInputError

_SURROGATE = re.compile("[\ud800-\udfff]")
_KEY_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")

#: The longest session id, memory key or other id the kit stores (characters).
MAX_ID_CHARS = 256
#: The longest app name or user id (characters).
MAX_SCOPE_CHARS = 128


def check_identifier(label: str, value: Any, *, max_chars: int = MAX_ID_CHARS) -> None:
    """Refuse an id that is not a non-empty string, is longer than ``max_chars``, or holds
    NUL bytes or lone surrogates."""
    if not isinstance(value, str):
        raise InvalidInputError(f"{label} must be a non-empty string, got {type(value).__name__}")
    if not value.strip():
        raise InvalidInputError(f"{label} must be a non-empty string, got {value!r}")
    if len(value) > max_chars:
        raise InvalidInputError(
            f"{label} is {len(value)} characters long; the limit is {max_chars} (docs/limits.md)"
        )
    if "\x00" in value:
        raise InvalidInputError(f"{label} must not contain NUL bytes")
    if _SURROGATE.search(value):
        raise InvalidInputError(f"{label} must not contain lone UTF-16 surrogates")


def check_positive_int(label: str, value: Any, *, unit: str = "") -> int:
    """``value`` if it is a whole number of at least 1 (``bool`` refused); ``unit`` names what
    it counts in the error ("rows", "megabytes")."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        counted = f" of {unit}" if unit else ""
        raise InvalidInputError(f"{label} must be a positive whole number{counted}")
    return value


def check_mapping(label: str, value: Any) -> dict[str, Any]:
    """``value`` as a new dict (``None``: empty); anything but a mapping is refused."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(f"{label} must be a mapping (dict), got {type(value).__name__}")
    return dict(value)


def check_scope(app_name: Any, user_id: Any) -> None:
    """Refuse a missing or malformed app name or user id before any query runs."""
    for label, value in (("app_name", app_name), ("user_id", user_id)):
        check_identifier(label, value, max_chars=MAX_SCOPE_CHARS)


def clean_text(value: str) -> str:
    """Text PostgreSQL (UTF-8) can store: NUL and lone surrogates become U+FFFD.

    PostgreSQL text cannot hold NUL, and a lone UTF-16 surrogate (e.g. from a broken JSON
    escape) cannot be encoded as UTF-8; each becomes one U+FFFD so nothing else shifts. A
    surrogate *pair* is joined into the character it encodes.
    """
    value = value.replace("\x00", "\ufffd")
    if _SURROGATE.search(value):
        value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return value


def normalize_key(key: str | None) -> str | None:
    """Lower-case ``key`` with spaces/dashes as ``_``; ``None`` for empty, error if malformed."""
    if key is None:
        return None
    if not isinstance(key, str):
        raise InvalidInputError(f"a memory key must be a string, got {type(key).__name__}")
    norm = re.sub(r"[\s\-]+", "_", key.strip().lower())
    if not norm:
        return None
    if not _KEY_RE.match(norm):
        raise InvalidInputError(
            f"memory key {key!r} is not usable; use 1-64 characters a-z, 0-9 and _, "
            "starting with a letter (e.g. 'seat' or 'trip_destination')"
        )
    return norm
