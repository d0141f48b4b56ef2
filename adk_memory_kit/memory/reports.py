"""What the hygiene operations report back: write outcomes, metrics, purges, corrections.

No report holds user text: rows are named by id, reasons are fixed phrases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from adk_memory_kit.memory.items_sql import StaleRow


@dataclass(frozen=True)
class SessionWrite:
    """What one ``add_session_to_memory`` call left in memory for the session.

    ``rows_stored`` is the number of memory rows that now hold the session's events (the write
    policy stores only what it selects, so it is usually fewer than the events);
    ``rows_written`` of them were inserted or changed by this call. ``status`` is
    ``"written"``, ``"empty"`` (the session has no events; nothing changed) or
    ``"older_snapshot"`` (a newer copy of the session was already written; nothing changed and
    ``rows_stored`` counts what that copy left).
    """

    session_id: str
    rows_stored: int
    rows_written: int = 0
    status: str = "written"


@dataclass(frozen=True)
class EntryOutcome:
    """What happened to one entry of an ``add_memory`` call.

    ``outcome``: ``ADD``, ``UPDATE``, ``NOOP``, ``CONFLICT`` (stored for review, not recalled),
    ``WRITTEN`` (no consolidator: upserted as given) or ``REJECTED`` (by the verifier or the
    importance threshold; nothing stored). ``memory_id``: the row written or the stored fact
    it duplicates (NOOP).
    """

    index: int
    outcome: str
    memory_id: str | None = None
    reason: str = ""


@dataclass
class WriteReport:
    """The outcome of every entry of one ``add_memory`` call, in the order given."""

    outcomes: list[EntryOutcome] = field(default_factory=list)

    @property
    def rejected(self) -> list[EntryOutcome]:
        return [o for o in self.outcomes if o.outcome == "REJECTED"]

    def count(self, outcome: str) -> int:
        return sum(o.outcome == outcome for o in self.outcomes)


@dataclass
class MemoryMetrics:
    """Counters of one service instance (since it was created)."""

    written: int = 0
    rejected_by_verifier: int = 0
    rejected_low_importance: int = 0
    consolidation: dict[str, int] = field(
        default_factory=lambda: {"ADD": 0, "UPDATE": 0, "NOOP": 0, "CONFLICT": 0}
    )
    corrections: int = 0
    accesses_recorded: int = 0
    stale_purged: int = 0

    @property
    def rejected(self) -> int:
        return self.rejected_by_verifier + self.rejected_low_importance


@dataclass(frozen=True)
class PurgeReport:
    """``purge_stale``'s result: what was (or, in a dry run, would be) deleted."""

    dry_run: bool
    cutoff: datetime
    rows: list[tuple[str, StaleRow]]  # (user_id, row)
    deleted: int


@dataclass(frozen=True)
class Correction:
    """``correct_memory``'s result: the superseded row and the new current one."""

    old_id: str
    new_id: str
    corrected_at: datetime
