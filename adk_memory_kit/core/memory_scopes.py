"""Memory scopes (issue 47): who a long-term memory row belongs to, beyond app + user.

A row's ``scope`` column holds one of:

* ``user``: one user of one app (the default; every row written before scopes existed);
* ``agent:<name>``: private to one agent within one user (stored under the user's id);
* ``app``: shared by every user of the app;
* ``group:<name>``: shared by the users of the app the operator granted the group.

Shared rows (``app``, ``group:<name>``) are stored under a reserved owner id in the
``user_id`` column (:func:`owner_of`), which starts with :data:`SHARED_PREFIX`; a user id with
that prefix is refused at every public door (:func:`~.validation.check_scope`), so no user can
ever own, read as their own, or write a shared row. A database constraint ties each scope to
its owner (memory/schema.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from adk_memory_kit.errors import InvalidInputError

USER = "user"
APP = "app"
AGENT_PREFIX = "agent:"
GROUP_PREFIX = "group:"
#: The start of every shared owner id in ``user_id`` (never a user's own id).
SHARED_PREFIX = "~shared:"
#: The owner id of an app's shared rows.
APP_OWNER = SHARED_PREFIX + APP

_NAME = re.compile(r"^[a-z0-9_][a-z0-9_.-]{0,63}$")


def check_scope_name(label: str, name: object) -> str:
    """``name`` (an agent or group name) if it is 1-64 characters of ``a-z 0-9 _ . -``
    not starting with ``.`` or ``-`` (case folded); else :class:`InvalidInputError`."""
    if not isinstance(name, str):
        raise InvalidInputError(f"{label} must be a string, got {type(name).__name__}")
    folded = name.strip().lower()
    if not _NAME.match(folded):
        raise InvalidInputError(
            f"{label} must be 1-64 characters of a-z, 0-9, '_', '.' or '-', not starting with "
            "'.' or '-'"
        )
    return folded


def agent_scope(agent_name: str) -> str:
    """The scope value of rows private to ``agent_name`` (``agent:<name>``)."""
    return AGENT_PREFIX + check_scope_name("agent_name", agent_name)


def group_scope(group: str) -> str:
    """The scope value of rows shared with ``group`` (``group:<name>``)."""
    return GROUP_PREFIX + check_scope_name("group", group)


def parse_scope(scope: object) -> str:
    """``scope`` checked and normalised: ``user``, ``app``, ``agent:<name>`` or
    ``group:<name>``; anything else is an :class:`InvalidInputError` naming ``scope``."""
    if not isinstance(scope, str):
        raise InvalidInputError(f"scope must be a string, got {type(scope).__name__}")
    value = scope.strip().lower()
    if value in (USER, APP):
        return value
    if value.startswith(AGENT_PREFIX):
        return agent_scope(value[len(AGENT_PREFIX) :])
    if value.startswith(GROUP_PREFIX):
        return group_scope(value[len(GROUP_PREFIX) :])
    raise InvalidInputError("scope must be 'user', 'app', 'agent:<name>' or 'group:<name>'")


def is_shared(scope: str) -> bool:
    """Whether ``scope`` is shared between users (``app`` or a group)."""
    return scope == APP or scope.startswith(GROUP_PREFIX)


def owner_of(scope: str) -> str:
    """The ``user_id`` a shared scope's rows are stored under (``~shared:app``,
    ``~shared:group:<name>``)."""
    if not is_shared(scope):
        raise InvalidInputError("only the 'app' and 'group:<name>' scopes have a shared owner")
    return SHARED_PREFIX + scope


def is_shared_owner(user_id: str) -> bool:
    """Whether ``user_id`` is a reserved shared owner id, never a user's."""
    return user_id.startswith(SHARED_PREFIX)


@dataclass(frozen=True)
class ScopeRead:
    """One owner a search reads: the ``user_id`` its rows are stored under and the scope
    values read there."""

    owner: str
    scopes: tuple[str, ...]


def entitled_reads(
    user_id: str, *, agent_name: str | None = None, groups: Sequence[str] = ()
) -> list[ScopeRead]:
    """What a caller may read, owner by owner: their own ``user`` rows (and the calling
    agent's private rows when ``agent_name`` is given), the app's shared rows, and the
    shared rows of each granted group. Nothing else (another user's rows, another agent's
    private rows, an ungranted group) is ever in the list."""
    reads = [own_read(user_id, agent_name), ScopeRead(APP_OWNER, (APP,))]
    for group in sorted(set(groups)):
        scope = group_scope(group)
        reads.append(ScopeRead(owner_of(scope), (scope,)))
    return reads


def own_read(user_id: str, agent_name: str | None = None) -> ScopeRead:
    """The caller's own rows: ``user``, and the calling agent's private rows when given."""
    return ScopeRead(user_id, (USER,) if agent_name is None else (USER, agent_scope(agent_name)))


def shared_read(owner: str) -> ScopeRead:
    """A shared owner id's read: its one scope (``~shared:app`` reads ``app``)."""
    if not is_shared_owner(owner) or not is_shared(owner[len(SHARED_PREFIX) :]):
        raise InvalidInputError("not a shared owner id")
    return ScopeRead(owner, (owner[len(SHARED_PREFIX) :],))


def describe(scope: str) -> str | None:
    """How the framed recall marks a row of ``scope`` (``None`` for the user's own)."""
    if scope == APP:
        return "shared by the app"
    if scope.startswith(GROUP_PREFIX):
        return f"shared with group {scope[len(GROUP_PREFIX) :]}"
    if scope.startswith(AGENT_PREFIX):
        return "private to this agent"
    return None


__all__ = [
    "AGENT_PREFIX",
    "APP",
    "APP_OWNER",
    "GROUP_PREFIX",
    "SHARED_PREFIX",
    "USER",
    "ScopeRead",
    "agent_scope",
    "check_scope_name",
    "describe",
    "entitled_reads",
    "group_scope",
    "is_shared",
    "is_shared_owner",
    "own_read",
    "owner_of",
    "parse_scope",
    "shared_read",
]
