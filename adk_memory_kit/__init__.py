"""adk-memory-kit: real memory for Google ADK agents.

The top level holds what the README teaches. Everything else is importable from its package
(``adk_memory_kit.routing``, ``adk_memory_kit.lifecycle``, ``adk_memory_kit.profile``,
``adk_memory_kit.core``, ...); the test double is ``adk_memory_kit.testing.ScriptedLlm``.

Importing this package does no work: each name below is imported from its module on first use
(so ``import adk_memory_kit.pruning`` loads pruning alone), and nothing is wired globally.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from adk_memory_kit.core.deprecation import moved_names

if TYPE_CHECKING:
    from adk_memory_kit.adk_services import register_pgvector_services
    from adk_memory_kit.assembly import PgVectorMemoryService
    from adk_memory_kit.context import (
        ContextBudget,
        ContextBudgetConfig,
        ContextBudgetPlugin,
        FactPreservingSummarizer,
        SummarizerConfig,
    )
    from adk_memory_kit.core.config import KitConfig
    from adk_memory_kit.core.model_access import configured_model
    from adk_memory_kit.core.session_policy import WritePolicy
    from adk_memory_kit.db import embedded_db_url
    from adk_memory_kit.embedders import GeminiEmbedder
    from adk_memory_kit.episodic import EpisodicLog, EpisodicLogConfig, EpisodicLogPlugin
    from adk_memory_kit.errors import (
        ContextBudgetExceededError,
        DatabaseUnavailableError,
        EmbeddingDimensionError,
        InvalidInputError,
        MemoryKitError,
        SchemaMismatchError,
    )
    from adk_memory_kit.lifecycle import (
        IdleIngestJob,
        MemoryCheckpointConfig,
        MemoryCheckpointPlugin,
        SessionCloser,
        SessionCloserConfig,
        SleepTimeDistiller,
        data_map,
        end_session_tool,
        forget_user,
    )
    from adk_memory_kit.memory import (
        IndexingOptions,
        LlmConsolidator,
        MemoryConfig,
        QueryDecomposer,
        RuleConsolidator,
        SearchOptions,
    )
    from adk_memory_kit.pruning import PruneStaleToolPayloads, ToolPayloadPruningPlugin
    from adk_memory_kit.recall import BudgetedPreloadMemoryTool, FramedLoadMemoryTool, RecallBudget
    from adk_memory_kit.routing import (
        LlmExtractor,
        MemoryApplier,
        MemoryRoutingPlugin,
        RuleBasedExtractor,
        detect_sensitive,
        make_profile_tools,
        route,
    )
    from adk_memory_kit.routing.approved_instructions import ApprovedInstructionsPlugin
    from adk_memory_kit.routing.edits.conversation_edits import conversation_edit_handlers
    from adk_memory_kit.routing.write_policy import RoutedOptions
    from adk_memory_kit.sensitive import UserMessageRedactionPlugin
    from adk_memory_kit.stack import MemoryKit
    from adk_memory_kit.tools import MemoryToolset, MemoryToolsetConfig
    from adk_memory_kit.working_memory import (
        WorkingMemoryToolset,
        merge_branches_callback,
        merge_working_memory,
        repeated_tool_calls,
        working_memory_guide,
        working_memory_instruction,
    )

__version__ = "0.1.0"

#: Each public name -> the module it is imported from on first use.
_EXPORTS: dict[str, str] = {
    "configured_model": "adk_memory_kit.core.model_access",
    "conversation_edit_handlers": "adk_memory_kit.routing.edits.conversation_edits",
    "PgVectorMemoryService": "adk_memory_kit.assembly",
    "MemoryConfig": "adk_memory_kit.memory",
    "WritePolicy": "adk_memory_kit.core.session_policy",
    "RoutedOptions": "adk_memory_kit.routing.write_policy",
    "SearchOptions": "adk_memory_kit.memory",
    "IndexingOptions": "adk_memory_kit.memory",
    "RuleConsolidator": "adk_memory_kit.memory",
    "LlmConsolidator": "adk_memory_kit.memory",
    "QueryDecomposer": "adk_memory_kit.memory",
    "GeminiEmbedder": "adk_memory_kit.embedders",
    "embedded_db_url": "adk_memory_kit.db",
    "register_pgvector_services": "adk_memory_kit.adk_services",
    "MemoryKitError": "adk_memory_kit.errors",
    "InvalidInputError": "adk_memory_kit.errors",
    "SchemaMismatchError": "adk_memory_kit.errors",
    "EmbeddingDimensionError": "adk_memory_kit.errors",
    "DatabaseUnavailableError": "adk_memory_kit.errors",
    "PruneStaleToolPayloads": "adk_memory_kit.pruning",
    "ToolPayloadPruningPlugin": "adk_memory_kit.pruning",
    "WorkingMemoryToolset": "adk_memory_kit.working_memory",
    "working_memory_guide": "adk_memory_kit.working_memory",
    "working_memory_instruction": "adk_memory_kit.working_memory",
    "merge_working_memory": "adk_memory_kit.working_memory",
    "merge_branches_callback": "adk_memory_kit.working_memory",
    "repeated_tool_calls": "adk_memory_kit.working_memory",
    "SessionCloser": "adk_memory_kit.lifecycle",
    "end_session_tool": "adk_memory_kit.lifecycle",
    "MemoryCheckpointPlugin": "adk_memory_kit.lifecycle",
    "IdleIngestJob": "adk_memory_kit.lifecycle",
    "forget_user": "adk_memory_kit.lifecycle",
    "data_map": "adk_memory_kit.lifecycle",
    "route": "adk_memory_kit.routing",
    "MemoryRoutingPlugin": "adk_memory_kit.routing",
    "RuleBasedExtractor": "adk_memory_kit.routing",
    "LlmExtractor": "adk_memory_kit.routing",
    "MemoryApplier": "adk_memory_kit.routing",
    "MemoryToolset": "adk_memory_kit.tools",
    "SleepTimeDistiller": "adk_memory_kit.lifecycle",
    "detect_sensitive": "adk_memory_kit.routing",
    "make_profile_tools": "adk_memory_kit.routing",
    "BudgetedPreloadMemoryTool": "adk_memory_kit.recall",
    "EpisodicLog": "adk_memory_kit.episodic",
    "EpisodicLogPlugin": "adk_memory_kit.episodic",
    "FactPreservingSummarizer": "adk_memory_kit.context",
    "ContextBudgetPlugin": "adk_memory_kit.context",
    "ContextBudget": "adk_memory_kit.context",
    "ContextBudgetExceededError": "adk_memory_kit.errors",
    "KitConfig": "adk_memory_kit.core.config",
    "SummarizerConfig": "adk_memory_kit.context",
    "ContextBudgetConfig": "adk_memory_kit.context",
    "RecallBudget": "adk_memory_kit.recall",
    "FramedLoadMemoryTool": "adk_memory_kit.recall",
    "MemoryKit": "adk_memory_kit.stack",
    "ApprovedInstructionsPlugin": "adk_memory_kit.routing.approved_instructions",
    "UserMessageRedactionPlugin": "adk_memory_kit.sensitive",
    "EpisodicLogConfig": "adk_memory_kit.episodic",
    "SessionCloserConfig": "adk_memory_kit.lifecycle",
    "MemoryCheckpointConfig": "adk_memory_kit.lifecycle",
    "MemoryToolsetConfig": "adk_memory_kit.tools",
}

# Names taken off the top level in 0.1.0 that the README taught before: each resolves from its
# package for one more release, with a DeprecationWarning naming that package.
_moved = moved_names(
    __name__,
    {
        "Candidate": "adk_memory_kit.routing",
        "CloseResult": "adk_memory_kit.lifecycle",
        "DEFAULT_DETECTORS": "adk_memory_kit.routing",
        "DEFAULT_VOCABULARY": "adk_memory_kit.profile",
        "DataHome": "adk_memory_kit.core",
        "DataMap": "adk_memory_kit.lifecycle",
        "Embedder": "adk_memory_kit.embedders",
        "EmbedderError": "adk_memory_kit.errors",
        "ExtractionError": "adk_memory_kit.routing",
        "ForgetReport": "adk_memory_kit.lifecycle",
        "IdleRunReport": "adk_memory_kit.lifecycle",
        "LocalMiniLMEmbedder": "adk_memory_kit.embedders",
        "MemoryHome": "adk_memory_kit.routing",
        "PreferenceVocabulary": "adk_memory_kit.profile",
        "PrunedPayload": "adk_memory_kit.pruning",
        "PruningRecord": "adk_memory_kit.pruning",
        "PruningReport": "adk_memory_kit.pruning",
        "RegexDetector": "adk_memory_kit.routing",
        "ReviewQueue": "adk_memory_kit.routing",
        "RoutingOutcome": "adk_memory_kit.routing",
        "Scratchpad": "adk_memory_kit.working_memory",
        "SessionKey": "adk_memory_kit.lifecycle",
        "UnknownPreferenceError": "adk_memory_kit.profile",
        "WorkingMemoryConfig": "adk_memory_kit.working_memory",
        "default_tombstone": "adk_memory_kit.pruning",
        "estimate_request_tokens": "adk_memory_kit.pruning",
        "find_conflicts": "adk_memory_kit.recall",
        "frame_memories": "adk_memory_kit.recall",
        "kit_home": "adk_memory_kit.db",
        "memory_routing_callback": "adk_memory_kit.routing",
        "pending_forgets": "adk_memory_kit.lifecycle",
        "tool_calls_by_task": "adk_memory_kit.working_memory",
    },
)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        return _moved(name)
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # resolved once
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = [
    # the recommended stack
    "MemoryKit",
    "FramedLoadMemoryTool",
    "ApprovedInstructionsPlugin",
    "UserMessageRedactionPlugin",
    "configured_model",
    # updates and "please forget", said in the conversation (routing applier handlers)
    "conversation_edit_handlers",
    # long-term memory
    "PgVectorMemoryService",
    "MemoryConfig",
    "WritePolicy",
    "RoutedOptions",
    "SearchOptions",
    "IndexingOptions",
    "RuleConsolidator",
    "LlmConsolidator",
    "QueryDecomposer",
    "GeminiEmbedder",
    "embedded_db_url",
    "register_pgvector_services",
    # errors
    "MemoryKitError",
    "InvalidInputError",
    "SchemaMismatchError",
    "EmbeddingDimensionError",
    "DatabaseUnavailableError",
    # pruning
    "PruneStaleToolPayloads",
    "ToolPayloadPruningPlugin",
    # working memory
    "WorkingMemoryToolset",
    "working_memory_guide",
    "working_memory_instruction",
    "merge_working_memory",
    "merge_branches_callback",
    "repeated_tool_calls",
    # session lifecycle
    "SessionCloser",
    "end_session_tool",
    "MemoryCheckpointPlugin",
    "IdleIngestJob",
    "forget_user",
    "data_map",
    # routing and recall
    "route",
    "MemoryRoutingPlugin",
    "RuleBasedExtractor",
    "LlmExtractor",
    "MemoryApplier",
    "MemoryToolset",
    "SleepTimeDistiller",
    "detect_sensitive",
    "make_profile_tools",
    "BudgetedPreloadMemoryTool",
    # episodic log
    "EpisodicLog",
    "EpisodicLogPlugin",
    # context: compaction and the token budget
    "FactPreservingSummarizer",
    "ContextBudgetPlugin",
    "ContextBudget",
    "ContextBudgetExceededError",
    # options (KitConfig models)
    "KitConfig",
    "SummarizerConfig",
    "ContextBudgetConfig",
    "RecallBudget",
    "EpisodicLogConfig",
    "SessionCloserConfig",
    "MemoryCheckpointConfig",
    "MemoryToolsetConfig",
]
