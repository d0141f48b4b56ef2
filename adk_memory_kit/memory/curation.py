"""Memory hygiene on :class:`PgVectorMemoryService` (issue 16): filtered and time-travel search,
use-based decay, pins, the quality gate, corrections and consolidation on write.

This mixin holds the orchestration; every statement lives in ``memory/store.py`` and
``memory/search.py``. See docs/hygiene.md.
"""

from __future__ import annotations

import dataclasses
import inspect
import logging
import numbers
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from google.adk.memory.base_memory_service import SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types as genai_types
from sqlalchemy.ext.asyncio import AsyncConnection

from adk_memory_kit.core.ids import fact_key, memory_row_id
from adk_memory_kit.core.scope import user_scope
from adk_memory_kit.core.validation import (
    check_bool,
    check_duration,
    check_identifier,
    check_number,
    check_scope,
    check_strings,
    clean_text,
    short,
)
from adk_memory_kit.db.fence import fences_of, guard_write
from adk_memory_kit.db.rls import user_transaction
from adk_memory_kit.errors import InvalidInputError, MemoryNotFoundError
from adk_memory_kit.memory import store
from adk_memory_kit.memory.consolidation import Consolidator, IncomingFact, Outcome
from adk_memory_kit.memory.documents import MemoryDocument, checked_utc, parse_timestamp
from adk_memory_kit.memory.hygiene import Hygiene, check_memory_type, check_tags
from adk_memory_kit.memory.reports import (
    Correction,
    EntryOutcome,
    MemoryMetrics,
    PurgeReport,
    WriteReport,
)
from adk_memory_kit.memory.search import MAX_LIMIT, SearchFilters

if TYPE_CHECKING:
    from adk_memory_kit.memory.access import AccessRecorder

logger = logging.getLogger(__name__)

# verifier(entry) -> True to accept; False or a reason (str) to reject; may be async
Verifier = Callable[[MemoryEntry], "bool | str | Awaitable[bool | str]"]
# types never consolidated (turns, procedures and templates are kept as written)
_NOT_CONSOLIDATED = {"episode", "procedure", "template"}
Item = tuple[MemoryDocument, Hygiene]
Hook = Callable[[AsyncConnection], Awaitable[None]]


def _as_of(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return checked_utc(value, "as_of")
    if isinstance(value, str):
        if len(value) > 64:
            raise InvalidInputError(
                "as_of must be an ISO-8601 date or time (at most 64 characters)"
            )
        return parse_timestamp(value)
    raise InvalidInputError("as_of must be a datetime or an ISO-8601 string")


def _row_id(memory_id: object) -> str:
    try:
        return str(uuid.UUID(str(memory_id)))
    except ValueError as exc:
        raise InvalidInputError("memory_id is not an id returned by search") from exc


class CurationMixin:
    """Hygiene methods of :class:`~adk_memory_kit.memory.service.PgVectorMemoryService`."""

    metrics: MemoryMetrics
    consolidator: Consolidator | None
    verifier: Verifier | None
    min_importance: float | None
    _access: AccessRecorder

    # ------------------------------------------------------------------ search
    async def search(
        self,
        *,
        app_name: str,
        user_id: str,
        query: str,
        types: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        as_of: datetime | str | None = None,
        limit: int | None = None,
        record_access: bool = True,
        include_superseded: bool = False,
    ) -> SearchMemoryResponse:
        """Ranked hybrid search with filters applied inside every ranked list.

        ``types``: only these memory types (``None``: all but ``procedure``, which is recalled
        only when asked for by type). ``tags``: items holding any of these tags. ``as_of``: what
        was true at that time (items whose ``[valid_from, valid_to)`` window holds it; naive
        times are UTC). Records an access on every returned item (batched, off the hot path)
        unless ``record_access`` is false (an operator looking, e.g. the memory console: a
        look is not a use and must not keep an item from decaying). Superseded items are not
        returned unless ``include_superseded`` (an operator's view of the history; they rank
        after current ones) or ``as_of`` names a time they held.
        """
        check_scope(app_name, user_id)
        if not isinstance(query, str):
            raise InvalidInputError(f"query must be a string, got {type(query).__name__}")
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, numbers.Integral)
        ):
            raise InvalidInputError(f"limit must be a whole number, got {short(limit)}")
        cap = self.search_options.limit if limit is None else int(limit)  # type: ignore[attr-defined]
        if not 0 < cap <= MAX_LIMIT:
            raise InvalidInputError(f"limit must be between 1 and {MAX_LIMIT}, got {cap}")
        types = check_strings("types", types)
        check_bool("record_access", record_access)
        check_bool("include_superseded", include_superseded)
        filters = SearchFilters(
            types=None if types is None else tuple(check_memory_type(t, "types") for t in types),
            tags=None if tags is None else tuple(check_tags(tags)),
            as_of=_as_of(as_of),
            include_superseded=include_superseded,
        )
        query = clean_text(query.replace("\x00", " "))
        if not query.strip():
            return SearchMemoryResponse()
        rows = await self._search_rows(app_name, user_id, query, cap, filters)  # type: ignore[attr-defined]
        if rows and record_access:
            self._access.record(app_name, user_id, [str(r["id"]) for r in rows])
            self.metrics.accesses_recorded += len(rows)
        from adk_memory_kit.memory.service import _entry_from_row

        return SearchMemoryResponse(memories=[_entry_from_row(r) for r in rows])

    async def flush_access(self) -> int:
        """Write the pending recall accesses now; returns how many rows were touched."""
        return await self._access.flush()

    async def _write_access(
        self, app: str, user: str, rows: Mapping[str, tuple[int, datetime]]
    ) -> None:
        engine = await self._ensure_ready()  # type: ignore[attr-defined]
        with user_scope(app, user):  # flushed in the background: the rows' own user
            async with engine.begin() as conn:
                fence = (await fences_of(conn, {(app, user)})).get((app, user))
                if fence is not None:
                    rows = {k: v for k, v in rows.items() if not fence.discards(v[1])}
                    if not rows:
                        return  # queued before or during a forget of the user: discarded
                await store.record_access(conn, app, user, rows)

    # ------------------------------------------------------------------ pins and decay
    async def pin_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memory_id: str,
        reason: str | None = None,
        pinned: bool = True,
    ) -> None:
        """Pin (or unpin) one memory: a pinned memory never decays (``purge_stale``)."""
        check_scope(app_name, user_id)
        row_id = _row_id(memory_id)
        if reason is not None and (not isinstance(reason, str) or len(reason) > 500):
            raise InvalidInputError("reason must be a string of at most 500 characters")
        check_bool("pinned", pinned)
        engine = await self._ensure_ready()  # type: ignore[attr-defined]
        async with engine.begin() as conn:
            await guard_write(conn, app_name, user_id)
            found = await store.set_pinned(
                conn, app_name, user_id, row_id, bool(pinned), clean_text(reason or "") or None
            )
        if not found:
            raise MemoryNotFoundError("memory_id names no memory of this user")

    async def purge_stale(
        self,
        app_name: str,
        *,
        older_than: timedelta,
        max_importance: float,
        dry_run: bool = False,
    ) -> PurgeReport:
        """Delete the app's memories not used (recalled, confirmed or learned) for
        ``older_than`` whose importance is at most ``max_importance`` (no importance counts as
        0). Pinned memories and facts that feed ``user:`` state (``state_key`` metadata) never
        decay. ``dry_run`` reports what would go and deletes nothing. One statement per user."""
        check_identifier("app_name", app_name)
        check_duration("older_than", older_than)
        check_number("max_importance", max_importance, minimum=0.0, maximum=1.0)
        check_bool("dry_run", dry_run)
        await self.flush_access()
        cutoff = datetime.now(timezone.utc) - older_than
        found: list[tuple[str, store.StaleRow]] = []
        deleted = 0
        engine = await self._ensure_ready()  # type: ignore[attr-defined]
        for user in await self.list_users(app_name):  # type: ignore[attr-defined]
            async with user_transaction(engine, app_name, user) as conn:
                rows = await store.stale_rows(conn, app_name, user, cutoff, float(max_importance))
                found += [(user, r) for r in rows]
                if rows and not dry_run:
                    deleted += await store.delete_stale(
                        conn, app_name, user, cutoff, float(max_importance), [r.id for r in rows]
                    )
        self.metrics.stale_purged += deleted
        return PurgeReport(dry_run=dry_run, cutoff=cutoff, rows=found, deleted=deleted)

    # ------------------------------------------------------------------ correction
    async def correct_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memory_id: str | None = None,
        new_text: str | None = None,
        reason: str,
        by: str | None = None,
        query: str | None = None,
        memory_type: str | None = None,
        tags: Sequence[str] | None = None,
        importance: float | None = None,
    ) -> Correction:
        """Replace a wrong memory. The old one is superseded now (kept, with ``reason`` and
        ``by``), the new one (same type, subject, tags and importance unless ``memory_type``,
        ``tags`` or ``importance`` is given; same text when ``new_text`` is ``None``) is
        current from now; ``as_of`` before the correction still returns the old one. Without
        ``memory_id`` the best match of ``query`` (any type) is corrected."""
        check_scope(app_name, user_id)
        if new_text is None and memory_type is None and tags is None and importance is None:
            raise InvalidInputError("give new_text, memory_type, tags or importance to change")
        if new_text is not None and (not isinstance(new_text, str) or not new_text.strip()):
            raise InvalidInputError("new_text must be non-empty text")
        if memory_type is not None:
            memory_type = check_memory_type(memory_type, "memory_type")
        if tags is not None:
            tags = check_tags(list(tags)) if tags else []
        if importance is not None and (
            isinstance(importance, bool)
            or not isinstance(importance, numbers.Real)
            or not 0.0 <= float(importance) <= 1.0
        ):
            raise InvalidInputError("importance must be a number between 0 and 1")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > 500:
            raise InvalidInputError("reason must be non-empty text of at most 500 characters")
        if by is not None:
            check_identifier("by", by)
        if memory_id is None:
            if not isinstance(query, str) or not query.strip():
                raise InvalidInputError("give memory_id, or a query locating the memory")
            found = await self.search(app_name=app_name, user_id=user_id, query=query, limit=1)
            if not found.memories:
                raise InvalidInputError("no memory of this user matches the query")
            memory_id = found.memories[0].id
        row_id = _row_id(memory_id)
        engine = await self._ensure_ready()  # type: ignore[attr-defined]
        async with engine.connect() as conn:
            async with conn.begin():
                old = await store.read_row(conn, app_name, user_id, row_id)
            if old is None:
                raise MemoryNotFoundError("memory_id names no memory of this user")
            at = datetime.now(timezone.utc)
            metadata = {
                k: v
                for k, v in dict(old.metadata or {}).items()
                if k not in ("conflict_with", "corrects")
            }
            metadata.update(corrects=row_id, memory_type=memory_type or old.memory_type or "fact")
            weight = float(importance) if importance is not None else old.importance
            body = new_text.strip() if new_text is not None else old.text
            entry = MemoryEntry(
                id=f"correction:{row_id}:{at.isoformat()}",
                author=by or old.author,
                timestamp=at.isoformat(),
                content=genai_types.Content(role="user", parts=[genai_types.Part(text=body)]),
                custom_metadata={
                    **metadata,
                    "tags": list(tags if tags is not None else old.tags or []),
                    **({"subject": old.subject} if old.subject else {}),
                    **({"importance": weight} if weight is not None else {}),
                    "valid_from": at,
                },
            )
            items, stored = await self._prepare(conn, app_name, user_id, [entry])  # type: ignore[attr-defined]
            clean_reason = clean_text(reason.strip())

            async def retract(c: AsyncConnection) -> None:
                await store.retract(c, app_name, user_id, row_id, at, clean_reason, by)

            pairs = [(d, h) for _, d, h in items]
            await self._write(conn, app_name, user_id, pairs, stored, before=retract)  # type: ignore[attr-defined]
        self.metrics.corrections += 1
        return Correction(old_id=row_id, new_id=pairs[0][0].id, corrected_at=at)

    # ------------------------------------------------------------------ quality gate
    async def _gate(
        self, entries: Sequence[MemoryEntry], hygienes: Sequence[Hygiene], report: WriteReport
    ) -> list[int]:
        """Indexes of the entries that pass the importance threshold and the verifier
        (episodes are not gated); the rejected are reported and counted."""
        keep = []
        for i, (entry, hygiene) in enumerate(zip(entries, hygienes, strict=True)):
            if hygiene.memory_type == "episode":
                keep.append(i)
                continue
            if (
                self.min_importance is not None
                and hygiene.importance is not None
                and hygiene.importance < self.min_importance
            ):
                self.metrics.rejected_low_importance += 1
                report.outcomes.append(EntryOutcome(i, "REJECTED", None, "importance too low"))
                continue
            if self.verifier is not None:
                verdict = self.verifier(entry)
                if inspect.isawaitable(verdict):
                    verdict = await verdict
                if verdict is not True:
                    self.metrics.rejected_by_verifier += 1
                    why = verdict if isinstance(verdict, str) and verdict else "verifier"
                    report.outcomes.append(EntryOutcome(i, "REJECTED", None, why[:200]))
                    continue
            keep.append(i)
        return keep

    # ------------------------------------------------------------------ consolidation
    async def _consolidate(
        self,
        conn: AsyncConnection,
        app: str,
        user: str,
        items: list[tuple[int, MemoryDocument, Hygiene]],
        stored: Mapping[str, store.StoredRow],
        report: WriteReport,
        consolidator: Consolidator,
    ) -> tuple[list[Item], dict[str, Any], Hook]:
        """Decide each fact's outcome; returns the items to write, their vectors and the
        hook that applies confirmations, windows and conflict marks in the write's
        transaction."""
        vectors = await self._vectors([d for _, d, _ in items], stored)  # type: ignore[attr-defined]
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
                near = await store.neighbours(conn, app, user, vectors[doc.id], hygiene.subject, 5)
            when = hygiene.valid_from or doc.event_time
            fact = IncomingFact(doc.text, hygiene.subject, when)
            decision = await consolidator.decide(fact, near)
            self.metrics.consolidation[decision.outcome.value] += 1
            if decision.outcome is Outcome.NOOP and decision.target_id:
                confirms.append((decision.target_id, decision.earliest))
                report.outcomes.append(
                    EntryOutcome(index, "NOOP", decision.target_id, decision.reason)
                )
                continue
            if any(n.id == doc.id for n in near) and doc.event_id == fact_key(doc.text):
                # the same words said again for another time: a row of its own
                key = f"{doc.event_id}@{when.isoformat()}"
                new_id = memory_row_id(app, user, doc.session_id, key)
                vectors[new_id] = vectors[doc.id]
                doc = dataclasses.replace(doc, id=new_id, event_id=key)
            kept.append((doc, hygiene if hygiene.valid_from else _dated(hygiene, when)))
            if hygiene.subject:
                subjects.add(hygiene.subject)
            if decision.outcome is Outcome.CONFLICT and decision.target_id:
                conflicts.append((doc.id, decision.target_id))
            report.outcomes.append(
                EntryOutcome(index, decision.outcome.value, doc.id, decision.reason)
            )

        async def apply(c: AsyncConnection) -> None:
            for target, earliest in confirms:
                await store.confirm(c, app, user, target, earliest)
            for subject in sorted(subjects):
                await store.lock_subject(c, app, user, subject)
                await store.rewindow(c, app, user, subject)
            for row_id, other in conflicts:
                await store.mark_conflict(c, app, user, row_id, other)

        if any(earliest for _, earliest in confirms):
            # a valid_from moved back changes its subject's windows too
            subjects |= {h.subject for _, _, h in items if h.subject}
        return kept, vectors, apply


def _dated(hygiene: Hygiene, when: datetime) -> Hygiene:
    return dataclasses.replace(hygiene, valid_from=when)
