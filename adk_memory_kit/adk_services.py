"""The ``pgvector://`` scheme for ADK's service registry (``adk web --memory_service_uri``).

- ``pgvector://`` -> the embedded PostgreSQL under ``ADK_MEMORY_KIT_HOME`` (or
  ``ADK_MEMORY_KIT_DB_URL`` when set).
- ``pgvector://user:password@host:5432/dbname`` -> that server (pgvector extension required).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from adk_memory_kit.db.engine import is_default_uri, normalize_db_url
from adk_memory_kit.memory.service import PgVectorMemoryService

SCHEME = "pgvector"


def db_url_from_uri(uri: str) -> str | None:
    """``pgvector://...`` -> a SQLAlchemy URL, or ``None`` for the default database."""
    if urlsplit(uri).scheme != SCHEME:
        raise ValueError(f"expected a {SCHEME}:// URI, got {uri!r}")
    return None if is_default_uri(uri) else normalize_db_url(uri)


def pgvector_memory_factory(uri: str, **kwargs: Any) -> PgVectorMemoryService:
    """Factory with the signature ADK's registry expects (``agents_dir`` is ignored)."""
    return PgVectorMemoryService(uri=uri, **kwargs)


def register_pgvector_memory_service() -> None:
    """Register ``pgvector://`` with ADK's service registry (safe to call more than once)."""
    from google.adk.cli.service_registry import get_service_registry

    get_service_registry().register_memory_service(SCHEME, pgvector_memory_factory)
