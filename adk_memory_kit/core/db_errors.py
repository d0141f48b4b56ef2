"""The one translation of database errors into the kit's errors.

Every public entry point that touches the database wraps its work in :func:`db_errors` (an
async context manager) or :func:`translates_db_errors` (a decorator). A SQLAlchemy or
psycopg error becomes a kit error with the cause chained:

* connection and operational failures (server down, connection lost, pool timeout, the
  server shutting down) -> :class:`DatabaseUnavailableError`, ``transient=True``;
* serialization failures, deadlocks, lock timeouts -> :class:`DatabaseUnavailableError`,
  ``transient=True``;
* a value the database refuses (data exceptions, constraint violations, an index row too
  large: SQLSTATE classes 22, 23, 54) -> :class:`InvalidInputError` (permanent);
* a missing table or column -> :class:`SchemaMismatchError` (permanent);
* anything else from the database -> :class:`DatabaseUnavailableError` (permanent).

Messages never hold user text: SQLAlchemy's statement and ``[parameters: ...]`` are never
copied, and a server message is copied (first line, at most 200 characters) only for
connection-level failures, whose text names the server, never a row. Other failures are
named by their class and SQLSTATE. The caller says *what* failed (``what``), with ids only.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from typing import Any, ParamSpec, TypeVar

from adk_memory_kit.core.scope import call_scope
from adk_memory_kit.errors import (
    DatabaseUnavailableError,
    InvalidInputError,
    MemoryKitError,
    SchemaMismatchError,
)

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")

logger = logging.getLogger(__name__)

#: The attribute naming how a public door handles database errors (checked by
#: tests/architecture/test_doors.py): "translates" (raises kit errors only), "contained"
#: (an ADK callback: logs one line, never breaks the turn), "tool" (returns the error as a
#: tool result).
DOOR_ATTR = "__kit_door__"

# SQLSTATE classes: connection exception, insufficient resources, operator intervention
# (admin shutdown, crash), system error.
_UNAVAILABLE_CLASSES = {"08", "53", "57", "58"}
_TRANSIENT_STATES = {"40001", "40P01", "55P03", "57014"}  # serialization, deadlock, lock, cancel
_INPUT_CLASSES = {"22", "23", "54"}  # data exception, integrity violation, program limit
_SCHEMA_STATES = {"42P01", "42703", "42883", "3F000"}  # no table, column, function, schema
_MAX_REASON = 200


def _first_line(value: object) -> str:
    lines = str(value).strip().splitlines()
    line = " ".join(lines[0].split()) if lines else ""
    return line[:_MAX_REASON]


def _driver_error(exc: BaseException) -> BaseException:
    """The DBAPI (psycopg) error under a SQLAlchemy wrapper, else ``exc`` itself."""
    from sqlalchemy import exc as sa_exc

    if isinstance(exc, sa_exc.DBAPIError) and exc.orig is not None:
        return exc.orig
    return exc


def _is_connection_failure(exc: BaseException) -> bool:
    import psycopg
    from sqlalchemy import exc as sa_exc

    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    return isinstance(
        exc,
        (
            sa_exc.OperationalError,
            sa_exc.InterfaceError,
            sa_exc.DisconnectionError,
            sa_exc.TimeoutError,
            sa_exc.ResourceClosedError,
            psycopg.OperationalError,
            psycopg.InterfaceError,
            ConnectionError,
            TimeoutError,
            asyncio.TimeoutError,
        ),
    )


def translate(exc: BaseException, what: str) -> MemoryKitError | None:
    """The kit error for database error ``exc`` raised while doing ``what`` (``None``: not a
    database error; a kit error is returned as it is). The result's ``transient`` says
    whether retrying may help. Nothing of the failed statement or its parameters is copied.
    """
    import psycopg
    from sqlalchemy import exc as sa_exc

    if isinstance(exc, MemoryKitError):
        return exc
    if not isinstance(exc, (sa_exc.SQLAlchemyError, psycopg.Error, OSError, asyncio.TimeoutError)):
        return None
    driver = _driver_error(exc)
    state = getattr(driver, "sqlstate", None) or ""
    name = type(driver).__name__
    code = f", SQLSTATE {state}" if state else ""
    if state in _TRANSIENT_STATES:
        err: MemoryKitError = DatabaseUnavailableError(
            f"{what} failed: the database gave up on a conflicting or slow transaction "
            f"({name}{code}); try again"
        )
        err.transient = True
        return err
    if state[:2] in _INPUT_CLASSES:
        return InvalidInputError(
            f"{what} failed: the database refused a value ({name}{code}); check the "
            "arguments against the kit's limits (ids up to 256 characters, app names and user "
            "ids up to 128, see docs/limits.md)"
        )
    if state in _SCHEMA_STATES:
        return SchemaMismatchError(
            f"{what} failed: a table or column the kit needs is missing ({name}{code}); "
            "the kit creates its tables on first use: check that they were not changed or dropped "
            "by hand"
        )
    if (
        _is_connection_failure(exc)
        or _is_connection_failure(driver)
        or state[:2] in (_UNAVAILABLE_CLASSES)
    ):
        if isinstance(exc, sa_exc.TimeoutError):
            reason = "no free connection in the pool in time"
        else:
            reason = _first_line(driver) if not state or state[:2] in _UNAVAILABLE_CLASSES else ""
        detail = f"{name}: {reason}" if reason else f"{name}{code}"
        err = DatabaseUnavailableError(
            f"{what} failed: the database is unavailable ({detail}); check that the server "
            "runs and is reachable, then try again (the kit reconnects by itself)"
        )
        err.transient = True
        return err
    if isinstance(exc, sa_exc.ArgumentError):
        return InvalidInputError(f"{what} failed: invalid database argument ({name})")
    return DatabaseUnavailableError(
        f"{what} failed: the database refused the request ({name}{code}); this is not "
        "retried: check the server's log and the role's privileges"
    )


def is_transient(exc: BaseException) -> bool:
    """Whether retrying after ``exc`` may help (a transient database failure)."""
    translated = translate(exc, "the call")
    return bool(translated is not None and translated.transient)


@asynccontextmanager
async def db_errors(what: str) -> AsyncIterator[None]:
    """Turn database errors raised in the block into kit errors (cause chained).

    ``what`` names the operation in ids only (e.g. ``"forget_user(app, user-17)"``).
    """
    try:
        yield
    except MemoryKitError:
        raise
    except Exception as exc:
        err = translate(exc, what)
        if err is None:
            raise
        raise err from exc


def translates_db_errors(
    what: str,
) -> Callable[[Callable[P, Coroutine[Any, Any, R]]], Callable[P, Coroutine[Any, Any, R]]]:
    """Decorator form of :func:`db_errors` for an async function or method (keeps its type)."""

    def wrap(func: Callable[P, Coroutine[Any, Any, R]]) -> Callable[P, Coroutine[Any, Any, R]]:
        scoped = call_scope(func)  # row-level security: the call's user (core.scope)

        @functools.wraps(func)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
            with scoped(*args, **kwargs):
                async with db_errors(what):
                    return await func(*args, **kwargs)

        setattr(wrapper, DOOR_ATTR, "translates")
        return wrapper

    return wrap


def _translating_asyncgen(func: Callable[..., Any], what: str) -> Callable[..., Any]:
    scoped = call_scope(func)

    @functools.wraps(func)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        with scoped(*args, **kwargs):
            async with db_errors(what):
                async for item in func(*args, **kwargs):
                    yield item

    setattr(wrapper, DOOR_ATTR, "translates")
    return wrapper


def _contained(func: Callable[..., Awaitable[Any]], what: str) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(func)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return await func(*args, **kwargs)
        except Exception as exc:
            err = translate(exc, what)
            if err is None or (not isinstance(err, DatabaseUnavailableError) and err is exc):
                raise  # not a database failure (e.g. the context budget's own error)
            if not isinstance(err, DatabaseUnavailableError):
                raise err from exc
            logger.warning("%s skipped: %s", what, describe(exc))
            return None

    setattr(wrapper, DOOR_ATTR, "contained")
    return wrapper


def _public_coroutines(cls: type) -> dict[str, Any]:
    """Public async methods ``cls`` has from the kit's own classes (not ADK's bases)."""
    found: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        if not klass.__module__.startswith("adk_memory_kit"):
            continue
        for name, value in vars(klass).items():
            if name.startswith("_"):
                continue
            if inspect.iscoroutinefunction(value) or inspect.isasyncgenfunction(value):
                found[name] = value
    return found


def db_doors(cls: type[T]) -> type[T]:
    """Class decorator: every public async method (its own and inherited from kit classes)
    raises kit errors only: a database error becomes one (see :func:`translate`)."""
    for name, func in _public_coroutines(cls).items():
        if getattr(func, DOOR_ATTR, None) == "translates":
            continue
        what = f"{cls.__name__}.{name}"
        if inspect.isasyncgenfunction(func):
            setattr(cls, name, _translating_asyncgen(func, what))
        else:
            setattr(cls, name, translates_db_errors(what)(func))
    return cls


def contained_doors(cls: type[T]) -> type[T]:
    """Class decorator for ADK plugins: a public async callback that fails because the
    database is unavailable logs one line (no user text) and returns ``None``, so the
    agent's turn goes on; other kit errors are raised as kit errors."""
    for name, func in _public_coroutines(cls).items():
        if getattr(func, DOOR_ATTR, None) == "contained":
            continue
        setattr(cls, name, _contained(func, f"{cls.__name__}.{name}"))
    return cls


def describe(exc: BaseException) -> str:
    """A one-line description of ``exc`` safe to log or store: a kit error's message (after
    translating a database error), else only the exception's class name (its message may
    quote user text)."""
    translated = translate(exc, "the operation")
    if translated is not None:
        return f"{type(translated).__name__}: {translated}"
    return f"{type(exc).__name__} (message withheld: it may quote user data)"


__all__: list[str] = [
    "DOOR_ATTR",
    "contained_doors",
    "db_doors",
    "db_errors",
    "describe",
    "is_transient",
    "translate",
    "translates_db_errors",
]
