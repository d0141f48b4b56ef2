"""Deterministic tombstones that stand in for pruned tool payloads."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from google.genai import types

from adk_memory_kit.pruning.tokens import json_length, payload_json

DIGEST_CHARS = 12
"""Hex characters of the payload's SHA-256 kept in a tombstone."""

_MAX_DEPTH = 64


def _feed(digest: Any, value: Any, depth: int = 0) -> None:
    """Feed a canonical, type-tagged encoding of ``value`` into ``digest``."""
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
        digest.update(b"s%d:" % len(data))
        digest.update(data)
    elif isinstance(value, (bytes, bytearray)):
        digest.update(b"b%d:" % len(value))
        digest.update(value)
    elif value is None or isinstance(value, (bool, int, float)):
        digest.update(b"v" + repr(value).encode() + b";")
    elif depth < _MAX_DEPTH and isinstance(value, Mapping):
        digest.update(b"{%d:" % len(value))
        for key in sorted(value, key=str):
            _feed(digest, str(key), depth + 1)
            _feed(digest, value[key], depth + 1)
        digest.update(b"}")
    elif isinstance(value, (set, frozenset)):
        _feed(digest, sorted(payload_json(item) for item in value), depth + 1)
    elif depth < _MAX_DEPTH and isinstance(value, (list, tuple)):
        digest.update(b"[%d:" % len(value))
        for item in value:
            _feed(digest, item, depth + 1)
        digest.update(b"]")
    else:
        _feed(digest, "~" + payload_json(value), depth + 1)


def payload_digest(value: Any) -> str:
    """Short, stable SHA-256 digest of a payload (key order does not matter)."""
    digest = hashlib.sha256()
    _feed(digest, value)
    return digest.hexdigest()[:DIGEST_CHARS]


@dataclass(frozen=True)
class PrunedPayload:
    """What is known about a payload that is being replaced by a tombstone."""

    tool: str
    """Name of the tool whose result was removed."""
    call_id: str | None
    """Function-call id, when the request carries one (ADK strips its own ``adk-`` ids)."""
    tokens: int
    """Estimated tokens of the removed function response."""
    chars: int
    """Characters of the payload's compact JSON form (see :func:`json_length`)."""
    digest: str
    """:func:`payload_digest` of the payload."""
    media_parts: int = 0
    """Multimodal parts of the function response removed with the payload."""


TombstoneFactory = Callable[[PrunedPayload], Mapping[str, Any]]
"""Builds the replacement ``response`` dict from a :class:`PrunedPayload`; must be pure."""


def describe_payload(
    response: types.FunctionResponse, tokens: int, chars: int | None = None
) -> PrunedPayload:
    """Describe ``response`` (estimated at ``tokens``; ``chars`` if already known)."""
    if chars is None:
        chars = 0 if response.response is None else json_length(response.response)
    return PrunedPayload(
        tool=response.name or "",
        call_id=response.id or None,
        tokens=tokens,
        chars=chars,
        digest=payload_digest(response.response),
        media_parts=len(response.parts or ()),
    )


def default_tombstone(
    payload: PrunedPayload, *, findings_tool: str | None = "get_findings"
) -> dict[str, Any]:
    """The default tombstone: status, tool, call id, original size, digest and a pointer.

    Contains no clock or random value, so the same payload always yields the same
    bytes and a pruned prefix stays identical from one turn to the next.
    """
    note = f"Raw {payload.tool} result removed from the context to save tokens."
    if findings_tool:
        note += f" Call {findings_tool} for the distilled findings."
    tombstone: dict[str, Any] = {"status": "pruned", "tool": payload.tool}
    if payload.call_id:
        tombstone["call_id"] = payload.call_id
    tombstone["original_tokens"] = payload.tokens
    tombstone["sha256"] = payload.digest
    if payload.media_parts:
        tombstone["media_parts_removed"] = payload.media_parts
    tombstone["note"] = note
    return tombstone


def tombstone_factory(
    tombstone: Mapping[str, Any] | TombstoneFactory | None,
    *,
    findings_tool: str | None = "get_findings",
) -> TombstoneFactory:
    """Normalise the ``tombstone`` option: ``None`` (default), a fixed dict or a factory."""
    if tombstone is None:
        return lambda payload: default_tombstone(payload, findings_tool=findings_tool)
    if isinstance(tombstone, Mapping):
        fixed = dict(tombstone)
        return lambda payload: dict(fixed)
    if callable(tombstone):
        return tombstone
    raise TypeError(
        "tombstone must be None, a dict, or a callable taking a PrunedPayload; "
        f"got {type(tombstone).__name__}"
    )


class TombstoneCache:
    """Bounded cache of built replacements, keyed by payload object identity.

    ADK rebuilds every request from the same stored event objects, so an old
    payload is pruned again on every call; this skips re-hashing it. Entries hold
    a reference to their payload (so an identity match is exact), bounded by
    ``max_chars`` of payload text in total. Payloads and the cached replacement
    ``FunctionResponse`` objects are treated as immutable, as ADK treats the
    objects its requests share with stored events.
    """

    def __init__(self, max_chars: int = 4_000_000) -> None:
        self.max_chars = max_chars
        self._chars = 0
        self._entries: dict[int, tuple[Any, tuple[Any, ...], int, Any]] = {}

    @staticmethod
    def _signature(response: types.FunctionResponse) -> tuple[Any, ...]:
        return (
            response.name,
            response.id,
            response.will_continue,
            response.scheduling,
            len(response.parts or ()),
        )

    def get(self, response: types.FunctionResponse) -> Any:
        """The cached value for ``response``, or ``None``."""
        entry = self._entries.get(id(response.response))
        if (
            entry is not None
            and entry[0] is response.response
            and entry[1] == self._signature(response)
        ):
            return entry[3]
        return None

    def put(self, response: types.FunctionResponse, value: Any, chars: int) -> None:
        """Remember ``value`` for ``response``, evicting the oldest entries over budget."""
        if chars > self.max_chars or not isinstance(response.response, (dict, list, str)):
            return
        entries = self._entries
        key = id(response.response)
        old = entries.pop(key, None)
        if old is not None:
            self._chars -= old[2]
        while entries and self._chars + chars > self.max_chars:
            oldest = entries.pop(next(iter(entries)))
            self._chars -= oldest[2]
        entries[key] = (response.response, self._signature(response), chars, value)
        self._chars += chars

    def clear(self) -> None:
        """Drop every entry."""
        self._entries.clear()
        self._chars = 0

    def __len__(self) -> int:
        return len(self._entries)
