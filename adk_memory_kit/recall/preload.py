"""A budgeted preload tool: ADK's ``preload_memory`` with a token cap and a result cap.

Like ADK's ``PreloadMemoryTool`` it searches memory with the user's message before each model
call (through ``tool_context.search_memory``, so any ``BaseMemoryService`` works) and adds the
results to the request as a *user-role content* at the current-turn boundary, never to
``system_instruction``. Unlike it, the block is framed as dated, quoted data
(:mod:`adk_memory_kit.recall.framing`), the conflict rule is applied
(:mod:`adk_memory_kit.recall.conflicts`), and the whole block is kept within ``max_tokens``
and ``max_results``: recalled memory that crowds out the conversation costs more than it helps.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions.state import State
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types
from pydantic import Field, field_validator
from typing_extensions import override

from adk_memory_kit._adk_compat import insert_transient_user_content
from adk_memory_kit.core.config import KitConfig
from adk_memory_kit.core.db_errors import contained_doors, describe
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.profile.state import ProfileValue, profile_from_state
from adk_memory_kit.recall.conflicts import RecalledMemory, find_conflicts
from adk_memory_kit.recall.framing import profile_lines, render_memory, wrap
from adk_memory_kit.recall.scoped import search_as_agent

if TYPE_CHECKING:
    from google.adk.models.llm_request import LlmRequest

logger = logging.getLogger(__name__)

TRUNCATION_MARK = " …[truncated]"


def estimate_tokens(text: str) -> int:
    """A cheap, model-free token estimate (about four characters per token)."""
    return (len(text) + 3) // 4


@dataclass(frozen=True)
class RecallBlock:
    """The framed block (``text`` is empty when nothing fits) and what went into it."""

    text: str
    included: int
    omitted: int
    tokens: int
    truncated: int = 0


def build_recall_block(
    entries: Sequence[MemoryEntry],
    profile: Mapping[str, ProfileValue] | None = None,
    *,
    max_tokens: int = 800,
    max_results: int = 5,
    count_tokens: Callable[[str], int] = estimate_tokens,
    include_full_profile: bool = True,
    min_item_chars: int = 40,
    known_values: Mapping[str, Iterable[str]] | None = None,
    subject_terms: Mapping[str, Iterable[str]] | None = None,
) -> RecallBlock:
    """Frame ``entries`` (best first) within ``max_tokens`` and ``max_results``.

    Items are added in order while the whole block still fits; an item that does not fit is
    truncated if at least ``min_item_chars`` of it fit, else skipped. The current profile
    (``user:pref_*``, small by construction) is shown in full, so the model always sees the
    authoritative values beside what is recalled; when the full profile would leave no room
    for a single memory, only the values a memory disagrees with are shown. With
    ``include_full_profile=False`` only those are ever shown. ``known_values`` and
    ``subject_terms`` tell the conflict rule what a memory is about
    (:func:`~adk_memory_kit.recall.conflicts.find_conflicts`).
    """
    if max_tokens <= 0 or max_results <= 0:
        raise InvalidInputError("max_tokens and max_results must be positive")
    profile = dict(profile or {})
    memories = [m for m in (RecalledMemory.from_entry(e) for e in entries) if m.text.strip()]
    pool = memories[:max_results]

    def render(selection: list[tuple[RecalledMemory, str]], full_profile: bool) -> str:
        full = [m for m, _ in selection]
        conflicts = find_conflicts(
            full, profile, known_values=known_values, subject_terms=subject_terms
        )
        if full_profile:
            shown = profile
        else:
            names = {c.subject for c in conflicts if c.winner == "profile"}
            shown = {n: v for n, v in profile.items() if n in names}
        lines = profile_lines(shown)
        lines.append("Recalled items (quoted past content):")
        lines.extend(
            render_memory(i, replace(m, text=shown_text), conflicts)
            for i, (m, shown_text) in enumerate(selection)
        )
        return wrap(lines)

    def select(full_profile: bool) -> tuple[list[tuple[RecalledMemory, str]], int]:
        chosen: list[tuple[RecalledMemory, str]] = []
        truncated = 0
        for memory in pool:
            if count_tokens(render([*chosen, (memory, memory.text)], full_profile)) <= max_tokens:
                chosen.append((memory, memory.text))
                continue
            low, high = 0, len(memory.text)  # longest prefix that still fits
            while low < high:
                mid = (low + high + 1) // 2
                cut = memory.text[:mid].rstrip() + TRUNCATION_MARK
                if count_tokens(render([*chosen, (memory, cut)], full_profile)) <= max_tokens:
                    low = mid
                else:
                    high = mid - 1
            if low >= min_item_chars:
                chosen.append((memory, memory.text[:low].rstrip() + TRUNCATION_MARK))
                truncated += 1
        return chosen, truncated

    full_profile = include_full_profile and bool(profile)
    chosen, truncated = select(full_profile)
    if not chosen and full_profile:
        full_profile = False
        chosen, truncated = select(full_profile)
    if not chosen:
        return RecallBlock("", 0, len(memories), 0)
    text = render(chosen, full_profile)
    return RecallBlock(
        text, len(chosen), len(memories) - len(chosen), count_tokens(text), truncated
    )


def user_query(tool_context: ToolContext, max_chars: int) -> str:
    """The text of the user's message of this turn, cut to ``max_chars``."""
    content = tool_context.user_content
    parts = (content.parts or []) if content else []
    return " ".join(p.text for p in parts if p.text and not p.thought).strip()[:max_chars]


def insert_user_content(llm_request: LlmRequest, content: types.Content) -> None:
    """Put ``content`` at the current-turn boundary of the request, as ADK's preload does."""
    insert_transient_user_content(llm_request, [content])


def as_value_tuples(
    values: Mapping[str, Iterable[str]] | None,
) -> Mapping[str, tuple[str, ...]] | None:
    """``values`` with each entry a tuple (a bare string is one value).

    Anything else is returned as it is, for :class:`RecallBudget`'s validation to refuse
    with an error naming the field.
    """
    if not isinstance(values, Mapping):
        return values
    return {
        k: (v,) if isinstance(v, str) else tuple(v) if isinstance(v, Iterable) else v
        for k, v in values.items()
    }


class RecallBudget(KitConfig):
    """How recalled memories are framed: the caps and the conflict-rule vocabulary.

    Shared by the preload tool and the on-demand ``load_memory`` tool, so both frame memory
    the same way. A wrong value raises :class:`~adk_memory_kit.errors.InvalidInputError` at
    construction.
    """

    max_tokens: int = Field(
        800, gt=0, description="Cap on the whole recalled block, as ``count_tokens`` measures."
    )
    max_results: int = Field(5, gt=0, description="Cap on how many memories may appear.")
    count_tokens: Callable[[str], int] = Field(
        estimate_tokens, description="Token counter for the block (default: chars / 4)."
    )
    include_full_profile: bool = Field(
        True,
        description="Show every ``user:pref_*`` value, not only those a memory disagrees with.",
    )
    known_values: Mapping[str, tuple[str, ...]] | None = Field(
        None,
        description="Per preference, values that say a memory is about it (conflict rule); "
        "``None``: ``DEFAULT_KNOWN_VALUES``.",
    )
    subject_terms: Mapping[str, tuple[str, ...]] | None = Field(
        None,
        description="Per preference, words that say a memory is about it (conflict rule); "
        "``None``: ``DEFAULT_SUBJECT_TERMS``.",
    )

    @field_validator("known_values", "subject_terms", mode="before")
    @classmethod
    def _values_as_tuples(cls, value: Any) -> Any:
        return as_value_tuples(value)

    def frame(
        self, memories: Sequence[MemoryEntry], state: Mapping[str, object] | State
    ) -> RecallBlock:
        """The framed block for ``memories`` (best first) against the profile in ``state``."""
        return build_recall_block(
            list(memories),
            profile_from_state(state),
            max_tokens=self.max_tokens,
            max_results=self.max_results,
            count_tokens=self.count_tokens,
            include_full_profile=self.include_full_profile,
            known_values=self.known_values,
            subject_terms=self.subject_terms,
        )


def recall_budget(budget: RecallBudget | None, options: Mapping[str, Any]) -> RecallBudget:
    """``budget``, or one built from ``options`` (:class:`RecallBudget`'s fields), not both."""
    return RecallBudget.given(budget, options, name="budget")


@contained_doors
class BudgetedPreloadMemoryTool(BaseTool):
    """Preloads this user's memories into each request, framed as dated data, within a budget.

    Args:
        budget: the caps and the conflict-rule vocabulary (:class:`RecallBudget`); or give
            its fields by keyword (``max_tokens=400, max_results=3``), not both.
        max_query_chars: the user's message is cut to this length before searching.
    """

    def __init__(
        self,
        budget: RecallBudget | None = None,
        *,
        max_query_chars: int = 2000,
        name: str = "budgeted_preload_memory",
        **options: Any,
    ) -> None:
        super().__init__(name=name, description="Preloads budgeted, framed memories.")
        self.budget = recall_budget(budget, options)
        self.max_query_chars = max_query_chars
        self._cache: OrderedDict[tuple[str, str], list[MemoryEntry]] = OrderedDict()

    async def recall(self, tool_context: ToolContext) -> RecallBlock:
        """Search with the user's message and build the block.

        The search runs once per invocation (a turn with tool calls asks the model several
        times); the block is rebuilt each time so a profile changed mid-turn is current.
        """
        query = user_query(tool_context, self.max_query_chars)
        if not query:
            return RecallBlock("", 0, 0, 0)
        key = (tool_context.invocation_id, query)
        memories = self._cache.get(key)
        if memories is None:
            try:
                memories = list((await search_as_agent(tool_context, query)).memories)
            except Exception as exc:  # recall must never break the turn
                logger.warning(
                    "memory preload failed (query length %d): %s", len(query), describe(exc)
                )
                return RecallBlock("", 0, 0, 0)
            self._cache[key] = memories
            while len(self._cache) > 64:
                self._cache.popitem(last=False)
        return self.budget.frame(memories, tool_context.state)

    @override
    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        block = await self.recall(tool_context)
        if block.text:
            insert_user_content(
                llm_request, types.Content(role="user", parts=[types.Part(text=block.text)])
            )
