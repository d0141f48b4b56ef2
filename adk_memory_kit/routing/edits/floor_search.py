"""The user's memories closest to a text, below the search's relevance floor too."""

from __future__ import annotations

import logging
from typing import Any

from adk_memory_kit.memory.service import BasePgVectorMemoryService

logger = logging.getLogger(__name__)


async def below_the_floor(
    service: Any,
    session: Any,
    subject: str,
    limit: int,
    *,
    include_superseded: bool = True,
) -> list[Any]:
    """The user's ``limit`` memories (superseded ones too, unless ``include_superseded`` is
    false) ranked closest to ``subject`` by the store's hybrid search with its relevance
    floor lifted (the service's ``search_below_floor``): what a request names in other words
    ("my allotment" for a plot where the user grows beans) is often below it. Empty when the
    service is not the kit's, or the search fails (logged, without the subject)."""
    if not isinstance(service, BasePgVectorMemoryService):
        return []
    try:
        return list(
            await service.search_below_floor(
                app_name=session.app_name,
                user_id=session.user_id,
                query=subject,
                limit=limit,
                include_superseded=include_superseded,
            )
        )
    except Exception as exc:  # the caller falls back to what the plain search finds
        logger.warning("conversation edit: no search below the floor (%s)", type(exc).__name__)
        return []
