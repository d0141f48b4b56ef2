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
from adk_memory_kit.memory.query_decomposition import QueryDecomposer
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
    "QueryDecomposer",
    "RuleConsolidator",
    "SearchOptions",
    "SessionWrite",
    "StorageOptions",
    "WriteReport",
    "build_user_index",
    "index_heavy_users",
]


def __getattr__(name: str) -> object:
    """``adk_memory_kit.memory.PgVectorMemoryService`` moved to ``adk_memory_kit`` (the store
    with the router's selector). This floor cannot import the router, so for one release the
    old name gives the floor itself with a warning: it works with
    ``write_policy="full_transcript"`` or a selector of one's own, and with the routed default
    it refuses to build, naming the new home."""
    if name == "PgVectorMemoryService":
        import warnings

        warnings.warn(
            "adk_memory_kit.memory.PgVectorMemoryService moved to "
            "adk_memory_kit.PgVectorMemoryService (the store with the router's selector); this "
            "name gives the storage floor, BasePgVectorMemoryService, and goes in the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return BasePgVectorMemoryService
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
