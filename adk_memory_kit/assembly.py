"""The default assembly: the storage floor and the router put together, in one place to read.

:class:`PgVectorMemoryService` is :class:`~adk_memory_kit.memory.service.BasePgVectorMemoryService`
(storage, search, curation; no language) with the routed write policy wired in by
:func:`default_memory_config`. Pass your own ``RoutedOptions`` (or any
:class:`~adk_memory_kit.core.session_policy.SessionSelector`) as ``routed_options`` to replace it,
or ``write_policy="full_transcript"`` to store every text event.
"""

from __future__ import annotations

from typing_extensions import override

from adk_memory_kit.core.session_policy import WritePolicy
from adk_memory_kit.memory.config import MemoryConfig
from adk_memory_kit.memory.service import BasePgVectorMemoryService
from adk_memory_kit.routing.write_policy import RoutedOptions


def default_memory_config(config: MemoryConfig | None) -> MemoryConfig:
    """``config`` (default: ``MemoryConfig()``) with the routed selector filled in when its
    policy is ``ROUTED`` and it names none: ``RoutedOptions()``, the offline router's choice."""
    config = config or MemoryConfig()
    if config.write_policy is WritePolicy.ROUTED and config.routed_options is None:
        return config.model_copy(update={"routed_options": RoutedOptions()})
    return config


class PgVectorMemoryService(BasePgVectorMemoryService):
    """Long-term memory on PostgreSQL + pgvector, storing what the router keeps of a session.

    Built exactly as the floor (``db_url``, ``config``, ``embedder``, ``engine``; see
    :class:`~adk_memory_kit.memory.service.BasePgVectorMemoryService`); only the routed write
    policy's selector is filled in (:func:`default_memory_config`)."""

    @override
    def completed_config(self, config: MemoryConfig) -> MemoryConfig:
        return default_memory_config(config)
