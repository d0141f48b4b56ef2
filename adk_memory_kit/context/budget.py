"""``ContextBudget``: a hard token budget for every model request, as a ``before_model_callback``.

Guarantee: a request the callback lets through has an estimated size (the kit's
``chars / 4`` estimate, times the calibration ratio, plus ``safety_margin``) of at most
``max_tokens``. When even the smallest allowed request is larger, it raises
:class:`~adk_memory_kit.errors.ContextBudgetExceededError` before the model is called.

Trimming order, cheapest to lose first (each step only when the request is still over):

1. stale tool payloads: the kit's pruner replaces every raw tool result before the current
   invocation with a tombstone (the pruning boundary is kept in session state);
2. recall beyond its cap: ``<RECALLED_MEMORY>`` lines past ``recall_max_tokens``;
3. older history: whole invocations from the oldest on, replaced by one fact-preserving
   summary (``summarizer``) or dropped.

Cache-aware: nothing in the history is edited while the request fits. At a crossing (the
request would exceed ``max_tokens``) steps 1-3 run in one big step, down to ``target_ratio *
max_tokens``; the pruning boundary and the cut are kept in session state, so later requests
repeat the same edits, the prefix stays byte-identical until the next crossing and a
restarted process reproduces it.
4. the minimum: system instruction and tools, working memory and the current invocation
   (newest user message included, never cut) with its older tool payloads pruned, the
   summary and recall left out. If that does not fit, the error is raised.

Function calls and responses stay paired: history is only cut at the start of an
invocation, and payloads are replaced, never removed.
"""

from __future__ import annotations

import hashlib
import logging
import math
from collections import OrderedDict, deque
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from typing_extensions import override

from adk_memory_kit.context.config import MAX_TOKENS, ContextBudgetConfig, Prunable
from adk_memory_kit.context.sections import (
    HISTORY,
    SCOPED_RECALL,
    SECTIONS,
    SYSTEM,
    WORKING_MEMORY,
    layout,
    measure,
)
from adk_memory_kit.context.summarizer import FactPreservingSummarizer
from adk_memory_kit.context.summary_config import DEFAULT_DISTILLED_TOOLS
from adk_memory_kit.errors import ContextBudgetExceededError, InvalidInputError
from adk_memory_kit.pruning.core import prune_contents
from adk_memory_kit.pruning.tokens import (
    estimate_content_tokens,
    estimate_overhead_tokens,
    estimate_text_tokens,
)
from adk_memory_kit.pruning.tombstones import TombstoneCache, tombstone_factory

logger = logging.getLogger(__name__)

STATE_PREFIX = "adk_memory_kit:context:"
"""Prefix of every session-state key the budget writes."""
REPORT_KEY = STATE_PREFIX + "report"
"""Per call: tokens of each section before/after, limit, estimate and whether history moved."""
CUT_KEY = STATE_PREFIX + "cut"
"""Fingerprint (a hash, no text) of the first invocation kept in the request."""
PRUNE_KEY = STATE_PREFIX + "pruned_before"
"""Fingerprint of the invocation before which every prunable tool payload is a tombstone."""


@dataclass
class BudgetRecord:
    """What the budget did to one request (token figures are estimates)."""

    call: int
    max_tokens: int
    before: dict[str, int]
    after: dict[str, int]
    estimate_before: int
    estimate_after: int
    ratio: float
    cut_moved: bool = False
    pruning_crossed: bool = False
    dropped_invocations: int = 0
    summarized: bool = False
    session_id: str | None = None
    invocation_id: str | None = None
    prompt_tokens: int | None = None

    @property
    def history_rewritten(self) -> bool:
        """Whether this call changed the history prefix (a prompt-cache invalidation)."""
        return self.cut_moved or self.pruning_crossed

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict (what goes into session state)."""
        return asdict(self)


_MIN_PAYLOAD_TOKENS = 50


@dataclass
class _Plan:
    contents: list[types.Content]
    estimate: int
    pruned: int = 0
    summarized: bool = False


@dataclass
class _Ctx:
    contents: list[types.Content]
    kinds: list[str]
    starts: list[int]
    overhead: int


@dataclass
class BudgetReport:
    """The latest per-call records of one :class:`ContextBudget` (bounded)."""

    records: deque[BudgetRecord] = field(default_factory=lambda: deque(maxlen=10_000))
    calls: int = 0


def _fingerprint(content: types.Content) -> str:
    data = content.model_dump_json(exclude_none=True).encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()[:16]


def _start_keys(contents: Sequence[types.Content], starts: Sequence[int]) -> list[str]:
    """One key per invocation start: its fingerprint and how often it occurred before."""
    seen: dict[str, int] = {}
    keys = []
    for index in starts:
        digest = _fingerprint(contents[index])
        seen[digest] = seen.get(digest, 0) + 1
        keys.append(f"{digest}:{seen[digest]}")
    return keys


class ContextBudget:
    """Keep every model request within ``max_tokens`` (an ADK ``before_model_callback``).

    ``agent = LlmAgent(..., before_model_callback=budget,
    after_model_callback=budget.after_model_callback)``; or use
    :class:`~adk_memory_kit.context.ContextBudgetPlugin` for every agent of an app.

    Takes its options as a :class:`~adk_memory_kit.context.config.ContextBudgetConfig`
    (``config=``), or as that model's fields by keyword (``ContextBudget(max_tokens=6000,
    target_ratio=0.5)``), not both; a wrong value raises
    :class:`~adk_memory_kit.errors.InvalidInputError` naming the field.
    """

    def __init__(
        self,
        max_tokens: int | None = None,
        *,
        config: ContextBudgetConfig | None = None,
        **options: Any,
    ) -> None:
        if config is None:
            config = ContextBudgetConfig(**{"max_tokens": max_tokens, **options})
        elif max_tokens is not None or options:
            raise InvalidInputError("pass either max_tokens/options or a config, not both")
        elif not isinstance(config, ContextBudgetConfig):
            raise InvalidInputError(
                f"config must be a ContextBudgetConfig, got {type(config).__name__}"
            )
        self.config = config
        self.max_tokens = config.max_tokens
        self.safety_margin = config.safety_margin
        self.target_ratio = config.target_ratio
        self.keep_recent_invocations = config.keep_recent_invocations
        self.recall_max_tokens = (
            config.max_tokens // 6 if config.recall_max_tokens is None else config.recall_max_tokens
        )
        summarizer = config.summarizer
        self.summarizer: FactPreservingSummarizer | None = summarizer
        summary_max_tokens = config.summary_max_tokens
        if summary_max_tokens is None and summarizer is not None:
            summary_max_tokens = (
                summarizer.max_recent_tokens
                + summarizer.max_older_tokens
                + 12 * summarizer.max_values
                + 12 * summarizer.max_tool_values
                + 60
            )
        self.summary_max_tokens = summary_max_tokens or 0
        self._prunable = _predicate(config.prunable, summarizer)
        self._tombstone = tombstone_factory(None, findings_tool=None)
        self._tombstones = TombstoneCache()
        self._summaries: OrderedDict[tuple[str, int], types.Content | None] = OrderedDict()
        self._marks: OrderedDict[str, dict[str, str | None]] = OrderedDict()  # without state
        self._sent: OrderedDict[str, tuple[int, BudgetRecord]] = OrderedDict()
        self._ratio = 1.0
        self.report = BudgetReport()

    # ---- calibration -----------------------------------------------------------------
    @property
    def ratio(self) -> float:
        """Observed prompt tokens per estimated token (never below 1.0)."""
        return self._ratio

    def _scaled(self, estimate: int) -> int:
        return math.ceil(estimate * self._ratio * (1 + self.safety_margin))

    def fits(self, estimate: int, share: float = 1.0) -> bool:
        """Whether an estimate, scaled and with the margin, is within ``share * max_tokens``."""
        return self._scaled(estimate) <= self.max_tokens * share

    def observe(self, estimate: int, prompt_tokens: int) -> None:
        """Calibrate against a provider's ``prompt_token_count`` for a request of ``estimate``."""
        if estimate <= 0 or prompt_tokens <= 0:
            return
        seen = prompt_tokens / estimate
        if seen >= self._ratio:
            self._ratio = seen  # up at once: the guarantee must hold from the next call
        else:
            self._ratio = max(1.0, 0.9 * self._ratio + 0.1 * seen)

    # ---- ADK callbacks ---------------------------------------------------------------
    async def __call__(self, callback_context: Any, llm_request: LlmRequest) -> LlmResponse | None:
        """Fit ``llm_request`` in the budget; raises ``ContextBudgetExceededError`` if it cannot."""
        state = getattr(callback_context, "state", None)
        session_id = _session_id(callback_context)
        stored: dict[str, str | None] = {}
        for key in (CUT_KEY, PRUNE_KEY):
            value = None
            if state is not None:
                try:
                    value = state.get(key)
                except Exception:
                    value = None
            if value is None and session_id is not None:
                value = self._marks.get(session_id, {}).get(key)
            stored[key] = value
        record, marks = await self.apply(
            llm_request, stored_cut=stored[CUT_KEY], stored_prune=stored[PRUNE_KEY]
        )
        record.session_id = session_id
        record.invocation_id = getattr(callback_context, "invocation_id", None)
        if session_id is not None:
            self._marks[session_id] = marks
            self._marks.move_to_end(session_id)
            while len(self._marks) > 10_000:
                self._marks.popitem(last=False)
        if state is not None:
            try:
                for key, value in marks.items():
                    if value != stored[key]:
                        state[key] = value
                state[REPORT_KEY] = record.to_dict()
            except Exception:  # a read-only state: the in-memory marks still apply
                logger.debug("Could not write the context budget to state", exc_info=True)
        if record.invocation_id:
            self._sent[record.invocation_id] = (record.estimate_after, record)
            while len(self._sent) > 1_000:
                self._sent.popitem(last=False)
        logger.info(
            "context budget call=%d limit=%d before=%d after=%d cut_moved=%s pruned=%s "
            "dropped_invocations=%d sections_after=%s",
            record.call,
            self.max_tokens,
            record.estimate_before,
            record.estimate_after,
            record.cut_moved,
            record.pruning_crossed,
            record.dropped_invocations,
            record.after,
        )
        return None

    def after_model_callback(self, callback_context: Any, llm_response: LlmResponse) -> None:
        """Calibrate with the model's ``usage_metadata`` (usable as an ``after_model_callback``)."""
        usage = getattr(llm_response, "usage_metadata", None)
        prompt = getattr(usage, "prompt_token_count", None)
        sent = self._sent.get(getattr(callback_context, "invocation_id", None) or "")
        if sent is None or not prompt:
            return None
        estimate, record = sent
        record.prompt_tokens = prompt
        self.observe(estimate, prompt)
        return None

    # ---- the budget itself -------------------------------------------------------------
    async def apply(
        self,
        llm_request: LlmRequest,
        *,
        stored_cut: str | None = None,
        stored_prune: str | None = None,
    ) -> tuple[BudgetRecord, dict[str, str | None]]:
        """Fit ``llm_request`` (assigning new contents); return the record and the new marks.

        ``stored_cut``/``stored_prune``: the marks of the previous call (:data:`CUT_KEY`,
        :data:`PRUNE_KEY`); a mark whose invocation is no longer in the request is ignored.
        """
        contents = list(llm_request.contents or [])
        lay = layout(contents)
        keys = _start_keys(contents, lay.starts)
        current = lay.starts[-1] if lay.starts else len(contents)
        recent_n = min(self.keep_recent_invocations, len(lay.starts))
        recent_from = lay.starts[-recent_n] if recent_n else 0
        before = measure(llm_request, contents, recent_from)
        overhead = estimate_overhead_tokens(llm_request)
        self.report.calls += 1
        record = BudgetRecord(
            call=self.report.calls,
            max_tokens=self.max_tokens,
            before=before,
            after=before,
            estimate_before=sum(before.values()),
            estimate_after=sum(before.values()),
            ratio=round(self._ratio, 4),
        )
        # the standing marks (1-based positions among the invocation starts; 0 = none)
        position = keys.index(stored_cut) + 1 if stored_cut in keys else 0
        pruned = keys.index(stored_prune) + 1 if stored_prune in keys else 0
        ctx = _Ctx(contents, lay.kinds, lay.starts, overhead)
        plan = await self._plan(ctx, position, pruned, summary=True)
        if not self.fits(plan.estimate):
            # a crossing: one big step down to the target share, cheapest to lose first
            newest = len(lay.starts)  # prune up to the current invocation
            if newest > pruned:
                better = await self._plan(ctx, position, newest, summary=True)
                record.pruning_crossed = better.pruned > plan.pruned
                plan, pruned = better, newest
            if not self.fits(plan.estimate, self.target_ratio):
                trimmed = self._cap_recall(plan.contents)
                estimate = overhead + sum(estimate_content_tokens(c) for c in trimmed)
                if self.fits(estimate, self.target_ratio):
                    plan = _Plan(trimmed, estimate, plan.pruned, plan.summarized)
                else:
                    moved, cut_plan = await self._new_cut(ctx, position, pruned)
                    if moved != position:
                        record.cut_moved = True
                        position, plan = moved, cut_plan
                    if not self.fits(plan.estimate, self.target_ratio):
                        trimmed = self._cap_recall(plan.contents)
                        estimate = overhead + sum(estimate_content_tokens(c) for c in trimmed)
                        plan = _Plan(trimmed, estimate, plan.pruned, plan.summarized)
                    if not self.fits(plan.estimate):
                        plan = self._minimum(llm_request, lay.kinds, contents, current, overhead)
                        if lay.starts and position != len(lay.starts):
                            # later requests start from the current invocation too
                            record.cut_moved, position = True, len(lay.starts)
        record.dropped_invocations = position - 1 if position else 0
        record.summarized = plan.summarized
        llm_request.contents = plan.contents
        new_layout = layout(plan.contents)
        n = min(self.keep_recent_invocations, len(new_layout.starts))
        after = measure(llm_request, plan.contents, new_layout.starts[-n] if n else 0)
        record.after = after
        record.estimate_after = sum(after.values())
        self.report.records.append(record)
        marks = {
            CUT_KEY: keys[position - 1] if position else None,
            PRUNE_KEY: keys[pruned - 1] if pruned else None,
        }
        return record, marks

    async def _plan(self, ctx: _Ctx, position: int, pruned: int, *, summary: bool) -> _Plan:
        """History before invocation ``position`` dropped (and summarised); payloads before
        invocation ``pruned`` replaced by tombstones (positions are 1-based; 0 = none)."""
        contents, kinds, starts = ctx.contents, ctx.kinds, ctx.starts
        cut = starts[position - 1] if position else 0
        dropped = [c for i, c in enumerate(contents[:cut]) if kinds[i] == HISTORY]
        summary_content = None
        if summary and dropped and self.summarizer is not None:
            summary_content = await self._summary(dropped, contents[cut])
        boundary_content = contents[starts[pruned - 1]] if pruned else None
        assembled: list[types.Content] = []
        boundary = 0
        placed = summary_content is None
        for index, content in enumerate(contents):
            if kinds[index] == HISTORY:
                if index < cut:
                    continue
                if summary_content is not None and not placed:
                    assembled.append(summary_content)
                    placed = True
            if content is boundary_content:
                boundary = len(assembled)
            assembled.append(content)
        outcome = prune_contents(
            assembled,
            is_prunable=self._prunable,
            make_tombstone=self._tombstone,
            keep_recent=len(assembled) - boundary,
            min_payload_tokens=_MIN_PAYLOAD_TOKENS,
            overhead_tokens=ctx.overhead,
            cache=self._tombstones,
        )
        return _Plan(
            outcome.contents,
            outcome.tokens_after,
            outcome.pruned_parts,
            summary_content is not None,
        )

    async def _summary(
        self, dropped: list[types.Content], first_kept: types.Content
    ) -> types.Content | None:
        key = (_fingerprint(first_kept), len(dropped))
        if key in self._summaries:
            self._summaries.move_to_end(key)
            return self._summaries[key]
        assert self.summarizer is not None
        content = await self.summarizer.summarize_contents([(c.role or "", c) for c in dropped])
        self._summaries[key] = content
        while len(self._summaries) > 256:
            self._summaries.popitem(last=False)
        return content

    async def _new_cut(self, ctx: _Ctx, position: int, pruned: int) -> tuple[int, _Plan]:
        """Move the cut forward in one big step: to the target share, else as far as needed."""
        last = len(ctx.starts)  # cutting at the current invocation's start
        lo = max(position + 1, 2)
        if lo > last:
            return position, await self._plan(ctx, position, pruned, summary=True)
        reserve = self.summary_max_tokens if self.summarizer is not None else 0

        async def estimate(pos: int) -> int:
            plan = await self._plan(ctx, pos, pruned, summary=False)
            return plan.estimate + reserve

        # the first cut at the target share (binary search: later cuts are never bigger)
        chosen = None
        for share in (self.target_ratio, 1.0):
            low, high = lo, last
            while low <= high:
                middle = (low + high) // 2
                if self.fits(await estimate(middle), share):
                    chosen, high = middle, middle - 1
                else:
                    low = middle + 1
            if chosen is not None:
                break
        chosen = last if chosen is None else chosen
        plan = await self._plan(ctx, chosen, pruned, summary=True)
        if not self.fits(plan.estimate) and plan.summarized:
            plan = await self._plan(ctx, chosen, pruned, summary=False)
        return chosen, plan

    def _cap_recall(self, contents: list[types.Content]) -> list[types.Content]:
        """Recall blocks cut to ``recall_max_tokens`` in total (lowest-ranked lines go first)."""
        room = self.recall_max_tokens
        out: list[types.Content] = []
        for content in contents:
            first = content.parts[0] if content.parts else None
            text = first.text if first is not None else None
            if (
                first is None
                or content.role != "user"
                or not text
                or layout([content]).kinds[0] != SCOPED_RECALL
            ):
                out.append(content)
                continue
            tokens = estimate_content_tokens(content)
            if tokens <= room:
                room -= tokens
                out.append(content)
                continue
            lines = text.split("\n")
            head, body, tail = lines[:2], lines[2:-1], lines[-1:]
            while body and estimate_text_tokens("\n".join(head + body + tail)) > room:
                body.pop()
            if body and estimate_text_tokens("\n".join(head + body + tail)) <= room:
                new_text = "\n".join(head + body + tail)
                room -= estimate_text_tokens(new_text)
                parts = [first.model_copy(update={"text": new_text})]
                out.append(content.model_copy(update={"parts": parts}))
        return out

    def _minimum(
        self,
        llm_request: LlmRequest,
        kinds: list[str],
        contents: list[types.Content],
        current: int,
        overhead: int,
    ) -> _Plan:
        """The smallest allowed request: no recall, no older history, current payloads pruned."""
        kept = [c for i, c in enumerate(contents) if kinds[i] != HISTORY or i >= current]
        kept = [c for c in kept if layout([c]).kinds[0] != SCOPED_RECALL]
        outcome = prune_contents(
            kept,
            is_prunable=self._prunable,
            make_tombstone=self._tombstone,
            keep_recent=1,
            min_payload_tokens=_MIN_PAYLOAD_TOKENS,
            cache=self._tombstones,
            overhead_tokens=overhead,
        )
        if self.fits(outcome.tokens_after):
            return _Plan(outcome.contents, outcome.tokens_after, outcome.pruned_parts, False)
        sections = measure(llm_request, outcome.contents, 0)
        shown = {name: sections[name] for name in SECTIONS if sections[name]}
        needed = self._scaled(outcome.tokens_after)
        raise ContextBudgetExceededError(
            f"The smallest request this context budget allows needs about {needed} tokens "
            f"(estimate x{self._ratio:.2f} calibration + {self.safety_margin:.0%} margin; "
            f"system instruction and tools {sections[SYSTEM]}, working memory "
            f"{sections[WORKING_MEMORY]}, newest invocation {sections['recent']} plus "
            f"{sections['tool_payloads']} of tool payloads), above max_tokens="
            f"{self.max_tokens}. No model call was made. Raise max_tokens, shorten the "
            "instruction or tool declarations, or send a shorter message.",
            needed=needed,
            max_tokens=self.max_tokens,
            sections=shown,
        )

    @override
    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(max_tokens={self.max_tokens}, "
            f"safety_margin={self.safety_margin}, target_ratio={self.target_ratio})"
        )


def _predicate(
    prunable: Prunable, summarizer: FactPreservingSummarizer | None
) -> Callable[[str], bool]:
    if prunable is None:
        protected = set(DEFAULT_DISTILLED_TOOLS)
        if summarizer is not None:
            protected |= summarizer.distilled_tools
        return lambda name: name not in protected
    if isinstance(prunable, frozenset):
        return prunable.__contains__
    return prunable


def _session_id(callback_context: Any) -> str | None:
    try:
        return callback_context.session.id
    except Exception:
        return None


__all__ = [
    "CUT_KEY",
    "MAX_TOKENS",
    "PRUNE_KEY",
    "REPORT_KEY",
    "STATE_PREFIX",
    "BudgetRecord",
    "BudgetReport",
    "ContextBudget",
]
