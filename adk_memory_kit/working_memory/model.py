"""The typed, versioned scratchpad stored as plain JSON data in session state."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator

from adk_memory_kit.core.times import parse_time
from adk_memory_kit.errors import SchemaMismatchError
from adk_memory_kit.working_memory.config import WorkingMemoryConfig
from adk_memory_kit.working_memory.guards import clip

SCHEMA_VERSION = 2
"""v2 stores ``facts`` as a list of ``{name, value, source, pinned, written_at}``; ``written_at``
is an ISO-8601 UTC string (earlier releases stored epoch seconds, which still load)."""

StepStatus = Literal["todo", "doing", "done"]
STEP_STATUSES: tuple[str, ...] = ("todo", "doing", "done")


class PlanStep(BaseModel):
    """One step of the plan and where it stands."""

    model_config = ConfigDict(extra="ignore")

    step: str
    status: StepStatus = "todo"
    id: str | None = None
    depends_on: list[str] = Field(default_factory=list)

    def dump(self) -> dict[str, Any]:
        """``{step, status}``, plus ``id`` and ``depends_on`` only when set (task ledger)."""
        out: dict[str, Any] = {"step": self.step, "status": self.status}
        if self.id:
            out["id"] = self.id
        if self.depends_on:
            out["depends_on"] = list(self.depends_on)
        return out


class Fact(BaseModel):
    """A named value with the place it came from.

    ``at`` (seconds since the epoch, strictly increasing within one scratchpad) orders
    eviction. State holds it as ``written_at``, an ISO-8601 UTC string with microseconds;
    epoch seconds (what earlier releases stored) are read too.
    """

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    value: str
    source: str
    pinned: bool = False
    at: float = Field(0.0, validation_alias=AliasChoices("at", "written_at"))

    @field_validator("at", mode="before")
    @classmethod
    def _epoch_seconds(cls, value: Any) -> Any:
        return _as_epoch(value)


def iso_time(at: float, timespec: str = "microseconds") -> str:
    """Epoch seconds as the ISO-8601 UTC string state holds (fixed width, so strings sort)."""
    return datetime.fromtimestamp(at, tz=timezone.utc).isoformat(timespec=timespec)


def _as_epoch(value: Any) -> Any:
    """Epoch seconds from an ISO string or a number; other values go to validation as is.

    Numbers are rounded to the microsecond, the resolution of the ISO string state holds, so
    a scratchpad reloaded from state equals the one that was stored.
    """
    if isinstance(value, str):
        parsed = parse_time(value)
        return parsed.timestamp() if parsed is not None else value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(float(value), tz=timezone.utc).timestamp()
        except (OverflowError, OSError, ValueError):
            return value
    return value


def value_cap(source: str, config: WorkingMemoryConfig) -> int:
    """Longest value stored for a fact from ``source`` (trusted sources may be longer)."""
    if source in config.trusted_sources:
        return max(config.max_value_chars, config.max_view_chars)
    return config.max_value_chars


def _facts_from_list(items: Any) -> Any:
    """``[{name, ...}, ...]`` as ``{name: {...}}``; on a repeated name the latest write wins."""
    if not isinstance(items, list):
        return items
    out: dict[str, Any] = {}
    for item in items:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            return items  # let validation report it
        held = out.get(item["name"])
        if held is None or _written_at(item) >= _written_at(held):
            out[item["name"]] = item
    return out


def _written_at(item: dict[str, Any]) -> float:
    value = _as_epoch(item.get("written_at", item.get("at", 0.0)))
    return float(value) if isinstance(value, (int, float)) else 0.0


class Scratchpad(BaseModel):
    """The working memory of one task: ``v``, goal, constraints, plan, facts, open questions.

    In memory ``facts`` is keyed by name; in state (``dump``) it is a list ordered oldest
    first. A list matters: when one model turn holds several tool calls, ADK deep-merges
    their state deltas, which keeps every key any call wrote in a dict (an evicted fact
    would come back) but replaces a list with the latest write.
    """

    model_config = ConfigDict(extra="ignore")

    v: int = SCHEMA_VERSION
    goal: str = ""
    constraints: list[str] = Field(default_factory=list)
    plan: list[PlanStep] = Field(default_factory=list)
    facts: dict[str, Fact] = Field(default_factory=dict)
    open: list[str] = Field(default_factory=list)

    @classmethod
    def load(
        cls, raw: Any, *, key: str = "wm", config: WorkingMemoryConfig | None = None
    ) -> Scratchpad:
        """Read a scratchpad from its state value; ``None`` or ``{}`` gives an empty one.

        Reads schema v2 and v1 (facts as an object keyed by name). With ``config``, every
        budget is applied again (see ``apply_budget``), so a stored value that breaks one,
        however it got there, never reaches the view.
        """
        pad = cls._read(raw, key)
        if config is not None:
            pad.apply_budget(config)
        return pad

    @classmethod
    def _read(cls, raw: Any, key: str) -> Scratchpad:
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
        if version not in (1, SCHEMA_VERSION):
            raise SchemaMismatchError(
                f"state key {key!r} holds working-memory schema v{version!r}; this version "
                f"of adk-memory-kit reads v1 and v{SCHEMA_VERSION}. Upgrade the kit, or call "
                "complete_task to reset the scratchpad"
            )
        data = {**raw, "v": SCHEMA_VERSION}
        if "facts" in data:
            data["facts"] = _facts_from_list(data["facts"])
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise SchemaMismatchError(
                f"state key {key!r} is not a valid working-memory scratchpad "
                f"({exc.error_count()} errors); call complete_task to reset it"
            ) from exc

    def dump(self) -> dict[str, Any]:
        """Plain JSON data for session state; ``facts`` is a list, oldest first."""
        facts = [
            {
                "name": name,
                "value": self.facts[name].value,
                "source": self.facts[name].source,
                "pinned": self.facts[name].pinned,
                "written_at": iso_time(self.facts[name].at),
            }
            for name in self.facts_oldest_first()
        ]
        return {
            "v": SCHEMA_VERSION,
            "goal": self.goal,
            "constraints": list(self.constraints),
            "plan": [step.dump() for step in self.plan],
            "facts": facts,
            "open": list(self.open),
        }

    def is_empty(self) -> bool:
        """True when nothing has been recorded."""
        return not (self.goal or self.constraints or self.plan or self.facts or self.open)

    def facts_oldest_first(self) -> list[str]:
        """Fact names ordered by write time, oldest first."""
        return sorted(self.facts, key=lambda name: (self.facts[name].at, name))

    def apply_budget(self, config: WorkingMemoryConfig) -> tuple[list[str], list[str]]:
        """Enforce every count and value budget of ``config``; return (evicted, dropped).

        Facts beyond ``max_facts`` are evicted oldest unpinned first (pinned facts are
        only cleared by ``complete_task``); surplus plan steps go oldest done first;
        surplus constraints and open questions go newest first; long values are cut.
        """
        evicted: list[str] = []
        dropped: list[str] = []
        while len(self.facts) > config.max_facts:
            unpinned = [n for n in self.facts_oldest_first() if not self.facts[n].pinned]
            if not unpinned:
                break
            evicted.append(unpinned[0])
            del self.facts[unpinned[0]]
        for fact in self.facts.values():
            fact.value = clip(fact.value, value_cap(fact.source, config))[0]
        while len(self.plan) > config.max_plan_steps:
            done = [i for i, s in enumerate(self.plan) if s.status == "done"]
            index = done[0] if done else len(self.plan) - 1
            dropped.append(f"step: {self.plan.pop(index).step}")
        dropped += [f"constraint: {c}" for c in self.constraints[config.max_constraints :]]
        dropped += [f"open question: {q}" for q in self.open[config.max_open_questions :]]
        del self.constraints[config.max_constraints :]
        del self.open[config.max_open_questions :]
        return evicted, dropped
