"""Which of the scored memories a forget request deletes, and which it only asks about.

The offline decision (:meth:`ForgetChooser.decide`) takes the memories that match the subject
on their own, all within a margin of the best; it asks, rather than guesses, when a weak best
match has a close runner-up that the people the subject names do not settle. With a
``forget_judge`` (the agent's model), :meth:`ForgetChooser.judged` lets the model choose
among a shortlist instead; a failed call or an invalid answer leaves the offline decision.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from adk_memory_kit.routing.edits.edit_settings import EditSettings
from adk_memory_kit.routing.edits.entry_scores import dense_score, entry_text
from adk_memory_kit.routing.edits.subject_words import naming_stems
from adk_memory_kit.routing.edits.update_subject import people
from adk_memory_kit.text.signals import content_stems

logger = logging.getLogger(__name__)


class ForgetChooser:
    """Decides what a forget request deletes, with ``settings``' bars and judge."""

    def __init__(self, settings: EditSettings) -> None:
        self.settings = settings

    def decide(
        self, subject: str, scored: Sequence[tuple[Any, float, bool]]
    ) -> tuple[list[Any], int]:
        """The memories a forget request deletes, and how many close matches made it
        ambiguous (asked, nothing deleted), from the (memory, score, on its own) of
        :meth:`.forget_matcher.ForgetMatcher.scored_closeness`.

        Of the memories that match the subject on their own, :meth:`choose` (ties settled by
        :meth:`same_people`). With none, a weak match is taken only when it alone is about the
        people the subject names; otherwise weak matches are asked about."""
        matching = [(m, score) for m, score, own in scored if own]
        matching, asked = self.narrowed(subject, matching)
        chosen, ambiguous = self.choose(matching)
        if ambiguous:
            chosen = self.same_people(subject, matching)
            ambiguous = 0 if chosen else ambiguous
        if chosen:
            # another memory that matches on its own but less closely: asked about, never
            # left silently ("the locker code": the gym's goes, the work one is asked about)
            asked += sum(1 for m, _ in matching if all(m is not c for c in chosen))
        if not chosen and not ambiguous:
            # only weak matches (none matches the subject on its own): asked, not deleted
            weak = [
                (m, score) for m, score, _ in scored if score >= self.settings.forget_min_similarity
            ]
            ambiguous = len(weak)
            # ... unless exactly one of them is about the people the subject names, or the
            # closest holds more of the subject's words than any other ("the knee op in
            # March": "... surgery on my left knee in March" over "... wedding in March")
            chosen = self.same_people(subject, weak) if ambiguous > 1 else []
            chosen = chosen if len(chosen) == 1 else []
            if not chosen and ambiguous > 1:
                chosen = self.most_words(subject, weak)
            ambiguous = 0 if chosen else ambiguous
        return chosen, ambiguous + asked

    @staticmethod
    def most_words(subject: str, weak: Sequence[tuple[Any, float]]) -> list[Any]:
        """Of several weak (memory, score) matches, the closest when it holds at least two of
        the words naming the subject and more of them than any other does; else none."""
        naming = naming_stems(subject)
        held = [len(naming & content_stems(entry_text(m))) for m, _ in weak]
        top = max(range(len(weak)), key=lambda i: weak[i][1])
        others = [h for i, h in enumerate(held) if i != top]
        return [weak[top][0]] if held[top] >= 2 and held[top] > max(others) else []

    def narrowed(
        self, subject: str, matching: Sequence[tuple[Any, float]]
    ) -> tuple[list[tuple[Any, float]], int]:
        """Of several (memory, score) that match a subject on their own, those that hold every
        word naming it, when some do and some do not ("my work email" keeps "My work email is
        ..." and asks about "My personal email is ...", which the kind of detail scores
        higher; "the Leeds trip" spares "I grew up in Leeds"); the others are asked about,
        never deleted. Only for a subject of two naming words or more (a broad request, "my
        family", keeps everything it matches)."""
        naming = naming_stems(subject)
        if len(matching) < 2 or len(naming) < 2:
            return list(matching), 0
        whole = [(m, s) for m, s in matching if naming <= content_stems(entry_text(m))]
        if not whole or len(whole) == len(matching):
            return list(matching), 0
        return whole, len(matching) - len(whole)

    def shortlist(
        self, scored: Sequence[tuple[Any, float, bool]], closeness: Sequence[float], chosen: Any
    ) -> list[Any]:
        """The memories the judge is shown: those :meth:`decide` chose, then the closest others
        (by ``closeness``, below the bars too), at most the judge's ``max_candidates``."""
        limit = self.settings.forget_judge.max_candidates if self.settings.forget_judge else 0
        picked = {id(m) for m in chosen}
        order = sorted(range(len(scored)), key=lambda i: -closeness[i])
        first = [scored[i][0] for i in order if id(scored[i][0]) in picked]
        rest = [scored[i][0] for i in order if id(scored[i][0]) not in picked]
        return [*first, *rest][:limit]

    async def judged(
        self,
        subject: str,
        scored: Sequence[tuple[Any, float, bool]],
        closeness: Sequence[float],
        chosen: list[Any],
        ambiguous: int,
    ) -> tuple[list[Any], int]:
        """The model's choice among the :meth:`shortlist` (it sees the subject and the
        shortlisted memories' texts, numbered; it answers with numbers only), in place of the
        offline decision ``(chosen, ambiguous)``. The offline decision stands when the call
        fails or the answer is not a valid choice (logged without any text), and when the
        offline matcher already chose more memories than the judge may be shown. When the model
        names none of them but the offline matcher chose or found close matches, nothing is
        deleted and a confirmation is asked."""
        judge = self.settings.forget_judge
        if judge is None or len(chosen) >= judge.max_candidates:
            return chosen, ambiguous
        shown = self.shortlist(scored, closeness, chosen)
        try:
            picks = await judge.choose(subject, [entry_text(m) for m in shown])
        except Exception as exc:  # any failure: the offline decision stands
            logger.warning(
                "forget request: the judge model gave no usable answer (%s); "
                "the offline decision stands",
                type(exc).__name__,
            )
            return chosen, ambiguous
        picked = [shown[i] for i in picks]
        if not picked and (chosen or ambiguous):
            return [], len(chosen) or ambiguous  # the two disagree: asked, not guessed
        logger.info("forget request: the judge named %d of %d memories", len(picked), len(shown))
        return picked, 0

    def choose(self, scored: Sequence[tuple[Any, float]]) -> tuple[list[Any], int]:
        """The memories a forget request deletes, and how many close matches made it
        ambiguous (then nothing is deleted).

        Every memory whose score is at least ``forget_min_similarity`` and within
        ``forget_margin`` of the best match is chosen. When the best match is weak (below
        ``forget_confident_similarity``) and more than one memory is that close to it, the
        request is not guessed at: nothing is chosen, and the count of close matches is
        returned for a confirmation.
        """
        best = max((score for _, score in scored), default=0.0)
        bar = max(self.settings.forget_min_similarity, best - self.settings.forget_margin)
        chosen = [m for m, score in scored if score >= bar]
        if best < self.settings.forget_confident_similarity and len(chosen) > 1:
            return [], len(chosen)
        return chosen, 0

    def same_people(self, subject: str, scored: Sequence[tuple[Any, float]]) -> list[Any]:
        """Of the close matches :meth:`choose` found ambiguous, the ones about the people the
        subject names (:func:`~.update_subject.people`: "where my kids go to school" takes
        "The kids go to ..." over "I went to school in ..."); empty when the subject names no
        one, or when none or all of them name those people (still asked, not guessed)."""
        wanted = people(subject)
        if not wanted:
            return []
        best = max((score for _, score in scored), default=0.0)
        bar = max(self.settings.forget_min_similarity, best - self.settings.forget_margin)
        close = [m for m, score in scored if score >= bar]
        agree = [m for m in close if wanted <= people(entry_text(m))]
        return agree if 0 < len(agree) < len(close) else []

    def forget_matches(self, memories: Sequence[Any]) -> tuple[list[Any], int]:
        """:meth:`choose` over the memories' own search scores (their query similarity)."""
        return self.choose([(m, dense_score(m)) for m in memories])
