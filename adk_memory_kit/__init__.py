"""adk-memory-kit: real memory for Google ADK agents.

The top level holds what the README teaches. Everything else is importable from its package
(``adk_memory_kit.routing``, ``adk_memory_kit.lifecycle``, ``adk_memory_kit.profile``,
``adk_memory_kit.core``, ...); the test double is ``adk_memory_kit.testing.ScriptedLlm``.
"""

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
from adk_memory_kit.core.deprecation import moved_names
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
    RuleConsolidator,
    SearchOptions,
)
from adk_memory_kit.pruning import PruneStaleToolPayloads, ToolPayloadPruningPlugin
from adk_memory_kit.recall import BudgetedPreloadMemoryTool, RecallBudget
from adk_memory_kit.routing import (
    LlmExtractor,
    MemoryApplier,
    MemoryRoutingPlugin,
    RuleBasedExtractor,
    detect_sensitive,
    make_profile_tools,
    route,
)
from adk_memory_kit.routing.apply import set_default_edit_handlers
from adk_memory_kit.routing.edits.conversation_edits import conversation_edit_handlers
from adk_memory_kit.routing.write_policy import RoutedOptions
from adk_memory_kit.tools import MemoryToolset, MemoryToolsetConfig
from adk_memory_kit.working_memory import (
    WorkingMemoryToolset,
    merge_branches_callback,
    merge_working_memory,
    repeated_tool_calls,
    working_memory_guide,
    working_memory_instruction,
)

# the composition root: an applier built without handlers acts on updates and "please forget"
# (the handlers live in lifecycle, above routing)
set_default_edit_handlers(conversation_edit_handlers)

__version__ = "0.1.0"

# Names taken off the top level in 0.1.0 that the README taught before: each resolves from its
# package for one more release, with a DeprecationWarning naming that package.
__getattr__ = moved_names(
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

__all__ = [
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
