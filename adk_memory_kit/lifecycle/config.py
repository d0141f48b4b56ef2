"""The lifecycle's options, all in one place: the closer, the checkpoint plugin and the idle
job (frozen :class:`~adk_memory_kit.core.config.KitConfig` models)."""

from __future__ import annotations

from datetime import timedelta

from pydantic import Field, model_validator

from adk_memory_kit.core.config import KitConfig
from adk_memory_kit.core.validation import MAX_DURATION


class SessionCloserConfig(KitConfig):
    """How a :class:`SessionCloser` retries (validated at construction; a wrong value
    raises ``InvalidInputError`` naming the field)."""

    attempts: int = Field(
        3,
        strict=True,
        ge=1,
        le=100,
        description="Total tries for a transient failure (1 = no retry).",
    )
    backoff: float = Field(
        0.5,
        strict=True,
        allow_inf_nan=False,
        ge=0,
        le=3600,
        description="Seconds before the first retry; doubles each time.",
    )


class MemoryCheckpointConfig(SessionCloserConfig):
    """When a :class:`MemoryCheckpointPlugin` ingests, and its closer's retries (``attempts``,
    ``backoff`` of :class:`SessionCloserConfig`); a wrong value raises ``InvalidInputError``
    naming the field."""

    every_n_invocations: int | None = Field(
        5,
        strict=True,
        ge=1,
        le=1_000_000,
        description="Checkpoint period; None checkpoints only when end_session was called.",
    )
    max_tracked_sessions: int = Field(
        10_000,
        strict=True,
        ge=1,
        le=10_000_000,
        description="Sessions the in-process count (truncated sessions only) remembers.",
    )


class IdleJobConfig(KitConfig):
    """What an :class:`IdleIngestJob` ingests and how it paces itself (validated at
    construction; wrong values raise ``InvalidInputError``)."""

    app_name: str = Field(min_length=1, description="The app whose sessions are ingested.")
    idle_after: timedelta = Field(
        timedelta(minutes=30),
        description="How long a session must be untouched before it is ingested (>= 0).",
    )
    db_url: str | None = Field(
        None,
        description="The Postgres for the watermarks; default: the memory service's "
        "(PgVectorMemoryService), else the session service's, else the embedded one.",
    )
    use_sql_listing: bool | None = Field(
        None,
        description="Force (True) or forbid (False) listing candidates with one SQL query on "
        "ADK's sessions table; None uses it when the session service is a "
        "DatabaseSessionService on the same database.",
    )
    batch_size: int | None = Field(
        None,
        ge=1,
        description="At most this many sessions per run (None: all). Each worker leases its "
        "batch for claim_ttl, so concurrent workers take disjoint batches.",
    )
    retry_backoff: timedelta = Field(
        timedelta(minutes=1),
        description="A failed session is retried on the next pass; after its n-th "
        "consecutive failure (n >= 2) it waits min(retry_backoff * 2 ** (n - 2), "
        "max_retry_backoff).",
    )
    max_retry_backoff: timedelta = Field(
        timedelta(hours=1), description="The longest wait between retries."
    )
    claim_ttl: timedelta = Field(
        timedelta(minutes=15),
        description="How long a batch lease lasts if the worker dies before releasing it (> 0).",
    )

    @model_validator(mode="after")
    def _check_durations(self) -> IdleJobConfig:
        if self.idle_after < timedelta(0):
            raise ValueError(f"idle_after must not be negative, got {self.idle_after}")
        if self.idle_after > MAX_DURATION:
            raise ValueError(f"idle_after must be at most {MAX_DURATION.days} days")
        if self.retry_backoff < timedelta(0) or self.max_retry_backoff < self.retry_backoff:
            raise ValueError(
                "need 0 <= retry_backoff <= max_retry_backoff, got "
                f"{self.retry_backoff} and {self.max_retry_backoff}"
            )
        if self.claim_ttl <= timedelta(0):
            raise ValueError(f"claim_ttl must be positive, got {self.claim_ttl}")
        return self
