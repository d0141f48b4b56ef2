"""Long-term memory: PgVectorMemoryService, its configuration and its options."""

from adk_memory_kit.memory.ann import build_user_index, index_heavy_users
from adk_memory_kit.memory.config import (
    IndexingOptions,
    MemoryConfig,
    SearchOptions,
    StorageOptions,
)
from adk_memory_kit.memory.consolidation import (
    ConsolidationDecision,
    Consolidator,
    Decision,
    IncomingFact,
    LlmConsolidator,
    Outcome,
    RuleConsolidator,
)
from adk_memory_kit.memory.hygiene import MEMORY_TYPES
from adk_memory_kit.memory.reports import (
    Correction,
    EntryOutcome,
    MemoryMetrics,
    PurgeReport,
    SessionWrite,
    WriteReport,
)
from adk_memory_kit.memory.service import BasePgVectorMemoryService

__all__ = [
    "MEMORY_TYPES",
    "ConsolidationDecision",
    "Consolidator",
    "Correction",
    "Decision",
    "EntryOutcome",
    "IncomingFact",
    "IndexingOptions",
    "LlmConsolidator",
    "MemoryConfig",
    "MemoryMetrics",
    "Outcome",
    "BasePgVectorMemoryService",
    "PurgeReport",
    "RuleConsolidator",
    "SearchOptions",
    "SessionWrite",
    "StorageOptions",
    "WriteReport",
    "build_user_index",
    "index_heavy_users",
]
