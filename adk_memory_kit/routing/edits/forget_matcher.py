"""Which of the user's memories a forget subject could name, each scored.

The memories the store's search finds for the subject (and for the kinds of detail it names),
superseded ones too, then those just below the search's relevance floor, are scored by
:class:`~.forget_assessment.ForgetAssessor`; which of them go is decided elsewhere
(:mod:`.forget_choice`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from adk_memory_kit.core.ids import normalize_fact_text
from adk_memory_kit.routing.edits.edit_settings import EditSettings
from adk_memory_kit.routing.edits.entry_scores import dense_score, entry_text
from adk_memory_kit.routing.edits.floor_search import below_the_floor
from adk_memory_kit.routing.edits.forget_assessment import ForgetAssessor
from adk_memory_kit.routing.edits.kind_names import KindNames
from adk_memory_kit.routing.edits.subject_words import possessor, without_possessor


class ForgetMatcher:
    """Finds and scores the memories a forget subject could name."""

    def __init__(self, settings: EditSettings, kinds: KindNames, assessor: ForgetAssessor) -> None:
        self.settings = settings
        self.kinds = kinds
        self.assessor = assessor

    async def scored_closeness(
        self,
        service: Any,
        session: Any,
        subject: str,
        widen: int = 0,
        extra: Sequence[Any] = (),
        twins: dict[str, str] | None = None,
    ) -> tuple[list[tuple[Any, float, bool]], list[float], int, list[bool]]:
        """The user's memories (superseded ones too) that could be what ``subject`` names, each
        with its score and whether it matches the subject on its own
        (:meth:`~.forget_assessment.ForgetAssessor.assess`; without an embedder on the service,
        the search's own query similarity, and none matches on its own); each memory's
        closeness to the subject (the higher of its score and its cosine: what orders the
        judge's shortlist); and how many of them the searches found (with ``extra``: memory-like
        entries weighed as if the searches found them, but one whose text a found memory holds
        is left out and put in ``twins`` as extra id -> that memory's id); ``widen``: this many
        memories closest to the subject below the search's relevance floor
        (:func:`~.floor_search.below_the_floor`) follow those; and for each, whether it may be
        shown to the user when nothing else matched (``ask_min_similarity`` close to the
        subject, about no one it does not name)."""
        whose = possessor(subject)
        head = without_possessor(subject, whose) if whose else subject
        named_kinds = await self.kinds.kinds_named(service, head)
        queries = [subject, *(" ".join(self.settings.detail_kinds[k]) for k, _ in named_kinds)]
        found: dict[str, Any] = {}
        for query in queries:
            result = await service.search(
                app_name=session.app_name,
                user_id=session.user_id,
                query=query,
                limit=self.settings.max_forget,
                record_access=False,
                include_superseded=True,
            )
            for memory in result.memories:
                found.setdefault(str(memory.id), memory)
        held = {key: normalize_fact_text(entry_text(m)) for key, m in found.items()}
        for memory in extra:
            said = normalize_fact_text(entry_text(memory))
            twin = next((k for k, text in held.items() if said and said in text), None)
            if twin is not None:
                if twins is not None:
                    twins[str(memory.id)] = twin
                continue
            found.setdefault(str(memory.id), memory)
        searched = len(found)
        if widen:
            for memory in await below_the_floor(service, session, subject, widen):
                found.setdefault(str(memory.id), memory)
        memories = list(found.values())
        embedder = getattr(service, "embedder", None)
        if embedder is None or not memories:
            dense = [dense_score(m) for m in memories]
            scored = [(m, d, False) for m, d in zip(memories, dense, strict=True)]
            return scored, dense, searched, [False] * len(memories)
        seen = await self.assessor.assess(
            embedder, subject, [entry_text(m) for m in memories], named_kinds
        )
        scored = [
            (m, float(score), bool(own))
            for m, score, own in zip(memories, seen.scores, seen.own, strict=True)
        ]
        closeness = np.maximum(seen.scores, seen.cosines).astype(float).tolist()
        askable = [
            not other and float(cosine) >= self.settings.ask_min_similarity
            for other, cosine in zip(seen.about_others, seen.cosines, strict=True)
        ]
        return scored, closeness, searched, askable
