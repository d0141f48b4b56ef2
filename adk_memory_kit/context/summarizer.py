"""``FactPreservingSummarizer``: an ADK ``BaseEventsSummarizer`` whose summaries keep exact values.

A summary is one model-role text with up to four parts, in this order::

    [Conversation summary]
    Earlier (condensed):          <- older summaries, summarised again (bounded)
    - user: We must stay under $1,800.
    Recent:                       <- the turns compacted this time (bounded)
    - agent: Booked Hotel Lumen, ref QX7T2L.
    Tools used: search_hotels, fetch_page
    Kept exactly (verbatim):      <- identifiers, URLs, money, dates, ... (bounded)
    - constraint: Never book a flight that lands after 22:00.
    - id: QX7T2L
    From tool results: HX-4410; https://example.com/h/77

Guarantees:

* **Exact values survive** a lossy prose summary: they are carried verbatim in the
  "Kept exactly" block, which is built from the events, not from the model's output.
* **The user's constraints survive**: every sentence of the user's that states a constraint
  or standing instruction (a negation, a limit, a deadline, an always/never rule;
  :func:`~adk_memory_kit.context.values.is_constraint`) is kept verbatim in that block as a
  ``constraint`` line, carried from summary to summary (``max_constraints``, newest kept).
* **Nothing distilled twice**: pruned tool payloads (tombstones), results of the
  ``distilled_tools`` (``save_finding``-style tools, working memory) are not summarised.
* **Hierarchical**: when ADK passes the previous summary back (token-threshold compaction
  seeds the next summary with it), its two prose tiers become "Earlier (condensed)", which
  keeps only its highest-scoring lines; every tier and the value block have a token or count
  cap, so the summary stays bounded however long the session runs.
* **Sensitive data**: every span the sensitive-data detectors flag is cut before anything is
  extracted or sent to a model, and model output sentences that the detectors flag are
  dropped, so no flagged text reaches a summary.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from google.adk.apps.base_events_summarizer import BaseEventsSummarizer
from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions, EventCompaction
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.genai import types
from typing_extensions import override

from adk_memory_kit.context.summary_config import SummarizerConfig
from adk_memory_kit.context.values import (
    ExactValue,
    clean_segments,
    find_constraints,
    find_exact_values,
    salient_sentences,
    sentence_score,
)
from adk_memory_kit.core.model_access import DEFAULT_GEMINI, has_model_access
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.pruning.tokens import estimate_text_tokens, payload_json

logger = logging.getLogger(__name__)

HEADER = "[Conversation summary]"
"""First line of every summary this module writes (how a prior summary is recognised)."""
_OLDER = "Earlier (condensed):"
_RECENT = "Recent:"
_TOOLS = "Tools used: "
_KEPT = "Kept exactly (verbatim):"
_FROM_TOOLS = "From tool results: "
CONSTRAINT = "constraint"
"""Kind of a "Kept exactly" line holding one of the user's constraint sentences verbatim."""

AUTO = "auto"
"""``model="auto"``: Gemini when a key is configured (see ``core.model_access``), else
extractive."""

_PROMPT = (
    "Summarise this conversation between a user and an AI agent for the agent's own later use."
    " Keep decisions, constraints, open questions and what the user asked for. Be brief: at most"
    " {max_words} words of plain sentences, no lists. Exact values (ids, URLs, amounts, dates)"
    " are kept separately, so you may omit them.\n\n{earlier}Conversation:\n{conversation}"
)


def _working_memory_tools() -> frozenset[str]:
    try:
        from adk_memory_kit.working_memory import WORKING_MEMORY_TOOL_NAMES
    except Exception:  # pragma: no cover - the package is optional for this module
        return frozenset()
    return frozenset(WORKING_MEMORY_TOOL_NAMES)


@dataclass
class Digest:
    """The parsed, structured form of a summary."""

    older: list[str] = field(default_factory=list)
    recent: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    values: list[ExactValue] = field(default_factory=list)
    tool_values: list[str] = field(default_factory=list)

    def render(self) -> str:
        """The summary text (see the module docstring for the layout)."""
        lines = [HEADER]
        if self.older:
            lines += [_OLDER, *(f"- {line}" for line in self.older)]
        if self.recent:
            lines += [_RECENT, *(f"- {line}" for line in self.recent)]
        if self.tools:
            lines.append(_TOOLS + ", ".join(self.tools))
        if self.values or self.tool_values:
            lines.append(_KEPT)
            lines += [f"- {value.kind}: {value.text}" for value in self.values]
            if self.tool_values:
                lines.append(_FROM_TOOLS + "; ".join(self.tool_values))
        return "\n".join(lines)


def parse_summary(text: str) -> Digest | None:
    """Parse a summary written by :class:`FactPreservingSummarizer`; ``None`` if it is not one."""
    if not text.startswith(HEADER):
        return None
    digest = Digest()
    target: list[Any] | None = None
    for line in text.splitlines()[1:]:
        if line == _OLDER:
            target = digest.older
        elif line == _RECENT:
            target = digest.recent
        elif line == _KEPT:
            target = digest.values
        elif line.startswith(_TOOLS):
            digest.tools = [name for name in line[len(_TOOLS) :].split(", ") if name]
            target = None
        elif line.startswith(_FROM_TOOLS):
            digest.tool_values = [v for v in line[len(_FROM_TOOLS) :].split("; ") if v]
        elif line.startswith("- ") and target is not None:
            body = line[2:]
            if target is digest.values:
                kind, _, value = body.partition(": ")
                digest.values.append(ExactValue(kind, value))
            else:
                target.append(body)
    return digest


def _strings(value: Any, out: list[str], depth: int = 0) -> None:
    """Every string (and number) inside a JSON-like payload, in order."""
    if depth > 32:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for item in value.values():
            _strings(item, out, depth + 1)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _strings(item, out, depth + 1)
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        out.append(str(value))
    elif value is not None:
        out.append(payload_json(value))


def _is_tombstone(response: Any) -> bool:
    return isinstance(response, dict) and response.get("status") == "pruned"


def _fit(lines: Sequence[str], max_tokens: int, *, keep_newest: bool) -> list[str]:
    """The lines that fit in ``max_tokens``; the newest (or best-ordered first) win."""
    kept: list[str] = []
    used = 0
    ordered = list(reversed(lines)) if keep_newest else list(lines)
    for line in ordered:
        cost = estimate_text_tokens(line) + 1
        if used + cost > max_tokens:
            continue
        kept.append(line)
        used += cost
    return list(reversed(kept)) if keep_newest else kept


class FactPreservingSummarizer(BaseEventsSummarizer):
    """Summarise ADK events into bounded prose plus a verbatim "kept exactly" block.

    Use it in ``App(events_compaction_config=EventsCompactionConfig(summarizer=...))``.
    Token-threshold compaction (``token_threshold=..., event_retention_size=...``) hands the
    previous summary back with each new range, which is what makes the summary hierarchical
    and bounded; sliding-window compaction works too but ADK keeps each window's summary.

    Args:
        model: ``None`` (default): extractive and offline, keeping the sentences that carry
            decisions, constraints and exact values. A ``BaseLlm`` or a model name (resolved
            by ADK's ``LLMRegistry``, e.g. ``"gemini-2.5-flash"``): that model writes the
            prose. ``"auto"``: Gemini when ``GOOGLE_API_KEY``/Vertex AI is configured, else
            extractive. The "kept exactly" block is always built without the model.
        config: the caps, the distilled tools and the detectors
            (:class:`~adk_memory_kit.context.summary_config.SummarizerConfig`); or give its
            fields by keyword (``max_values=24``), not both.
    """

    def __init__(
        self,
        model: BaseLlm | str | None = None,
        *,
        config: SummarizerConfig | None = None,
        **options: Any,
    ) -> None:
        config = SummarizerConfig.given(config, options)
        self.config = config
        self.llm = _resolve_model(model)
        self.max_recent_tokens = config.max_recent_tokens
        self.max_older_tokens = config.max_older_tokens
        self.max_values = config.max_values
        self.max_tool_values = config.max_tool_values
        self.max_constraints = config.max_constraints
        self.distilled_tools = config.distilled_tools | _working_memory_tools()
        self.detectors = config.detectors

    # ---- ADK interface -------------------------------------------------------------------
    @override
    async def maybe_summarize_events(self, *, events: list[Event]) -> Event | None:
        """Compact ``events`` into one event carrying an ``EventCompaction`` (``None`` if empty)."""
        if not events:
            return None
        content = await self.summarize_contents(
            [(event.author or "", _event_content(event)) for event in events]
        )
        if content is None:
            return None
        compaction = EventCompaction(
            start_timestamp=events[0].timestamp,
            end_timestamp=events[-1].timestamp,
            compacted_content=content,
        )
        return Event(
            author="user", actions=EventActions(compaction=compaction), invocation_id=Event.new_id()
        )

    # ---- kit interface -------------------------------------------------------------------
    async def summarize_contents(
        self, items: Sequence[tuple[str, types.Content | None]]
    ) -> types.Content | None:
        """Summarise ``(author, content)`` pairs into one model-role content (``None`` if empty)."""
        digest = Digest()
        priors: list[Digest] = []
        sentences: list[tuple[int, str]] = []
        transcript: list[str] = []
        tool_values: list[str] = []
        found_any = False
        for author, content in items:
            if content is None or not content.parts:
                continue
            speaker = "user" if author == "user" or content.role == "user" else "agent"
            for part in content.parts:
                if part.text and not part.thought:
                    prior = parse_summary(part.text)
                    if prior is not None:
                        priors.append(prior)
                        found_any = True
                        continue
                    found_any = True
                    for score, sentence in salient_sentences(part.text, self.detectors):
                        sentences.append((score, f"{speaker}: {sentence}"))
                    if speaker == "user":  # the user's own rules, verbatim
                        digest.values.extend(
                            ExactValue(CONSTRAINT, rule)
                            for rule in find_constraints(part.text, self.detectors)
                        )
                    digest.values.extend(find_exact_values(part.text, self.detectors))
                    clean = " [redacted] ".join(clean_segments(part.text, self.detectors))
                    transcript.append(f"{speaker}: {clean}")
                call = part.function_call
                if call is not None and call.name:
                    found_any = True
                    _add_unique(digest.tools, call.name)
                    if call.name not in self.distilled_tools:
                        args: list[str] = []
                        _strings(call.args or {}, args)
                        for text in args:
                            digest.values.extend(find_exact_values(text, self.detectors))
                response = part.function_response
                if response is not None:
                    found_any = True
                    if response.name:
                        _add_unique(digest.tools, response.name)
                    if response.name in self.distilled_tools or _is_tombstone(response.response):
                        continue  # already distilled or pruned: not summarised again
                    payload: list[str] = []
                    _strings(response.response, payload)
                    for text in payload:
                        for value in find_exact_values(text, self.detectors):
                            tool_values.append(value.text)
        if not found_any:
            return None
        self._merge(digest, priors, sentences, tool_values)
        if self.llm is not None:
            try:
                await self._model_prose(self.llm, digest, priors, transcript)
            except Exception:  # the extractive prose stays; the values never depended on it
                logger.warning(
                    "Summary model %s failed; keeping the extractive summary",
                    getattr(self.llm, "model", "?"),
                    exc_info=True,
                )
        return types.Content(role="model", parts=[types.Part(text=digest.render())])

    # ---- internals -----------------------------------------------------------------------
    def _merge(
        self,
        digest: Digest,
        priors: list[Digest],
        sentences: list[tuple[int, str]],
        tool_values: list[str],
    ) -> None:
        older_lines: list[str] = []
        prior_values: list[ExactValue] = []
        prior_tool_values: list[str] = []
        tools: list[str] = []
        for prior in priors:
            older_lines += prior.older + prior.recent
            prior_values += prior.values
            prior_tool_values += prior.tool_values
            for name in prior.tools:
                _add_unique(tools, name)
        for name in digest.tools:
            _add_unique(tools, name)
        digest.tools = tools
        # Earlier tier: the best-scoring lines of older prose, in their original order.
        ranked = sorted(
            range(len(older_lines)),
            key=lambda i: (-sentence_score(older_lines[i].partition(": ")[2]), -i),
        )
        chosen = set(_fit_indexes(ranked, older_lines, self.max_older_tokens))
        digest.older = [line for i, line in enumerate(older_lines) if i in chosen]
        # Recent tier: the best-scoring new sentences, newest preferred, in order.
        unique = _dedupe(line for _, line in sentences)
        scores = {line: score for score, line in sentences}
        ranked = sorted(range(len(unique)), key=lambda i: (-scores[unique[i]], -i))
        chosen = set(_fit_indexes(ranked, unique, self.max_recent_tokens))
        digest.recent = [line for i, line in enumerate(unique) if i in chosen]
        # Values: earlier ones first, then new ones; the oldest go when over the cap. The
        # user's constraints come first in the block, under their own cap.
        values: dict[str, ExactValue] = {}
        rules: dict[str, ExactValue] = {}
        for value in [*prior_values, *digest.values]:
            into = rules if value.kind == CONSTRAINT else values
            into.pop(value.text, None)  # a value seen again moves to the newest end
            into[value.text] = value
        kept = list(values.values())[-self.max_values :] if self.max_values else []
        kept_rules = list(rules.values())[-self.max_constraints :] if self.max_constraints else []
        digest.values = kept_rules + kept
        in_block = {value.text for value in kept}
        pool = _dedupe(v for v in [*prior_tool_values, *tool_values] if v not in in_block)
        digest.tool_values = pool[-self.max_tool_values :] if self.max_tool_values else []

    async def _model_prose(
        self, llm: BaseLlm, digest: Digest, priors: list[Digest], transcript: list[str]
    ) -> None:
        earlier = [line for prior in priors for line in prior.older + prior.recent]
        max_words = max(20, (self.max_recent_tokens + self.max_older_tokens) * 3 // 4)
        prompt = _PROMPT.format(
            max_words=max_words,
            earlier=("Earlier summary:\n" + "\n".join(earlier) + "\n\n") if earlier else "",
            conversation="\n".join(transcript),
        )
        request = LlmRequest(
            model=llm.model,
            contents=[types.Content(role="user", parts=[types.Part(text=prompt)])],
        )
        text = ""
        async for response in llm.generate_content_async(request, stream=False):
            if response.content and response.content.parts:
                text = "".join(p.text or "" for p in response.content.parts if not p.thought)
                break
        # only sentences the detectors do not flag; capped like the extractive tiers
        prose = [sentence for _, sentence in salient_sentences(text, self.detectors, min_score=0)]
        digest.older = []
        digest.recent = _fit(
            prose, self.max_recent_tokens + self.max_older_tokens, keep_newest=False
        )


def _fit_indexes(ranked: Sequence[int], lines: Sequence[str], max_tokens: int) -> list[int]:
    chosen: list[int] = []
    used = 0
    for index in ranked:
        cost = estimate_text_tokens(lines[index]) + 1
        if used + cost <= max_tokens:
            chosen.append(index)
            used += cost
    return chosen


def _dedupe(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def _add_unique(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)


def _event_content(event: Event) -> types.Content | None:
    compaction = event.actions.compaction if event.actions else None
    if compaction is not None and compaction.compacted_content is not None:
        return compaction.compacted_content
    return event.content


def _resolve_model(model: BaseLlm | str | None) -> BaseLlm | None:
    if model is None or isinstance(model, BaseLlm):
        return model
    if not isinstance(model, str) or not model.strip():
        raise InvalidInputError("model must be None, a BaseLlm, a model name or 'auto'")
    if model == AUTO:
        if not has_model_access():
            return None
        model = DEFAULT_GEMINI
    from google.adk.models.registry import LLMRegistry

    try:
        return LLMRegistry.new_llm(model)
    except Exception as exc:
        raise InvalidInputError(
            "model is not a name ADK's LLMRegistry knows; pass a BaseLlm instead"
        ) from exc
