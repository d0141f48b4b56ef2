"""``Scope``: the (app name, user id) pair every per-user query is keyed by."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any, TypeVar

from adk_memory_kit.core.validation import check_scope


@dataclass(frozen=True)
class Scope:
    """One user of one app: the sharding key of every per-user row.

    Validated at construction (:func:`~adk_memory_kit.core.validation.check_scope`): both
    parts are non-empty strings without NUL bytes or lone surrogates.
    """

    app_name: str
    user_id: str

    def __post_init__(self) -> None:
        check_scope(self.app_name, self.user_id)

    def params(self) -> dict[str, str]:
        """``{"app": ..., "user": ...}``: the bind parameters the kit's SQL uses."""
        return {"app": self.app_name, "user": self.user_id}


# --- The row-level-security scope of the running code (docs/security.md) -------------------
#
# The kit's public doors (core.db_errors) set the (app, user) of the call they serve; the
# database layer (db.rls) hands it to PostgreSQL at the start of every transaction, where
# the row policies on every kit table admit only that user's rows. Operator-wide work
# (migrations, index builds, jobs over all users) runs in operator mode instead.

#: The operator mode's marker in :data:`_ACTIVE`.
OPERATOR = "operator"

_ACTIVE: ContextVar[tuple[str, str] | str | None] = ContextVar(
    "adk_memory_kit_rls_scope", default=None
)


def active_scope() -> tuple[str, str] | str | None:
    """What the running code may see: ``(app, user)``, :data:`OPERATOR`, or ``None``
    (nothing: every kit table reads as empty when row-level security is on)."""
    return _ACTIVE.get()


@contextmanager
def user_scope(app_name: str, user_id: str) -> Iterator[None]:
    """Run the block as one user: with row-level security on, every transaction it opens
    sees (and may write) only rows of ``(app_name, user_id)``. Nests; restores on exit."""
    token = _ACTIVE.set((app_name, user_id))
    try:
        yield
    finally:
        _restore(token)


@contextmanager
def operator_scope() -> Iterator[None]:
    """Run the block in operator mode: transactions it opens see every user's rows
    (migrations, index builds, maintenance over all users, operator views)."""
    token = _ACTIVE.set(OPERATOR)
    try:
        yield
    finally:
        _restore(token)


def _restore(token: Token[tuple[str, str] | str | None]) -> None:
    try:
        _ACTIVE.reset(token)
    except ValueError:  # an async generator closed from another context
        _ACTIVE.set(token.old_value if token.old_value is not Token.MISSING else None)


# Parameters that name a user by their ``app_name`` and ``user_id`` attributes (an ADK
# session, a Scope, a session key) or by their ``session`` (an ADK context).
_SCOPE_HOLDERS = (
    "session",
    "scope",
    "key",
    "context",
    "tool_context",
    "callback_context",
    "invocation_context",
)


def call_scope(func: Callable[..., Any]) -> Callable[..., AbstractContextManager[None]]:
    """For a public door ``func``: a function of its call's arguments giving the context
    to run it in: :func:`user_scope` of its ``app_name`` and ``user_id`` (or of the object
    in its ``session`` / ``scope`` / ``key`` parameter, or of an ADK context's session) when
    they are strings, else no change."""
    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return _unchanged
    if "app_name" in params and "user_id" in params:
        names = list(params)

        def pick(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
            got = dict(zip(names, args, strict=False)) | kwargs
            return got.get("app_name"), got.get("user_id")

    elif key := next((name for name in _SCOPE_HOLDERS if name in params), None):
        index = list(params).index(key)

        def pick(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
            value = kwargs.get(key, args[index] if index < len(args) else None)
            if not isinstance(getattr(value, "app_name", None), str):
                value = getattr(value, "session", None)  # an ADK context: its session's user
            return getattr(value, "app_name", None), getattr(value, "user_id", None)

    else:
        return _unchanged

    def enter(*args: Any, **kwargs: Any) -> AbstractContextManager[None]:
        app, user = pick(args, kwargs)
        if isinstance(app, str) and isinstance(user, str):
            return user_scope(app, user)
        return nullcontext()

    return enter


def _unchanged(*args: Any, **kwargs: Any) -> AbstractContextManager[None]:
    return nullcontext()


def app_wide_unless(user_id: object) -> AbstractContextManager[None]:
    """For a call whose ``user_id`` is optional: without one it is an operator report across
    the app's users (:func:`operator_scope`); with one, the door's user scope stays."""
    return operator_scope() if user_id is None else nullcontext()


F = TypeVar("F", bound=Callable[..., Any])


def user_scoped(func: F) -> F:
    """Decorator for a public async function taking ``app_name`` and ``user_id`` (or an ADK
    ``session``) that is not a database door: it runs in that user's scope
    (:func:`call_scope`)."""
    scoped = call_scope(func)

    @functools.wraps(func)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        with scoped(*args, **kwargs):
            return await func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def operator_wide(func: F) -> F:
    """Decorator for an async function that works across users (maintenance, operator
    views): it runs in :func:`operator_scope`; the user doors it calls set their own."""

    @functools.wraps(func)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        with operator_scope():
            return await func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
