"""Counts in words for the command lines and the demo: ``1 memory``, ``2 facts``."""

from __future__ import annotations

from collections.abc import Mapping


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` with ``noun`` in the right number: ``1 memory``, ``2 memories``, ``0 facts``."""
    if count == 1:
        return f"{count} {noun}"
    if plural is None:
        plural = (
            noun[:-1] + "ies" if noun.endswith("y") and noun[-2:-1] not in "aeiou" else noun + "s"
        )
    return f"{count} {plural}"


def describe_counts(counts: Mapping[str, int]) -> str:
    """Memory counts by kind as words: ``{'fact': 2, 'event': 1}`` -> ``2 facts, 1 event``."""
    if not counts:
        return "empty"
    return ", ".join(counted(n, kind) for kind, n in sorted(counts.items()))
