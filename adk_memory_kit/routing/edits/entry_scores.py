"""Reading a memory entry for scoring: its text, its search score; rows of unit vectors."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def entry_text(entry: Any) -> str:
    """The text of a ``MemoryEntry`` (its parts joined)."""
    parts = entry.content.parts if entry.content else None
    return " ".join(p.text or "" for p in parts or [])


def unit_rows(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    """The vectors as rows of unit length (a zero vector stays near zero)."""
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.clip(norms, 1e-12, None)


def dense_score(entry: Any) -> float:
    """The entry's query similarity from the search (``scores.dense``); 0.0 without one."""
    scores = (entry.custom_metadata or {}).get("scores") or {}
    dense = scores.get("dense")
    return float(dense) if dense is not None else 0.0
