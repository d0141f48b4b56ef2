"""The one redaction gate: every text the kit stores passes through :func:`redact_for_store`.

Memory text and its side fields, episodic payloads and tool arguments, review notes, console
notes, working-memory facts and ``user:`` values written by the kit's tools: each write site
calls this gate (or :func:`redact_value` for JSON-like values, keys included) right before its
write, so derived columns (term statistics, ``tsvector``) are computed from redacted text.
"""

from __future__ import annotations

from typing import Any, TypeVar

from adk_memory_kit.sensitive.detect import SECRET_DETECTORS, detect_sensitive, redact

_T = TypeVar("_T", str, None, str | None)


def redact_for_store(text: _T) -> _T:
    """``text`` with every secret and identifier span replaced by ``[REDACTED:<kind>]``.

    ``None`` and clean text come back unchanged; only the spans are replaced, the sentence
    around them is kept.
    """
    if not text:
        return text
    findings = detect_sensitive(text, SECRET_DETECTORS)
    return redact(text, findings) if findings else text


def redact_value(value: Any) -> Any:
    """A JSON-like value with every string in it (dict keys included) passed through
    :func:`redact_for_store`; other scalars are returned as they are."""
    if isinstance(value, str):
        return redact_for_store(value)
    if isinstance(value, dict):
        return {
            (redact_for_store(k) if isinstance(k, str) else k): redact_value(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact_value(v) for v in value]
    if isinstance(value, tuple):
        return tuple(redact_value(v) for v in value)
    return value
