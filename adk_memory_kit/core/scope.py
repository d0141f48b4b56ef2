"""``Scope``: the (app name, user id) pair every per-user query is keyed by."""

from __future__ import annotations

from dataclasses import dataclass

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
