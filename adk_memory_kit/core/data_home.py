"""``DataHome``: the contract of a place holding per-user data that forgetting must cover."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable


@runtime_checkable
class DataHome(Protocol):
    """A place besides sessions and memory that holds per-user data (e.g. a review queue).

    ``forget_user`` deletes from it and ``data_map`` counts it when it is passed in
    ``extra_homes``. Both methods take ``(app_name, user_id)`` and return a row count;
    ``delete`` must be idempotent.
    """

    @property
    def name(self) -> str:
        """Short name shown in reports (unique among the homes of one call)."""
        ...

    def count(self, app_name: str, user_id: str) -> Awaitable[int]:
        """How many rows of the user the home holds."""
        ...

    def delete(self, app_name: str, user_id: str) -> Awaitable[int]:
        """Delete the user's rows; the number deleted."""
        ...


@dataclass(frozen=True)
class FunctionDataHome:
    """A :class:`DataHome` made of two async functions ``(app_name, user_id) -> int``."""

    name: str
    count: Callable[[str, str], Awaitable[int]]
    delete: Callable[[str, str], Awaitable[int]]
