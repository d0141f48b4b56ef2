"""The memory service's scope doors (issue 47, docs/scopes.md): an operator's shared memory
(app, group) and grants, and memories private to one agent of a user.

:class:`ScopedMemory` is a part of :class:`~adk_memory_kit.memory.service.BasePgVectorMemoryService`
(its ``pipeline`` and ``store``). Guarantees: shared rows are written only here, in operator
mode, under their scope's reserved owner id (core/memory_scopes.py); agent rows only under a
real user's id, keyed apart from the user's own rows.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence

from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.core.memory_scopes import (
    APP,
    GROUP_PREFIX,
    agent_scope,
    group_scope,
    is_shared,
    owner_of,
    parse_scope,
)
from adk_memory_kit.core.scope import operator_scope
from adk_memory_kit.core.validation import check_identifier, check_scope
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.pipeline import WritePipeline
from adk_memory_kit.memory.reports import WriteReport
from adk_memory_kit.memory.store import MemoryStore


class ScopedMemory:
    """Writes and grants beyond the user's own scope (a part of the memory service)."""

    store: MemoryStore
    pipeline: WritePipeline

    async def add_shared_memory(
        self,
        *,
        app_name: str,
        memories: Sequence[MemoryEntry | str],
        scope: str = APP,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> WriteReport:
        """An operator's write of knowledge shared by every user of ``app_name`` (``scope``
        ``app``) or by a group's users (``group:<name>``); an operator path only (the CLI's
        ``adk-memory-kit share``), never called from a conversation. Entries are stored as
        :meth:`add_memory` stores them (the redaction gate included), under the scope's
        reserved owner id; strings are taken as one fact each."""
        scope = parse_scope(scope)
        if not is_shared(scope):
            raise InvalidInputError("scope must be 'app' or 'group:<name>' for shared memory")
        entries = _entries(memories)
        with operator_scope():  # shared rows belong to no user
            return await self.pipeline.write_entries(
                app_name=app_name,
                user_id=owner_of(scope),
                memories=entries,
                custom_metadata=custom_metadata,
                scope=scope,
            )

    async def delete_shared_memory(self, *, app_name: str, scope: str, memory_id: str) -> int:
        """An operator's delete of one shared memory (an id a search returned with that
        ``scope``); returns the rows deleted (0: none)."""
        scope = parse_scope(scope)
        if not is_shared(scope):
            raise InvalidInputError("scope must be 'app' or 'group:<name>' for shared memory")
        check_identifier("app_name", app_name)
        row_id = memory_uuid(memory_id)
        with operator_scope():
            return await self.store.delete_id(
                app_name=app_name, user_id=owner_of(scope), row_id=row_id
            )

    async def add_agent_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        agent_name: str,
        memories: Sequence[MemoryEntry | str],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> WriteReport:
        """Store memories private to one agent of one user (scope ``agent:<name>``): only a
        search naming that ``agent_name`` reads them; the user's forget and export include
        them. Keyed apart from the user's own rows (the same text can be both)."""
        check_scope(app_name, user_id)
        scope = agent_scope(agent_name)
        base = dict(custom_metadata or {})
        base.setdefault("session_id", scope)  # the agent's own keys
        return await self.pipeline.write_entries(
            app_name=app_name,
            user_id=user_id,
            memories=_entries(memories),
            custom_metadata=base,
            scope=scope,
        )

    async def grant_group(self, *, app_name: str, user_id: str, group: str) -> bool:
        """An operator grants ``group``'s shared memory to a user of the app (their searches
        read it from then on); ``True`` if the grant is new."""
        check_scope(app_name, user_id)
        name = group_scope(group)[len(GROUP_PREFIX) :]
        return await self.store.set_grant(app_name, user_id, name, granted=True)

    async def revoke_group(self, *, app_name: str, user_id: str, group: str) -> bool:
        """An operator revokes a group grant; ``True`` if there was one."""
        check_scope(app_name, user_id)
        name = group_scope(group)[len(GROUP_PREFIX) :]
        return await self.store.set_grant(app_name, user_id, name, granted=False)

    async def groups_of(self, *, app_name: str, user_id: str) -> list[str]:
        """The groups granted to a user of the app."""
        check_scope(app_name, user_id)
        return await self.store.groups_of(app_name, user_id)


def memory_uuid(memory_id: object) -> str:
    try:
        return str(uuid.UUID(str(memory_id)))
    except ValueError as exc:
        raise InvalidInputError(
            "memory_id is not an id returned by search_memory (a UUID)"
        ) from exc


def _entries(memories: Sequence[MemoryEntry | str]) -> list[MemoryEntry]:
    """``memories`` as entries: a string is one fact (its text, no other part)."""
    if isinstance(memories, (str, MemoryEntry)):
        memories = [memories]
    entries = []
    for m in memories:
        if isinstance(m, str):
            m = MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=m)]))
        entries.append(m)
    return entries


__all__ = ["ScopedMemory", "memory_uuid"]
