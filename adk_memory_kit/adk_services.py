"""The ``pgvector://`` scheme for ADK's service registry (``adk web``, ``adk api_server``).

Memory (``--memory_service_uri``) and sessions (``--session_service_uri``) alike:

- ``pgvector://`` -> the embedded PostgreSQL under ``ADK_MEMORY_KIT_HOME`` (or
  ``ADK_MEMORY_KIT_DB_URL`` when set);
- ``pgvector://user:password@host:5432/dbname`` -> that server (pgvector extension required).

Sessions go to ADK's own ``DatabaseSessionService`` on the same database, so long-term memory,
sessions, ``user:`` state, the idle job's watermarks and the review queue live in one Postgres.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from google.adk.sessions.database_session_service import DatabaseSessionService

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.db.engine import is_default_uri, normalize_db_url, resolve_db_url

SCHEME = "pgvector"


def db_url_from_uri(uri: str) -> str | None:
    """``pgvector://...`` -> a SQLAlchemy URL, or ``None`` for the default database."""
    if urlsplit(uri).scheme != SCHEME:
        raise ValueError(f"expected a {SCHEME}:// URI, got {uri!r}")
    return None if is_default_uri(uri) else normalize_db_url(uri)


def pgvector_memory_factory(uri: str, **kwargs: Any) -> PgVectorMemoryService:
    """Memory factory with the signature ADK's registry expects (``agents_dir`` is ignored;
    other keywords are :class:`~adk_memory_kit.memory.config.MemoryConfig` fields)."""
    kwargs.pop("agents_dir", None)
    return PgVectorMemoryService.from_url(uri, **kwargs)


def pgvector_session_factory(uri: str, **kwargs: Any) -> DatabaseSessionService:
    """Session factory: ADK's ``DatabaseSessionService`` on the same database as memory."""
    kwargs.pop("agents_dir", None)
    return DatabaseSessionService(db_url=resolve_db_url(db_url_from_uri(uri)), **kwargs)


def register_pgvector_services() -> None:
    """Register ``pgvector://`` for memory and sessions (safe to call more than once)."""
    from google.adk.cli.service_registry import get_service_registry

    registry = get_service_registry()
    registry.register_memory_service(SCHEME, pgvector_memory_factory)
    registry.register_session_service(SCHEME, pgvector_session_factory)
