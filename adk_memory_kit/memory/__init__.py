"""Long-term memory: PgVectorMemoryService and its options."""

from adk_memory_kit.memory.ann import build_user_index, index_heavy_users
from adk_memory_kit.memory.documents import IndexingOptions
from adk_memory_kit.memory.search import SearchOptions
from adk_memory_kit.memory.service import PgVectorMemoryService

__all__ = [
    "IndexingOptions",
    "PgVectorMemoryService",
    "SearchOptions",
    "build_user_index",
    "index_heavy_users",
]
