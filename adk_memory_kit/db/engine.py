"""Turning a user's database URL into a SQLAlchemy async engine."""

from __future__ import annotations

import logging
import os
import threading
import weakref
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit

from sqlalchemy import event
from sqlalchemy.exc import ArgumentError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from adk_memory_kit.db import rls
from adk_memory_kit.db.embedded import DB_URL_ENV, embedded_db_url, embedded_home_for_url
from adk_memory_kit.errors import InvalidInputError

logger = logging.getLogger(__name__)

_POSTGRES_SCHEMES = {"postgres", "postgresql", "postgresql+psycopg", "pgvector"}


def normalize_db_url(url: str) -> str:
    """Return ``url`` with the ``postgresql+psycopg`` driver, or raise a clear error.

    Accepts ``postgres://``, ``postgresql://``, ``postgresql+psycopg://`` and ``pgvector://``
    (the scheme registered for ``adk web --memory_service_uri``).
    """
    if not isinstance(url, str) or not url.strip():
        raise InvalidInputError("the database URL must be a non-empty string")
    if "\x00" in url or any(ch.isspace() for ch in url.strip()):
        raise InvalidInputError("the database URL must not contain NUL bytes or spaces")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:  # a port that is not a number or out of range, a broken [host]
        raise InvalidInputError(
            "the database URL is malformed (bad host or port); use postgresql+psycopg://"
            "user:password@host:port/db"
        ) from exc
    if port == 0:
        raise InvalidInputError("the database URL's port must be between 1 and 65535")
    if parts.scheme not in _POSTGRES_SCHEMES:
        raise InvalidInputError(
            f"unsupported database URL scheme {parts.scheme!r}; use postgresql+psycopg://"
            "user:password@host:port/db (PostgreSQL with the pgvector extension)"
        )
    return urlunsplit(("postgresql+psycopg", *parts[1:]))


def is_default_uri(url: str) -> bool:
    """``pgvector://`` with nothing after the scheme: "the default database"."""
    try:
        parts = urlsplit(url)
    except (TypeError, ValueError, AttributeError):
        return False  # not a usable URL: normalize_db_url says why
    return parts.scheme == "pgvector" and not (parts.netloc or parts.path.strip("/") or parts.query)


def resolve_db_url(db_url: str | None) -> str:
    """The URL to use: the argument, else ``ADK_MEMORY_KIT_DB_URL``, else the embedded server.

    A bare ``pgvector://`` (as ``adk web --memory_service_uri`` passes it) means the default.
    """
    if db_url is not None and not isinstance(db_url, str):
        raise InvalidInputError(f"the database URL must be a string, got {type(db_url).__name__}")
    url = db_url if db_url and not is_default_uri(db_url) else None
    url = url or os.environ.get(DB_URL_ENV)
    return normalize_db_url(url) if url else embedded_db_url()


#: ``transaction``: the URL is a connection pooler in transaction mode (PgBouncer's
#: ``pool_mode = transaction``), for every engine the kit makes unless ``pooler=`` says otherwise.
POOLER_ENV = "ADK_MEMORY_KIT_POOLER"
#: The URL query parameter that says the same for one URL (removed before connecting).
POOLER_PARAM = "adk_pooler"
_POOLERS = ("none", "session", "transaction")
_TRANSACTION_POOLED: weakref.WeakSet[Any] = weakref.WeakSet()
#: psycopg's connection options behind a transaction pooler: a statement prepared on one
#: server connection is unknown on the next one, so none is prepared
_UNPREPARED = {"prepare_threshold": None}


def behind_transaction_pooler(engine: AsyncEngine) -> bool:
    """Whether ``engine`` reaches the server through a pooler in transaction mode: each
    transaction may run on another server connection, so nothing may outlive one (no
    server-side prepared statements, no session settings, no session advisory locks)."""
    return engine.sync_engine in _TRANSACTION_POOLED


def _pooler_of(url: str, pooler: str | None) -> tuple[str, str]:
    """``url`` without :data:`POOLER_PARAM`, and the pooler mode (argument, else the URL's
    parameter, else :data:`POOLER_ENV`, else ``none``)."""
    parts = urlsplit(url)
    query = parse_qs(parts.query, keep_blank_values=True)
    from_url = query.pop(POOLER_PARAM, [None])[-1]
    mode = pooler or from_url or os.environ.get(POOLER_ENV) or "none"
    if mode not in _POOLERS:
        raise InvalidInputError(
            f"pooler must be one of {', '.join(_POOLERS)} (from pooler=, ?{POOLER_PARAM}= or "
            f"{POOLER_ENV})"
        )
    if from_url is not None:
        url = urlunsplit((*parts[:3], urlencode(query, doseq=True), parts.fragment))
    return url, mode


def foreign_engine_options(db_url: str) -> tuple[str, dict[str, Any]]:
    """The URL and ``create_async_engine`` options for an engine the kit does not make (ADK's
    ``DatabaseSessionService``) on the same database: the kit's pooler parameter removed, and
    server-side prepared statements off behind a transaction pooler."""
    url, mode = _pooler_of(db_url, None)
    return url, ({"connect_args": dict(_UNPREPARED)} if mode == "transaction" else {})


def make_engine(
    db_url: str | None = None,
    *,
    pool_size: int = 5,
    rls_enabled: bool | None = None,
    pooler: str | None = None,
    **kwargs,
) -> AsyncEngine:
    """An async engine with a connection pool on the resolved URL.

    Privacy: statement parameters are never rendered into SQLAlchemy's error messages
    (``hide_parameters=True``), so a row's text cannot reach a log through an exception.

    Recovery: pooled connections are checked before use (``pool_pre_ping``), so a server that
    went away and came back is reconnected to, with one log line when it is. On the embedded
    server (the default, or a URL pointing at the one this process started), each new
    connection first makes sure the server runs, restarting it if it died (at a bounded rate;
    see :func:`~adk_memory_kit.db.embedded.embedded_db_url`).

    Row-level security (``rls_enabled``; ``None``: ``ADK_MEMORY_KIT_RLS``, off by default):
    every transaction sees only the rows of the user whose call opened it
    (:mod:`adk_memory_kit.db.rls`, docs/security.md).

    Connection poolers (``pooler``; else the URL's ``?adk_pooler=``, else
    ``ADK_MEMORY_KIT_POOLER``; ``none`` by default): with ``transaction`` (PgBouncer's
    transaction mode), nothing outlives a transaction: statements are never prepared on the
    server, the kit's settings are made per transaction, and work that needs a session of
    its own (index builds) refuses the engine with an error that names the fix
    (docs/scale.md).
    """
    if rls_enabled is not None and not isinstance(rls_enabled, bool):
        raise InvalidInputError("rls_enabled must be True, False or None")
    if pooler is not None and not isinstance(pooler, str):
        raise InvalidInputError("pooler must be a string")
    enabled = rls.rls_default() if rls_enabled is None else rls_enabled
    url, mode = _pooler_of(resolve_db_url(db_url), pooler)
    connect_args = {
        **(_UNPREPARED if mode == "transaction" else {}),
        **(kwargs.pop("connect_args", None) or {}),
    }
    try:
        engine = create_async_engine(
            url,
            pool_size=pool_size,
            max_overflow=kwargs.pop("max_overflow", 10),
            pool_pre_ping=True,
            hide_parameters=kwargs.pop("hide_parameters", True),
            connect_args=connect_args,
            **kwargs,
        )
    except (ArgumentError, ValueError) as exc:
        raise InvalidInputError(
            "the database URL is malformed; use postgresql+psycopg://user:password@host:port/db"
        ) from exc
    home = embedded_home_for_url(url)
    if home is not None:
        event.listen(engine.sync_engine, "do_connect", _EnsureEmbeddedRunning(home))
    _log_reconnects(engine)
    pooled = mode == "transaction"
    if pooled:
        _TRANSACTION_POOLED.add(engine.sync_engine)
    rls.install(engine, enabled, per_transaction=pooled)
    return engine


class _EnsureEmbeddedRunning:
    """``do_connect`` hook: (re)start the embedded server in ``home`` before connecting."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def __call__(self, dialect, conn_rec, cargs, cparams) -> None:
        query = parse_qs(urlsplit(embedded_db_url(self.home)).query)
        for key in ("host", "port"):  # where the restarted server listens
            if query.get(key) and key in cparams:
                cparams[key] = query[key][0]


def _log_reconnects(engine: AsyncEngine) -> None:
    """Log one line when the engine connects again after its database was unreachable."""
    url = engine.url.render_as_string(hide_password=True)
    down = threading.Event()

    def lost(context) -> None:
        if context.is_disconnect or context.connection is None:
            down.set()

    def invalidated(dbapi_connection, connection_record, exception) -> None:
        if exception is not None:
            down.set()

    def connected(dbapi_connection, connection_record) -> None:
        if down.is_set():
            down.clear()
            logger.warning("reconnected to the database at %s after it was unreachable", url)

    event.listen(engine.sync_engine, "handle_error", lost)
    event.listen(engine.sync_engine.pool, "invalidate", invalidated)
    event.listen(engine.sync_engine.pool, "connect", connected)
