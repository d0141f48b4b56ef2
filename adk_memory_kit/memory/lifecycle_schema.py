"""The lifecycle tables: idle-job watermarks and the forget log (a deletion tombstone).

Both live in the same Postgres as the memory table and are versioned with the kit's
migration table under the component name ``lifecycle``.
"""

from __future__ import annotations

import weakref
from datetime import datetime, timezone

from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit.db.migrations import Step, migrate
from adk_memory_kit.memory import forget_log
from adk_memory_kit.memory import watermark_steps as watermarks
from adk_memory_kit.memory.forget_log import FORGET_LOG
from adk_memory_kit.memory.watermark_steps import WATERMARKS

__all__ = ["COMPONENT", "FORGET_LOG", "STEPS", "WATERMARKS", "ensure_lifecycle_schema"]

COMPONENT = "lifecycle"

# The lifecycle component's steps, one statement each, in the order they first shipped. Each
# table's DDL lives with the module that owns its SQL; this list only fixes the order.
STEPS: list[Step] = [
    watermarks.CREATE_V1,
    forget_log.CREATE_V1,
    watermarks.ADD_ATTEMPTS_AND_LEASES,
    *forget_log.UPGRADE_TO_RUNS,
    watermarks.MARK_HOME,
]

_ready: weakref.WeakSet[AsyncEngine] = weakref.WeakSet()


async def ensure_lifecycle_schema(engine: AsyncEngine) -> None:
    """Create or migrate the lifecycle tables (once per engine; concurrent calls are safe)."""
    if engine not in _ready:
        await migrate(engine, COMPONENT, STEPS)
        _ready.add(engine)


def to_datetime(timestamp: float) -> datetime:
    """A session's ``last_update_time`` (POSIX seconds) as an aware UTC datetime (µs)."""
    return datetime.fromtimestamp(timestamp, tz=timezone.utc)
