"""Long-term memory: PgVectorMemoryService and its options."""

from adk_memory_kit.memory.documents import IndexingOptions
from adk_memory_kit.memory.schema import StorageOptions
from adk_memory_kit.memory.search import SearchOptions
from adk_memory_kit.memory.service import PgVectorMemoryService

__all__ = ["IndexingOptions", "PgVectorMemoryService", "SearchOptions", "StorageOptions"]
