"""The typed, versioned scratchpad stored as plain JSON data in session state."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from adk_memory_kit.errors import SchemaMismatchError

SCHEMA_VERSION = 1

StepStatus = Literal["todo", "doing", "done"]
STEP_STATUSES: tuple[str, ...] = ("todo", "doing", "done")


class PlanStep(BaseModel):
    """One step of the plan and where it stands."""

    model_config = ConfigDict(extra="ignore")

    step: str
    status: StepStatus = "todo"


class Fact(BaseModel):
    """A named value with the place it came from.

    ``at`` (seconds since the epoch, strictly increasing within one scratchpad) orders
    eviction; dict order is not used because JSONB in PostgreSQL reorders object keys.
    """

    model_config = ConfigDict(extra="ignore")

    value: str
    source: str
    pinned: bool = False
    at: float = 0.0


class Scratchpad(BaseModel):
    """The working memory of one task: ``v``, goal, constraints, plan, facts, open questions."""

    model_config = ConfigDict(extra="ignore")

    v: int = SCHEMA_VERSION
    goal: str = ""
    constraints: list[str] = Field(default_factory=list)
    plan: list[PlanStep] = Field(default_factory=list)
    facts: dict[str, Fact] = Field(default_factory=dict)
    open: list[str] = Field(default_factory=list)

    @classmethod
    def load(cls, raw: Any, *, key: str = "wm") -> Scratchpad:
        """Read a scratchpad from its state value; ``None`` or ``{}`` gives an empty one."""
        if raw is None or raw == {}:
            return cls()
        if isinstance(raw, Scratchpad):
            return raw.model_copy(deep=True)
        if not isinstance(raw, dict):
            raise SchemaMismatchError(
                f"state key {key!r} holds {type(raw).__name__}, not a working-memory "
                "scratchpad; call complete_task to reset it"
            )
        version = raw.get("v", SCHEMA_VERSION)
        if version != SCHEMA_VERSION:
            raise SchemaMismatchError(
                f"state key {key!r} holds working-memory schema v{version!r}; this version "
                f"of adk-memory-kit reads v{SCHEMA_VERSION}. Upgrade the kit, or call "
                "complete_task to reset the scratchpad"
            )
        try:
            return cls.model_validate(raw)
        except ValidationError as exc:
            raise SchemaMismatchError(
                f"state key {key!r} is not a valid working-memory scratchpad "
                f"({exc.error_count()} errors); call complete_task to reset it"
            ) from exc

    def dump(self) -> dict[str, Any]:
        """Plain JSON-serialisable data for session state."""
        return self.model_dump(mode="json")

    def is_empty(self) -> bool:
        """True when nothing has been recorded."""
        return not (self.goal or self.constraints or self.plan or self.facts or self.open)

    def facts_oldest_first(self) -> list[str]:
        """Fact names ordered by write time, oldest first."""
        return sorted(self.facts, key=lambda name: (self.facts[name].at, name))
