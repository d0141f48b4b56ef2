"""MemoryConfig: the one configuration object of :class:`PgVectorMemoryService`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from google.adk.memory.memory_entry import MemoryEntry
from pydantic import ConfigDict, Field, InstanceOf, SkipValidation, field_validator

from adk_memory_kit.core.config import KitConfig
from adk_memory_kit.core.session_policy import SessionSelector, WritePolicy, resolve_policy
from adk_memory_kit.memory.consolidation import Consolidator
from adk_memory_kit.memory.documents import IndexingOptions
from adk_memory_kit.memory.schema import StorageOptions
from adk_memory_kit.memory.search import SearchOptions

# verifier(entry) -> True to accept; False or a reason (str) to reject; may be async
Verifier = Callable[[MemoryEntry], "bool | str | Awaitable[bool | str]"]


class MemoryConfig(KitConfig):
    """Everything that tunes the memory service; frozen and validated at construction.

    The parts read their own fields: the store (``storage``, ``search``, ``pool_size``,
    ``access_flush_delay``), the write pipeline (``indexing``, ``write_policy``,
    ``routed_options``, ``consolidator``, ``verifier``, ``min_importance``).
    """

    model_config = ConfigDict(**KitConfig.model_config, arbitrary_types_allowed=True)

    storage: StorageOptions = Field(
        default_factory=StorageOptions, description="Table layout of a new database."
    )
    search: SearchOptions = Field(
        default_factory=SearchOptions,
        description="Ranking options (result cap, candidate depth, fusion weights).",
    )
    indexing: IndexingOptions = Field(
        default_factory=IndexingOptions, description="What is embedded and indexed per event."
    )
    write_policy: WritePolicy = Field(
        None,  # type: ignore[assignment]  # resolved by the validator below
        description="What add_session_to_memory stores: ROUTED (default, or "
        "$ADK_MEMORY_KIT_WRITE_POLICY) or FULL_TRANSCRIPT; names are accepted too.",
    )
    routed_options: InstanceOf[SessionSelector] | None = Field(
        None,
        description="The ROUTED policy's selector with its tuning (a RoutedOptions); None: "
        "the assembly's default (adk_memory_kit.PgVectorMemoryService supplies one).",
    )
    consolidator: Annotated[Consolidator | None, SkipValidation] = Field(
        None,
        description="Compares each new fact with the user's nearby facts on write "
        "(RuleConsolidator, LlmConsolidator); None: written as given.",
    )
    verifier: Annotated[Verifier | None, SkipValidation] = Field(
        None,
        description="Quality gate on fact writes, (entry) -> True | False | reason, may be "
        "async; rejected entries are reported by add_memory and counted in metrics.",
    )
    min_importance: float | None = Field(
        None, ge=0.0, le=1.0, strict=True, description="Entries below this importance are rejected."
    )
    pool_size: int = Field(
        5, ge=1, le=1000, strict=True, description="Connections kept by the service's own engine."
    )
    access_flush_delay: float = Field(
        2.0, ge=0.0, le=3600.0, description="Seconds recall accesses wait before one UPDATE."
    )

    @field_validator("write_policy", mode="before")
    @classmethod
    def _policy(cls, value: Any) -> WritePolicy:
        return resolve_policy(value)

    @field_validator("consolidator")
    @classmethod
    def _consolidator(cls, value: Any) -> Any:
        if value is not None and not callable(getattr(value, "decide", None)):
            raise ValueError("must have an async decide(fact, neighbours) method")
        return value

    @field_validator("verifier")
    @classmethod
    def _verifier(cls, value: Any) -> Any:
        if value is not None and not callable(value):
            raise ValueError("must be a callable (entry) -> bool | reason")
        return value
