"""Capabilities beyond ADK's ``BaseMemoryService`` that the kit's orchestration relies on.

Checked with ``isinstance`` against these protocols (the contract), never looked up by name.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class UserMemoryEraser(Protocol):
    """A memory service that can delete and count every memory of one user.

    ``PgVectorMemoryService`` implements it; ``forget_user`` needs it, ``data_map`` uses it
    to count.
    """

    async def delete_user_memories(self, *, app_name: str, user_id: str) -> int:
        """Delete every memory of the user in the app; the number deleted."""
        ...

    async def count_memories(self, *, app_name: str, user_id: str) -> dict[str, int]:
        """The user's memories counted by kind."""
        ...
