"""IndexUpkeepJob: the maintenance worker of heavy users' partial HNSW indexes.

The service builds a user's index in the background after the write that makes them heavy
(memory/ann.py ``IndexBuilder``). A deployment whose app servers should not build at all
(``SearchOptions(ann_auto_build=False)``), or that wants indexes caught up after a bulk
import that bypassed the service, runs this job instead, in one worker process or several.

Guarantees (the builds' own, memory/ann.py): no search waits for it; one user's index is
never built by two processes at once (the index's advisory lock: the second skips it); at
most one heavy job at a time runs on the server (the heavy-work slot: a pass waits for it,
holding no connection meanwhile); each build runs without parallel workers, with memory
capped by the host, its backend at the lowest CPU priority where the server is local. A pass
that fails (the database went away) is logged by type and retried on the next one.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from adk_memory_kit.core.db_errors import db_doors
from adk_memory_kit.core.validation import check_number
from adk_memory_kit.errors import MemoryKitError
from adk_memory_kit.memory import BasePgVectorMemoryService, index_heavy_users

logger = logging.getLogger(__name__)


@db_doors
@dataclass
class IndexUpkeepJob:
    """Build (or densify) every heavy user's index the service's searches would use.

    ``memory``: the service whose store and ``heavy_user_rows`` are used; ``interval_s``:
    the pause between passes of :meth:`run_forever`.
    """

    memory: BasePgVectorMemoryService
    interval_s: float = 300.0

    def __post_init__(self) -> None:
        check_number("interval_s", self.interval_s, minimum=0, exclusive_minimum=True)

    async def run_once(self) -> list[str]:
        """One pass: the index names of every user at or above ``heavy_user_rows`` (each
        built now if it was missing or too sparse, else left as it is)."""
        engine = await self.memory.store.ready()
        min_rows = self.memory.store.search_options.heavy_user_rows
        return await index_heavy_users(engine, min_rows=min_rows)

    async def run_forever(self) -> None:
        """Passes every ``interval_s`` seconds until cancelled; a failed pass is logged (its
        error type only) and the next one tries again."""
        while True:
            try:
                names = await self.run_once()
                logger.info("index upkeep: %d heavy users' indexes current", len(names))
            except MemoryKitError as exc:
                logger.warning("index upkeep pass failed: %s", type(exc).__name__)
            await asyncio.sleep(self.interval_s)
