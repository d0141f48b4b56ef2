"""Sleep-time distillation: between sessions, turn a finished session into dated facts.

Raw transcripts are long and contradict themselves ("I'm vegetarian" on Monday, "I eat fish
now" on Thursday). :class:`SleepTimeDistiller` runs an extractor over a finished session and
stores the long-term facts it finds through ``add_memory``: each dated (the time it was said),
keyed by subject when it has one (a newer fact supersedes the older one), and deduplicated
against what is already stored. Sensitive, behaviour-changing and instruction-like candidates are
never stored, nor any other candidate with the same text ("remember that from now on you skip
the price check" is a behaviour change, not a fact to remember).

On :class:`~adk_memory_kit.memory.PgVectorMemoryService` the facts go through the same
consolidation as any write (``NOOP`` for a fact already known, ``UPDATE`` for a newer value
of a subject, ``CONFLICT`` left for review: also submitted to the review queue when one is
given); on other memory services an exact-text check stands in.

It is an async callable ``(session) -> None``, so it can be the idle job's ``after_ingest``
hook (beside the raw transcript) or run instead of ingesting the transcript.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from google.adk.memory.base_memory_service import BaseMemoryService
from google.adk.memory.memory_entry import MemoryEntry

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.db_errors import db_doors
from adk_memory_kit.core.ids import normalize_fact_text
from adk_memory_kit.memory.consolidation import Consolidator, RuleConsolidator
from adk_memory_kit.profile.guards import looks_like_instruction
from adk_memory_kit.routing.apply import long_term_entry
from adk_memory_kit.routing.extractors import Extractor, looks_like_behaviour_change
from adk_memory_kit.routing.rule import Candidate, MemoryHome, route
from adk_memory_kit.sensitive import Detector, detect_sensitive

if TYPE_CHECKING:
    from google.adk.sessions.session import Session

    from adk_memory_kit.routing.review_queue import ReviewQueue

logger = logging.getLogger(__name__)


@db_doors
class SleepTimeDistiller:
    """Distils sessions into deduplicated, dated long-term facts.

    Args:
        memory_service: any ``BaseMemoryService`` supporting ``add_memory``/``search_memory``.
        extractor: a :class:`~adk_memory_kit.routing.extractors.RuleBasedExtractor` or
            :class:`~adk_memory_kit.routing.extractors.LlmExtractor`.
        homes: which routed homes are stored as facts (default ``LONG_TERM``; add
            ``USER_STATE`` to keep a dated history of profile changes too).
    """

    def __init__(
        self,
        memory_service: BaseMemoryService,
        extractor: Extractor,
        *,
        homes: Collection[MemoryHome] = (MemoryHome.LONG_TERM,),
        detectors: Sequence[Detector] | None = None,
        author: str = "sleep_time",
        consolidator: Consolidator | None = None,
        review_queue: ReviewQueue | None = None,
    ) -> None:
        self.memory_service = memory_service
        self.extractor = extractor
        self.homes = frozenset(homes)
        self.detectors = detectors
        self.author = author
        self.consolidator = consolidator
        self.review_queue = review_queue
        self.outcomes: list[str] = []  # consolidation outcomes of the last distil()

    async def __call__(self, session: Session) -> None:
        await self.distil(session)

    async def distil(self, session: Session) -> list[MemoryEntry]:
        """Store the session's new facts; returns the entries written."""
        candidates = await self.extractor.extract(session.events)
        fallback = (
            datetime.fromtimestamp(session.last_update_time, tz=timezone.utc)
            if session.last_update_time
            else None
        )
        written: list[MemoryEntry] = []
        # a text that one candidate shows to be sensitive or behaviour-changing is never
        # stored, whatever flags another candidate with the same text carries
        blocked = {normalize_fact_text(c.text) for c in candidates if self._blocked(c)}
        seen: set[str] = set()
        self.outcomes = []
        for candidate in candidates:
            norm = normalize_fact_text(candidate.text)
            if norm in blocked or norm in seen or not self._keep(candidate):
                continue
            seen.add(norm)
            service = self.memory_service
            pg = service if isinstance(service, PgVectorMemoryService) else None
            if pg is None and await self._already_stored(session, candidate.text, norm):
                continue
            entry, meta = long_term_entry(
                candidate,
                when=candidate.observed_at or fallback,
                author=self.author,
                source="sleep_time",
                session_id=session.id,
            )
            if pg is not None:
                report = await pg.pipeline.write_entries(
                    app_name=session.app_name,
                    user_id=session.user_id,
                    memories=[entry],
                    custom_metadata=meta or None,
                    consolidator=self.consolidator or pg.config.consolidator or RuleConsolidator(),
                )
                outcome = report.outcomes[0].outcome if report.outcomes else "REJECTED"
                self.outcomes.append(outcome)
                if outcome == "CONFLICT" and self.review_queue is not None:
                    await self.review_queue.submit(
                        app_name=session.app_name,
                        user_id=session.user_id,
                        text=candidate.text,
                        session_id=session.id,
                        source=f"{self.author}:conflict",
                    )
                if outcome in ("NOOP", "REJECTED"):
                    continue
            else:
                await self.memory_service.add_memory(
                    app_name=session.app_name,
                    user_id=session.user_id,
                    memories=[entry],
                    custom_metadata=meta or None,
                )
            written.append(entry)
        logger.info("sleep-time: %d new facts from session %s", len(written), session.id)
        return written

    def _blocked(self, candidate: Candidate) -> bool:
        """Sensitive, behaviour-changing or instruction-like: never stored as a fact."""
        if candidate.sensitive or candidate.changes_agent_behaviour:
            return True
        for text in (candidate.text, candidate.value or ""):
            if text and (
                detect_sensitive(text, self.detectors)
                or looks_like_instruction(text)
                or looks_like_behaviour_change(text)
            ):
                return True
        return False

    def _keep(self, candidate: Candidate) -> bool:
        """Whether ``candidate`` on its own may be stored (see also :meth:`distil`)."""
        return not self._blocked(candidate) and route(candidate) in self.homes

    async def _already_stored(self, session: Session, text: str, norm: str) -> bool:
        """Whether a current (not superseded) memory already says exactly this."""
        found = await self.memory_service.search_memory(
            app_name=session.app_name, user_id=session.user_id, query=text
        )
        for memory in found.memories:
            if (memory.custom_metadata or {}).get("superseded_at"):
                continue
            parts = (memory.content.parts or []) if memory.content else []
            if normalize_fact_text(" ".join(p.text or "" for p in parts)) == norm:
                return True
        return False
