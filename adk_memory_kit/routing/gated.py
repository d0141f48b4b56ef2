"""Model-backed routing with the rules as a gate: :class:`GatedLlmExtractor`.

Per turn, over the sentences the user said:

* a sentence with sensitive data is answered by the rules (dropped; a stated allergy kept as
  its value) and never sent to the model;
* a sentence a rule settles for certain (a preference, standing fact or behaviour rule) and
  filler or a question that states nothing are answered without the model;
* the rest go to the model in **one** call (:class:`~.extractors.LlmExtractor`, strict
  schema). If that call fails or its output does not validate, the offline answer stands
  (the learned router when one is given, else the rules').

The routing plugin runs this after the agent's reply has been sent (ADK yields the reply
event before the after-agent callbacks run), so the model call is off the user's critical
path; the call is reported to the episodic log as a model call (see :mod:`.side_calls`).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from datetime import datetime

from google.adk.events.event import Event

from adk_memory_kit.core.db_errors import describe
from adk_memory_kit.routing.extractors import LlmExtractor, RuleBasedExtractor, dated
from adk_memory_kit.routing.offline import (
    LearnedExtractor,
    SentenceRoute,
    asks_to_delete,
    is_statement,
    is_trivial,
    user_sentences,
)
from adk_memory_kit.routing.rule import Candidate
from adk_memory_kit.sensitive import Detector, detect_sensitive

logger = logging.getLogger(__name__)


class GatedLlmExtractor:
    """An :class:`LlmExtractor` behind the rule gate, with an offline fallback.

    Args:
        model_extractor: the model-backed extractor (or a model / model name for one).
        offline: answers when the model fails (``None``: the rules alone answer).
        rules: the gate's rules.
    """

    def __init__(
        self,
        model_extractor: LlmExtractor | object,
        *,
        offline: LearnedExtractor | None = None,
        rules: RuleBasedExtractor | None = None,
        authors: Collection[str] = ("user",),
        detectors: Sequence[Detector] | None = None,
        max_message_chars: int = 8_000,
    ) -> None:
        if not isinstance(model_extractor, LlmExtractor):
            model_extractor = LlmExtractor(model_extractor)  # type: ignore[arg-type]
        self.model_extractor = model_extractor
        self.offline = offline
        self.rules = rules or RuleBasedExtractor(detectors=detectors)
        self.detectors = detectors
        self.authors = set(authors)
        self.max_message_chars = max_message_chars
        self.calls = 0
        """Model calls made (one per turn at most)."""
        self.failures = 0
        """Model calls that failed or did not validate (the offline answer stood)."""

    async def extract(self, events: Sequence[Event]) -> list[Candidate]:
        sentences = user_sentences(events, self.authors, self.max_message_chars, 40)
        answered: list[Candidate] = []
        ask: list[tuple[str, datetime | None]] = []
        for sentence, when in sentences:
            if detect_sensitive(sentence, self.detectors):
                if asks_to_delete(sentence) and not is_statement(sentence):
                    # "Stop remembering my diagnosis": acted on, never sent to the model nor
                    # stored; the handler parses what it names
                    answered.append(Candidate(text=sentence, forget_request=True, observed_at=when))
                else:
                    answered.extend(self.rules.extract_text(sentence, observed_at=when))
                continue
            ruled = self.rules.extract_text(sentence, observed_at=when)
            if ruled:
                answered.extend(ruled)
            elif not is_trivial(sentence):
                ask.append((sentence, when))
        if ask:
            answered.extend(await self._ask(ask))
        return [dated(c) for c in answered]

    async def _ask(self, sentences: list[tuple[str, datetime | None]]) -> list[Candidate]:
        lines = [
            f"[{when.isoformat(timespec='minutes') if when else 'undated'}] user: {sentence}"
            for sentence, when in sentences
        ]
        observed = max((w for _, w in sentences if w is not None), default=None)
        self.calls += 1
        try:
            return await self.model_extractor.extract_transcript("\n".join(lines), observed)
        except Exception as exc:
            self.failures += 1
            logger.warning("memory routing: the model failed (%s); offline answer", describe(exc))
        if self.offline is None:
            return []
        routes: list[SentenceRoute] = await self.offline.route_sentences(sentences)
        return [c for r in routes for c in r.candidates]
