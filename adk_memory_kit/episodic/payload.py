"""Making a payload safe to store: secrets redacted, size capped, hash kept.

Runs in the log's background writer, never on the agent's hot path.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from adk_memory_kit.pruning.tokens import payload_json
from adk_memory_kit.sensitive import redact_for_store

DEFAULT_MAX_PAYLOAD_BYTES = 16_384
"""Payloads whose redacted JSON is larger are stored truncated (with size and sha256)."""

_MAX_DEPTH = 32


def _redact_pair(key: str, value: str) -> str:
    """``value`` redacted, counting its key: ``{"api_key": "x"}`` is a credential."""
    if redact_for_store(f"{key}: {value}") != f"{key}: {value}":
        if redact_for_store(value) == value:  # the key made it a secret: hide all of it
            return "[REDACTED:credential]"
    return redact_for_store(value)


def redact_value(value: Any, _depth: int = 0) -> Any:
    """A JSON-able copy of ``value`` with every string passed through the secret detectors.

    Dict keys are kept; a string value whose key names a secret (``password``, ``api_key``,
    ``token`` ...) is redacted whole. Non-JSON objects become their JSON form first.
    """
    if isinstance(value, str):
        return redact_for_store(value.replace("\x00", "")) if value else value
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if _depth >= _MAX_DEPTH:
        return redact_for_store(payload_json(value))
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            key = redact_for_store((key if isinstance(key, str) else str(key)).replace("\x00", ""))
            if isinstance(item, str) and item:
                out[key] = _redact_pair(key, item.replace("\x00", ""))
            else:
                out[key] = redact_value(item, _depth + 1)
        return out
    if isinstance(value, (list, tuple, set, frozenset)):
        return [redact_value(item, _depth + 1) for item in value]
    try:
        return redact_value(json.loads(payload_json(value)), _depth + 1)
    except ValueError:
        return redact_for_store(payload_json(value))


def prepare_payload(value: Any, max_bytes: int = DEFAULT_MAX_PAYLOAD_BYTES) -> str:
    """The JSON text to store for ``value``: redacted, and truncated above ``max_bytes``.

    A truncated payload is ``{"truncated": true, "size": n, "sha256": h, "head": text}``
    where ``n`` and ``h`` are the byte size and SHA-256 of the full *redacted* JSON (a hash
    of the raw text could confirm a guessed secret) and ``head`` its first characters.
    """
    redacted = redact_value(value if value is not None else {})
    text = json.dumps(redacted, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    data = text.encode("utf-8")
    if len(data) <= max_bytes:
        return text
    head = data[: max(0, max_bytes - 200)].decode("utf-8", errors="ignore")
    return json.dumps(
        {
            "truncated": True,
            "size": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
            "head": head,
        },
        ensure_ascii=False,
    )
