"""adk-memory-kit: real memory for Google ADK agents."""

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

__version__ = "0.1.0"

__all__ = [
    "DatabaseUnavailableError",
    "Embedder",
    "EmbedderError",
    "EmbeddingDimensionError",
    "GeminiEmbedder",
    "InvalidInputError",
    "LocalMiniLMEmbedder",
    "MemoryKitError",
    "SchemaMismatchError",
    "embedded_db_url",
    "kit_home",
]
