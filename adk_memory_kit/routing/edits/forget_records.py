"""What a forget request leaves behind: the record in session state (counts and homes, never
text) and the row in the forget log (ids and counts)."""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from typing import Any

from adk_memory_kit.memory import forget_log
from adk_memory_kit.memory.lifecycle_schema import ensure_lifecycle_schema

logger = logging.getLogger(__name__)


def forget_record(deleted: int, homes: list[str], confirmation: int | str | None) -> dict[str, Any]:
    """The forget record the session state gets: counts and homes, never text;
    ``needs_confirmation`` when the agent should ask (a count of close matches, ``"vague"``
    or ``"unclear"``)."""
    record: dict[str, Any] = {
        "deleted": deleted,
        "homes": homes,
        "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if confirmation:
        record["needs_confirmation"] = confirmation
    return record


async def log_deletion(
    service: Any, session: Any, ids: list[str], homes: list[str], deleted: int
) -> None:
    """The deletion in the forget log (ids and counts, never text), when the service
    has a database engine; a failure to log is reported, never raised."""
    engine = getattr(service, "engine", None)
    if engine is None:
        return
    try:
        await ensure_lifecycle_schema(engine)
        async with engine.begin() as conn:
            await forget_log.record_memory_deletes(
                conn,
                app_name=session.app_name,
                user_id=session.user_id,
                memory_ids=ids,
                homes=homes,
                deleted=deleted,
            )
    except Exception as exc:  # the deletion itself stands; the log line names the error
        logger.warning("forget request: not recorded in the forget log (%s)", type(exc).__name__)
