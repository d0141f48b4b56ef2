"""Which kinds of detail a forget subject names, and how close a memory is to each kind.

A kind (:mod:`.detail_kinds`) is a label of comma-separated terms ("finances, money, debts,
salary, ...") with example sentences; a subject names a kind when it is close to the label or
to one of its terms. The label, term and example vectors are embedded once per instance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from adk_memory_kit.embedders.base import checked_embed
from adk_memory_kit.routing.edits.edit_settings import EditSettings
from adk_memory_kit.routing.edits.entry_scores import unit_rows
from adk_memory_kit.text.signals import content_stems


class KindNames:
    """The kinds of detail of ``settings.detail_kinds``, their vectors cached."""

    def __init__(self, settings: EditSettings) -> None:
        self.settings = settings
        #: the labels' and then their terms' unit vectors (None until first used)
        self.label_vectors: np.ndarray | None = None
        #: for each term vector, the index of the label it belongs to
        self.term_owner: np.ndarray = np.zeros(0, int)
        self._example_vectors: dict[str, np.ndarray] = {}

    def kind_stems(self, kinds: Sequence[str]) -> set[str]:
        stems: set[str] = set()
        for kind in kinds:
            stems |= content_stems(" ".join([kind, *self.settings.detail_kinds[kind]]))
        return stems

    async def best_kind_scores(self, embedder: Any, vectors: np.ndarray) -> np.ndarray:
        """Each memory's cosine to the closest example sentence of any kind."""
        best = np.full(len(vectors), -1.0)
        for kind in self.settings.detail_kinds:
            examples = await self.examples(embedder, kind)
            best = np.maximum(best, (vectors @ examples.T).max(axis=1))
        return best

    async def kinds_named(self, service: Any, subject: str) -> list[tuple[str, bool]]:
        """:meth:`named_by` with the service's embedder (none without one)."""
        embedder = getattr(service, "embedder", None)
        if embedder is None:
            return []
        return await self.named_by(embedder, subject)

    async def named_by(self, embedder: Any, subject: str) -> list[tuple[str, bool]]:
        """The (at most two) kinds of detail a label term of which (each comma-separated name
        in the label, "salary" in "finances, money, debts, salary, ...") is at least
        ``kind_min_similarity`` close to the subject, closest first: a one-word subject ("my
        diagnosis") is far from a long label as a whole but close to its own term. Each comes
        with whether only a term named it (the subject is narrower than the kind)."""
        if not self.settings.detail_kinds:
            return []
        labels = list(self.settings.detail_kinds)
        if self.label_vectors is None:
            terms = [
                (i, t.strip())
                for i, label in enumerate(labels)
                for t in label.split(",")
                if t.strip()
            ]
            self.term_owner = np.array([i for i, _ in terms])
            self.label_vectors = unit_rows(
                await checked_embed(embedder, [*labels, *(t for _, t in terms)])
            )
        (subject_vector,) = unit_rows(await checked_embed(embedder, [subject]))
        all_sims = self.label_vectors @ subject_vector
        whole = all_sims[: len(labels)]
        sims = whole.copy()
        for owner, sim in zip(self.term_owner, all_sims[len(labels) :], strict=True):
            if sim >= self.settings.kind_term_min_similarity:
                sims[owner] = max(sims[owner], sim)
        order = sorted(range(len(labels)), key=lambda i: -sims[i])[:2]
        # a second kind only as close as the first, within ``second_kind_margin``, when the
        # first is named as a whole ("my height" names height at 0.83, not weight at 0.55); a
        # first named by one term of its label may be the wrong one ("medication": "drugs")
        bar = self.settings.kind_min_similarity
        if whole[order[0]] >= self.settings.kind_min_similarity:
            bar = max(bar, sims[order[0]] - self.settings.second_kind_margin)
        return [
            (labels[i], bool(whole[i] < self.settings.kind_min_similarity))
            for i in order
            if sims[i] >= bar
        ]

    async def examples(self, embedder: Any, kind: str) -> np.ndarray:
        if kind not in self._example_vectors:
            self._example_vectors[kind] = unit_rows(
                await checked_embed(embedder, list(self.settings.detail_kinds[kind]))
            )
        return self._example_vectors[kind]
