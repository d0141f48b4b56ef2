"""One migration step, the unit every package's schema is written in (no kit imports, so the
catalog of homes, the migration runner and row-level security can all use it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One migration step.

    Attributes:
        sql: exactly one SQL statement (no bind parameters).
        only_if: an SQL boolean expression; when it is false the statement is skipped (the
            version still advances). Use it for "only if this column is missing" and the like.
    """

    sql: str
    only_if: str | None = None


StepLike = Step | str


def as_steps(steps: Sequence[StepLike]) -> list[Step]:
    """``steps`` as :class:`Step` objects (a plain string is one step, run as written)."""
    return [s if isinstance(s, Step) else Step(s) for s in steps]


__all__ = ["Step", "StepLike", "as_steps"]
