"""Shared input validation: ids, the (app, user) scope, text PostgreSQL can store, keys.

Every function raises :class:`~adk_memory_kit.errors.InvalidInputError` naming the bad
argument, before any query runs.

Limits (docs/limits.md): an app name or user id holds at most :data:`MAX_SCOPE_CHARS`
characters, any other id (session, memory key, reviewer) at most :data:`MAX_ID_CHARS`; ids
stay far below PostgreSQL's btree limit (about 2,700 bytes per index row), so a long id is
refused with a clear error instead of failing inside an index.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from adk_memory_kit.core.memory_scopes import SHARED_PREFIX
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
        raise InvalidInputError(f"{label} must be a non-empty string, got {short(value)}")
    if len(value) > max_chars:
        raise InvalidInputError(
            f"{label} is {len(value)} characters long; the limit is {max_chars} (docs/limits.md)"
        )
    if "\x00" in value:
        raise InvalidInputError(f"{label} must not contain NUL bytes")
    if _SURROGATE.search(value):
        raise InvalidInputError(f"{label} must not contain lone UTF-16 surrogates")


#: At most this many characters of a bad value are quoted in an error message.
QUOTE_CHARS = 40


def short(value: Any) -> str:
    """A bad value for an error message: its ``repr`` cut to :data:`QUOTE_CHARS` characters
    (a long value is never echoed); a value whose ``repr`` fails is named by its type."""
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__
        return f"<{type(value).__name__}>"
    if len(text) > QUOTE_CHARS:
        return f"{text[:QUOTE_CHARS]}... ({len(text)} characters)"
    return text


def check_number(
    label: str,
    value: Any,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    integer: bool = False,
    allow_none: bool = False,
    exclusive_minimum: bool = False,
) -> Any:
    """``value`` if it is a real number (``bool`` refused; a whole number when ``integer``),
    finite (no NaN, no infinity) and within ``[minimum, maximum]``; else an
    :class:`InvalidInputError` naming ``label``. ``None`` passes with ``allow_none``."""
    if value is None and allow_none:
        return None
    kind = "a whole number" if integer else "a number"
    wanted = numbers.Integral if integer else numbers.Real
    if isinstance(value, bool) or not isinstance(value, wanted):
        raise InvalidInputError(f"{label} must be {kind}, got {type(value).__name__}")
    if not integer and not math.isfinite(float(value)):
        raise InvalidInputError(f"{label} must be a finite number, got {short(value)}")
    measured: float = value if isinstance(value, (int, float)) else float(value)
    low = minimum is not None and (measured <= minimum if exclusive_minimum else measured < minimum)
    if low or (maximum is not None and measured > maximum):
        bounds = (
            f"{'above' if exclusive_minimum else 'at least'} {minimum}"
            if maximum is None
            else f"between {minimum} and {maximum}"
            if minimum is not None
            else f"at most {maximum}"
        )
        raise InvalidInputError(f"{label} must be {bounds}, got {short(value)}")
    return value


def check_bool(label: str, value: Any) -> bool:
    """``value`` if it is ``True`` or ``False`` (``"no"`` and ``0`` are refused, not guessed)."""
    if not isinstance(value, bool):
        raise InvalidInputError(f"{label} must be true or false, got {type(value).__name__}")
    return value


#: The longest duration the kit accepts (about 1,000 years; larger ones overflow dates).
MAX_DURATION = timedelta(days=365_000)


def check_duration(label: str, value: Any, *, allow_zero: bool = False) -> timedelta:
    """``value`` if it is a positive ``timedelta`` (zero with ``allow_zero``) of at most
    :data:`MAX_DURATION`."""
    if not isinstance(value, timedelta):
        raise InvalidInputError(f"{label} must be a timedelta, got {type(value).__name__}")
    if value < timedelta(0) or (value == timedelta(0) and not allow_zero):
        raise InvalidInputError(f"{label} must be a positive timedelta")
    if value > MAX_DURATION:
        raise InvalidInputError(f"{label} must be at most {MAX_DURATION.days} days")
    return value


def check_strings(label: str, value: Any, *, allow_none: bool = True) -> list[str] | None:
    """A string or a list/tuple/set of strings as a list (``None`` with ``allow_none``)."""
    if value is None and allow_none:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple, set, frozenset)) or not all(
        isinstance(v, str) for v in value
    ):
        raise InvalidInputError(f"{label} must be a string or a list of strings")
    return list(value)


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
    if user_id.startswith(SHARED_PREFIX):
        raise InvalidInputError(
            f"user_id must not start with {SHARED_PREFIX!r}: that prefix names shared memory "
            "(docs/scopes.md)"
        )


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
            f"memory key {short(key)} is not usable; use 1-64 characters a-z, 0-9 and _, "
            "starting with a letter (e.g. 'seat' or 'trip_destination')"
        )
    return norm
