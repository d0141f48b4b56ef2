"""MemoryCurator: corrections, pins and decay of stored memories (docs/hygiene.md).

A part of :class:`~adk_memory_kit.memory.service.PgVectorMemoryService` (``service.curator``),
composed from its store and write pipeline: a correction is written through the pipeline
(documents, redaction, supersession), pins and decay are statements of ``memory/items_sql.py``.
Consolidation on write is the pipeline's stage (``memory/write_stages.py``), chosen by
``MemoryConfig.consolidator``.
"""

from __future__ import annotations

import numbers
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types as genai_types
from sqlalchemy.ext.asyncio import AsyncConnection

from adk_memory_kit.core.db_errors import db_doors
from adk_memory_kit.core.validation import (
    check_bool,
    check_duration,
    check_identifier,
    check_number,
    check_scope,
    clean_text,
)
from adk_memory_kit.db.fence import guard_write
from adk_memory_kit.db.rls import user_transaction
from adk_memory_kit.errors import InvalidInputError, MemoryNotFoundError
from adk_memory_kit.memory import items_sql
from adk_memory_kit.memory.documents import INDEXED_WITH
from adk_memory_kit.memory.hygiene import check_memory_type, check_tags
from adk_memory_kit.memory.pipeline import WritePipeline
from adk_memory_kit.memory.reports import Correction, MemoryMetrics, PurgeReport
from adk_memory_kit.memory.search import SearchFilters
from adk_memory_kit.memory.store import MemoryStore


def row_id_of(memory_id: object) -> str:
    """``memory_id`` as a canonical row id; not a UUID: :class:`InvalidInputError`."""
    try:
        return str(uuid.UUID(str(memory_id)))
    except ValueError as exc:
        raise InvalidInputError("memory_id is not an id returned by search") from exc


@db_doors
class MemoryCurator:
    """Correct, pin and purge the memories of a store (one user's rows per call, except the
    app-wide :meth:`purge_stale`)."""

    def __init__(self, store: MemoryStore, pipeline: WritePipeline, metrics: MemoryMetrics):
        self.store = store
        self.pipeline = pipeline
        self.metrics = metrics

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
        row_id = row_id_of(memory_id)
        if reason is not None and (not isinstance(reason, str) or len(reason) > 500):
            raise InvalidInputError("reason must be a string of at most 500 characters")
        check_bool("pinned", pinned)
        engine = await self.store.ready()
        async with engine.begin() as conn:
            await guard_write(conn, app_name, user_id)
            found = await items_sql.set_pinned(
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
        await self.store.flush_access()
        cutoff = datetime.now(timezone.utc) - older_than
        found: list[tuple[str, items_sql.StaleRow]] = []
        deleted = 0
        engine = await self.store.ready()
        for user in await self.store.list_users(app_name):
            async with user_transaction(engine, app_name, user) as conn:
                rows = await items_sql.stale_rows(
                    conn, app_name, user, cutoff, float(max_importance)
                )
                found += [(user, r) for r in rows]
                if rows and not dry_run:
                    deleted += await items_sql.delete_stale(
                        conn, app_name, user, cutoff, float(max_importance), [r.id for r in rows]
                    )
        self.metrics.stale_purged += deleted
        return PurgeReport(dry_run=dry_run, cutoff=cutoff, rows=found, deleted=deleted)

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
        ``memory_id`` the best match of ``query`` (any type but procedures) is corrected."""
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
            memory_id = await self._locate(app_name, user_id, query)
        row_id = row_id_of(memory_id)
        engine = await self.store.ready()
        async with engine.connect() as conn:
            async with conn.begin():
                old = await items_sql.read_row(conn, app_name, user_id, row_id)
        if old is None:
            raise MemoryNotFoundError("memory_id names no memory of this user")
        at = datetime.now(timezone.utc)
        metadata = {
            k: v
            for k, v in dict(old.metadata or {}).items()
            if k not in ("conflict_with", "corrects")
        }
        metadata.update(corrects=row_id, memory_type=memory_type or old.memory_type or "fact")
        if new_text is not None and new_text.strip() != old.text:
            # the replacement answers what the old text answered: embedded with it
            metadata[INDEXED_WITH] = old.text
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
        clean_reason = clean_text(reason.strip())

        async def retract(c: AsyncConnection) -> None:
            await items_sql.retract(c, app_name, user_id, row_id, at, clean_reason, by)

        new_id = await self.pipeline.write_replacement(
            app_name=app_name, user_id=user_id, entry=entry, before=retract
        )
        self.metrics.corrections += 1
        return Correction(old_id=row_id, new_id=new_id, corrected_at=at)

    async def _locate(self, app_name: str, user_id: str, query: object) -> str:
        """The id of the best current match of ``query`` (recorded as an access)."""
        if not isinstance(query, str) or not query.strip():
            raise InvalidInputError("give memory_id, or a query locating the memory")
        text = clean_text(query.replace("\x00", " "))
        rows = (
            await self.store.search_rows(
                app_name=app_name, user_id=user_id, query=text, limit=1, filters=SearchFilters()
            )
            if text.strip()
            else []
        )
        if not rows:
            raise InvalidInputError("no memory of this user matches the query")
        self.store.access.record(app_name, user_id, [str(rows[0]["id"])])
        self.metrics.accesses_recorded += 1
        return str(rows[0]["id"])
