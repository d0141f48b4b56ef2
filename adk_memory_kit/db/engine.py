"""Turning a user's database URL into a SQLAlchemy async engine."""

from __future__ import annotations

import os
from urllib.parse import urlsplit, urlunsplit

from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from adk_memory_kit.db.embedded import DB_URL_ENV, embedded_db_url
from adk_memory_kit.errors import InvalidInputError

_POSTGRES_SCHEMES = {"postgres", "postgresql", "postgresql+psycopg", "pgvector"}


def normalize_db_url(url: str) -> str:
    """Return ``url`` with the ``postgresql+psycopg`` driver, or raise a clear error.

    Accepts ``postgres://``, ``postgresql://``, ``postgresql+psycopg://`` and ``pgvector://``
    (the scheme registered for ``adk web --memory_service_uri``).
    """
    parts = urlsplit(url)
    if parts.scheme not in _POSTGRES_SCHEMES:
        raise InvalidInputError(
            f"unsupported database URL scheme {parts.scheme!r}; use postgresql+psycopg://"
            "user:password@host:port/db (PostgreSQL with the pgvector extension)"
        )
    return urlunsplit(("postgresql+psycopg", *parts[1:]))


def is_default_uri(url: str) -> bool:
    """``pgvector://`` with nothing after the scheme: "the default database"."""
    parts = urlsplit(url)
    return parts.scheme == "pgvector" and not (parts.netloc or parts.path.strip("/") or parts.query)


def resolve_db_url(db_url: str | None) -> str:
    """The URL to use: the argument, else ``ADK_MEMORY_KIT_DB_URL``, else the embedded server.

    A bare ``pgvector://`` (as ``adk web --memory_service_uri`` passes it) means the default.
    """
    url = db_url if db_url and not is_default_uri(db_url) else None
    url = url or os.environ.get(DB_URL_ENV)
    return normalize_db_url(url) if url else embedded_db_url()


def make_engine(db_url: str | None = None, *, pool_size: int = 5, **kwargs) -> AsyncEngine:
    """An async engine with a connection pool on the resolved URL."""
    return create_async_engine(
        resolve_db_url(db_url),
        pool_size=pool_size,
        max_overflow=kwargs.pop("max_overflow", 10),
        pool_pre_ping=True,
        **kwargs,
    )
