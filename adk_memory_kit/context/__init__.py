"""Context engineering beyond pruning: fact-preserving summaries and a hard token budget."""

from __future__ import annotations

from adk_memory_kit.context.budget import (
    CUT_KEY,
    REPORT_KEY,
    STATE_PREFIX,
    BudgetRecord,
    BudgetReport,
    ContextBudget,
)
from adk_memory_kit.context.config import ContextBudgetConfig
from adk_memory_kit.context.plugin import ContextBudgetPlugin
from adk_memory_kit.context.sections import SECTIONS
from adk_memory_kit.context.summarizer import (
    FactPreservingSummarizer,
    parse_summary,
)
from adk_memory_kit.context.summary_config import DEFAULT_DISTILLED_TOOLS, SummarizerConfig
from adk_memory_kit.context.values import ExactValue, find_exact_values, salient_sentences

__all__ = [
    "CUT_KEY",
    "DEFAULT_DISTILLED_TOOLS",
    "REPORT_KEY",
    "SECTIONS",
    "STATE_PREFIX",
    "BudgetRecord",
    "BudgetReport",
    "ContextBudget",
    "ContextBudgetConfig",
    "ContextBudgetPlugin",
    "ExactValue",
    "FactPreservingSummarizer",
    "SummarizerConfig",
    "find_exact_values",
    "parse_summary",
    "salient_sentences",
]
