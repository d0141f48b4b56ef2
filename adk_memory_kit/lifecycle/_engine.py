"""Which Postgres the lifecycle tables live in."""

from __future__ import annotations

import asyncio

from google.adk.memory.base_memory_service import BaseMemoryService
from google.adk.sessions.base_session_service import BaseSessionService
from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit.db.engine import make_engine


async def resolve_engine(
    *,
    engine: AsyncEngine | None,
    db_url: str | None,
    memory_service: BaseMemoryService | None,
    session_service: BaseSessionService | None,
) -> tuple[AsyncEngine, bool]:
    """Return ``(engine, owned)``.

    Order: an explicit ``engine``, an explicit ``db_url``, the engine of a
    ``PgVectorMemoryService``, the engine of a ``DatabaseSessionService`` on PostgreSQL,
    else ``ADK_MEMORY_KIT_DB_URL`` / the embedded server. The idle job and ``forget_user``
    resolve it the same way, so they see the same watermarks and forget log.
    """
    if engine is not None:
        return engine, False
    if db_url is not None:
        return await asyncio.to_thread(make_engine, db_url, pool_size=2), True
    from adk_memory_kit.assembly import PgVectorMemoryService

    if isinstance(memory_service, PgVectorMemoryService):
        return await asyncio.to_thread(lambda: memory_service.store.engine), False
    session_engine = postgres_session_engine(session_service)
    if session_engine is not None:
        return session_engine, False
    return await asyncio.to_thread(make_engine, None, pool_size=2), True


def postgres_session_engine(session_service: BaseSessionService | None) -> AsyncEngine | None:
    """The engine of a ``DatabaseSessionService`` on PostgreSQL, else ``None``."""
    from google.adk.sessions.database_session_service import DatabaseSessionService

    if isinstance(session_service, DatabaseSessionService):
        engine = session_service.db_engine
        if engine.dialect.name == "postgresql":
            return engine
    return None
