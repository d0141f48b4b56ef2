"""The default assembly: the storage floor and the router put together, in one place to read.

:class:`PgVectorMemoryService` is :class:`~adk_memory_kit.memory.service.BasePgVectorMemoryService`
(storage, search, curation; no language) with the routed write policy wired in by
:func:`default_memory_config`. Pass your own ``RoutedOptions`` (or any
:class:`~adk_memory_kit.core.session_policy.SessionSelector`) as ``routed_options`` to replace it,
or ``write_policy="full_transcript"`` to store every text event.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit.core.session_policy import WritePolicy
from adk_memory_kit.embedders.base import Embedder
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

    The arguments are the floor's (``db_url``, ``config``, ``embedder``, ``engine``, ``uri``,
    ``agents_dir``); only the default write policy's selector is added here."""

    def __init__(
        self,
        db_url: str | None = None,
        *,
        config: MemoryConfig | None = None,
        embedder: Embedder | None = None,
        engine: AsyncEngine | None = None,
        uri: str | None = None,
        agents_dir: str | None = None,
        **unknown: Any,
    ) -> None:
        if isinstance(config, MemoryConfig) and not unknown:
            config = default_memory_config(config)
        elif config is None and not unknown:
            config = default_memory_config(None)
        super().__init__(
            db_url,
            config=config,
            embedder=embedder,
            engine=engine,
            uri=uri,
            agents_dir=agents_dir,
            **unknown,
        )
