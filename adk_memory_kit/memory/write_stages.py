"""Two stages of the write pipeline: verification (the quality gate) and consolidation.

Both are orchestration over ``memory/items_sql.py``; :class:`~.pipeline.WritePipeline` runs them
in order (verify, then documents with redaction, then consolidate, then the write).
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from google.adk.memory.memory_entry import MemoryEntry
from sqlalchemy.ext.asyncio import AsyncConnection

from adk_memory_kit.core.ids import fact_key, memory_row_id
from adk_memory_kit.memory import items_sql
from adk_memory_kit.memory.config import Verifier
from adk_memory_kit.memory.consolidation import Consolidator, IncomingFact, Outcome
from adk_memory_kit.memory.documents import MemoryDocument
from adk_memory_kit.memory.hygiene import Hygiene
from adk_memory_kit.memory.reports import EntryOutcome, MemoryMetrics, WriteReport

# types never consolidated (turns, procedures and templates are kept as written)
_NOT_CONSOLIDATED = {"episode", "procedure", "template"}
Item = tuple[MemoryDocument, Hygiene]
Hook = Callable[[AsyncConnection], Awaitable[None]]
Vectors = Callable[
    [list[MemoryDocument], Mapping[str, items_sql.StoredRow]], Awaitable[dict[str, Any]]
]


async def verify(
    entries: Sequence[MemoryEntry],
    hygienes: Sequence[Hygiene],
    report: WriteReport,
    *,
    min_importance: float | None,
    verifier: Verifier | None,
    metrics: MemoryMetrics,
) -> list[int]:
    """Indexes of the entries that pass the importance threshold and the verifier
    (episodes are not gated); the rejected are reported and counted."""
    keep = []
    for i, (entry, hygiene) in enumerate(zip(entries, hygienes, strict=True)):
        if hygiene.memory_type == "episode":
            keep.append(i)
            continue
        if (
            min_importance is not None
            and hygiene.importance is not None
            and hygiene.importance < min_importance
        ):
            metrics.rejected_low_importance += 1
            report.outcomes.append(EntryOutcome(i, "REJECTED", None, "importance too low"))
            continue
        if verifier is not None:
            verdict = verifier(entry)
            if inspect.isawaitable(verdict):
                verdict = await verdict
            if verdict is not True:
                metrics.rejected_by_verifier += 1
                why = verdict if isinstance(verdict, str) and verdict else "verifier"
                report.outcomes.append(EntryOutcome(i, "REJECTED", None, why[:200]))
                continue
        keep.append(i)
    return keep


async def consolidate(
    conn: AsyncConnection,
    app: str,
    user: str,
    items: list[tuple[int, MemoryDocument, Hygiene]],
    stored: Mapping[str, items_sql.StoredRow],
    report: WriteReport,
    *,
    consolidator: Consolidator,
    vectors_of: Vectors,
    metrics: MemoryMetrics,
) -> tuple[list[Item], dict[str, Any], Hook]:
    """Decide each fact's outcome (ADD, UPDATE, NOOP, CONFLICT) against the user's nearby
    facts; returns the items to write, their vectors and the hook that applies
    confirmations, windows and conflict marks in the write's transaction."""
    vectors = await vectors_of([d for _, d, _ in items], stored)
    kept: list[Item] = []
    confirms: list[tuple[str, datetime | None]] = []
    conflicts: list[tuple[str, str]] = []
    subjects: set[str] = set()
    for index, doc, hygiene in items:
        if (hygiene.memory_type or "fact") in _NOT_CONSOLIDATED:
            kept.append((doc, hygiene))
            report.outcomes.append(EntryOutcome(index, "WRITTEN", doc.id))
            continue
        async with conn.begin():
            near = await items_sql.neighbours(conn, app, user, vectors[doc.id], hygiene.subject, 5)
        when = hygiene.valid_from or doc.event_time
        fact = IncomingFact(doc.text, hygiene.subject, when)
        decision = await consolidator.decide(fact, near)
        metrics.consolidation[decision.outcome.value] += 1
        if decision.outcome is Outcome.NOOP and decision.target_id:
            confirms.append((decision.target_id, decision.earliest))
            report.outcomes.append(EntryOutcome(index, "NOOP", decision.target_id, decision.reason))
            continue
        if any(n.id == doc.id for n in near) and doc.event_id == fact_key(doc.text):
            # the same words said again for another time: a row of its own
            key = f"{doc.event_id}@{when.isoformat()}"
            new_id = memory_row_id(app, user, doc.session_id, key)
            vectors[new_id] = vectors[doc.id]
            doc = dataclasses.replace(doc, id=new_id, event_id=key)
        dated = hygiene if hygiene.valid_from else dataclasses.replace(hygiene, valid_from=when)
        kept.append((doc, dated))
        if hygiene.subject:
            subjects.add(hygiene.subject)
        if decision.outcome is Outcome.CONFLICT and decision.target_id:
            conflicts.append((doc.id, decision.target_id))
        report.outcomes.append(EntryOutcome(index, decision.outcome.value, doc.id, decision.reason))

    async def apply(c: AsyncConnection) -> None:
        for target, earliest in confirms:
            await items_sql.confirm(c, app, user, target, earliest)
        for subject in sorted(subjects):
            await items_sql.lock_subject(c, app, user, subject)
            await items_sql.rewindow(c, app, user, subject)
        for row_id, other in conflicts:
            await items_sql.mark_conflict(c, app, user, row_id, other)

    if any(earliest for _, earliest in confirms):
        # a valid_from moved back changes its subject's windows too
        subjects |= {h.subject for _, _, h in items if h.subject}
    return kept, vectors, apply
