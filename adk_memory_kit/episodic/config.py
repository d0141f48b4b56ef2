"""``EpisodicLogConfig``: the options of an :class:`~adk_memory_kit.episodic.EpisodicLog`.

A :class:`~adk_memory_kit.core.config.KitConfig`: validated at construction, a wrong value
raises :class:`~adk_memory_kit.errors.InvalidInputError` naming the field. Numbers are strict
(no ``bool``, no numeric strings, no NaN or infinity).
"""

from __future__ import annotations

from pydantic import Field, model_validator

from adk_memory_kit.core.config import KitConfig
from adk_memory_kit.episodic.payload import DEFAULT_MAX_PAYLOAD_BYTES


class EpisodicLogConfig(KitConfig):
    """How an :class:`~adk_memory_kit.episodic.EpisodicLog` keeps and writes entries."""

    retention_days: float | None = Field(
        None,
        strict=True,
        allow_inf_nan=False,
        gt=0,
        le=365_000,
        description="Default age limit for purge_expired (None: pass one to each call).",
    )
    batch_size: int = Field(
        64, strict=True, ge=1, le=100_000, description="Write when this many entries wait."
    )
    flush_interval: float = Field(
        0.5,
        strict=True,
        allow_inf_nan=False,
        gt=0,
        le=86_400,
        description="Write waiting entries at least this often (seconds).",
    )
    max_pending: int = Field(
        10_000,
        strict=True,
        le=10**7,
        description="Entries held while the database is slow (at least batch_size); beyond "
        "it new entries are dropped (counted in dropped) rather than growing memory.",
    )
    max_payload_bytes: int = Field(
        DEFAULT_MAX_PAYLOAD_BYTES,
        strict=True,
        ge=256,
        le=2**30,
        description="Payloads above this are stored truncated, with their size and sha256.",
    )

    @model_validator(mode="after")
    def _room_for_a_batch(self) -> EpisodicLogConfig:
        if self.max_pending < self.batch_size:
            raise ValueError("max_pending must be at least batch_size")
        return self


__all__ = ["EpisodicLogConfig"]
