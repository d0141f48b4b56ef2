"""adk-memory-kit: real memory for Google ADK agents.

The top level holds what the README teaches. Everything else is importable from its package
(``adk_memory_kit.routing``, ``adk_memory_kit.lifecycle``, ``adk_memory_kit.profile``,
``adk_memory_kit.core``, ...); the test double is ``adk_memory_kit.testing.ScriptedLlm``.
"""

from adk_memory_kit.adk_services import register_pgvector_services
from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.context import ContextBudget, ContextBudgetPlugin, FactPreservingSummarizer
from adk_memory_kit.core.model_access import configured_model
from adk_memory_kit.core.session_policy import WritePolicy
from adk_memory_kit.db import embedded_db_url
from adk_memory_kit.embedders import GeminiEmbedder
from adk_memory_kit.episodic import EpisodicLog, EpisodicLogPlugin
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
    MemoryCheckpointPlugin,
    SessionCloser,
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
from adk_memory_kit.recall import BudgetedPreloadMemoryTool
from adk_memory_kit.routing import (
    LlmExtractor,
    MemoryApplier,
    MemoryRoutingPlugin,
    RuleBasedExtractor,
    detect_sensitive,
    make_profile_tools,
    route,
)
from adk_memory_kit.routing.edits.conversation_edits import conversation_edit_handlers
from adk_memory_kit.routing.write_policy import RoutedOptions
from adk_memory_kit.tools import MemoryToolset
from adk_memory_kit.working_memory import (
    WorkingMemoryToolset,
    merge_branches_callback,
    merge_working_memory,
    repeated_tool_calls,
    working_memory_guide,
    working_memory_instruction,
)

__version__ = "0.1.0"

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
]
