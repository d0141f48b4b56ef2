"""adk-memory-kit: real memory for Google ADK agents."""

from adk_memory_kit.adk_services import register_pgvector_memory_service
from adk_memory_kit.db import embedded_db_url, kit_home
from adk_memory_kit.embedders import Embedder, GeminiEmbedder, LocalMiniLMEmbedder
from adk_memory_kit.errors import (
    DatabaseUnavailableError,
    EmbedderError,
    EmbeddingDimensionError,
    InvalidInputError,
    MemoryKitError,
    SchemaMismatchError,
)
from adk_memory_kit.lifecycle import (
    CloseResult,
    DataHome,
    DataMap,
    ForgetReport,
    IdleIngestJob,
    IdleRunReport,
    MemoryCheckpointPlugin,
    SessionCloser,
    SessionKey,
    data_map,
    end_session_tool,
    forget_user,
    pending_forgets,
    register_data_home,
)
from adk_memory_kit.memory import IndexingOptions, PgVectorMemoryService, SearchOptions
from adk_memory_kit.pruning import (
    PrunedPayload,
    PruneStaleToolPayloads,
    PruningRecord,
    PruningReport,
    ToolPayloadPruningPlugin,
    default_tombstone,
    estimate_request_tokens,
)

__version__ = "0.1.0"

__all__ = [
    "PrunedPayload",
    "PruneStaleToolPayloads",
    "PruningRecord",
    "PruningReport",
    "ToolPayloadPruningPlugin",
    "default_tombstone",
    "estimate_request_tokens",
    "CloseResult",
    "DataHome",
    "DataMap",
    "ForgetReport",
    "IdleIngestJob",
    "IdleRunReport",
    "MemoryCheckpointPlugin",
    "SessionCloser",
    "SessionKey",
    "data_map",
    "end_session_tool",
    "forget_user",
    "pending_forgets",
    "register_data_home",
    "DatabaseUnavailableError",
    "Embedder",
    "EmbedderError",
    "EmbeddingDimensionError",
    "GeminiEmbedder",
    "IndexingOptions",
    "InvalidInputError",
    "LocalMiniLMEmbedder",
    "MemoryKitError",
    "PgVectorMemoryService",
    "SchemaMismatchError",
    "SearchOptions",
    "embedded_db_url",
    "kit_home",
    "register_pgvector_memory_service",
]
