"""Assertions about what the redaction gate keeps of a text (tests/sensitive)."""

from __future__ import annotations

from adk_memory_kit.sensitive import redact_for_store


def assert_gone(text: str, *secrets: str) -> None:
    """None of ``secrets`` survives the gate in ``text``."""
    stored = redact_for_store(text)
    for secret in secrets:
        assert secret not in stored, (text, stored)


def assert_kept(text: str) -> None:
    """The gate keeps ``text`` whole."""
    assert redact_for_store(text) == text, redact_for_store(text)
