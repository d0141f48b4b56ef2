"""Why ingestion never stores a sentence, whoever said it: one rule for the write policy and
the edit handlers (a module of its own, so the handlers need not import the write policy)."""

from __future__ import annotations

from collections.abc import Sequence

from adk_memory_kit.sensitive import Detector, detect_sensitive
from adk_memory_kit.text.signals import is_factless_question, is_filler


def unstored_reason(sentence: str, detectors: Sequence[Detector] | None = None) -> str | None:
    """Why ingestion never stores ``sentence``, whoever said it and wherever it was routed:
    ``"sensitive"`` (any detector), ``"filler"``, ``"question without a fact"``; ``None``:
    none of these."""
    if detect_sensitive(sentence, detectors):
        return "sensitive"
    if is_filler(sentence):
        return "filler"
    if is_factless_question(sentence):
        return "question without a fact"
    return None
