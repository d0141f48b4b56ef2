"""IdleJobConfig: the idle job's settings, validated at construction."""

from __future__ import annotations

from datetime import timedelta

import pytest
from google.adk.sessions import InMemorySessionService

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.lifecycle.config import IdleJobConfig
from adk_memory_kit.lifecycle.idle_job import IdleIngestJob


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"app_name": ""}, "IdleJobConfig.app_name"),
        ({"app_name": "a", "idle_after": timedelta(hours=-1)}, "idle_after must not be negative"),
        ({"app_name": "a", "batch_size": 0}, "IdleJobConfig.batch_size"),
        ({"app_name": "a", "claim_ttl": timedelta(0)}, "claim_ttl must be positive"),
        (
            {"app_name": "a", "retry_backoff": timedelta(hours=2)},
            "retry_backoff <= max_retry_backoff",
        ),
        ({"app_name": "a", "batch": 3}, "IdleJobConfig.batch"),
    ],
)
def test_bad_settings_fail_at_construction(settings, message):
    with pytest.raises(InvalidInputError, match=message):
        IdleJobConfig(**settings)


def test_keyword_arguments_build_the_config(embedder):
    memory = PgVectorMemoryService(
        "postgresql+psycopg://unused@localhost/unused", embedder=embedder
    )
    job = IdleIngestJob(
        InMemorySessionService(), memory, app_name="a", batch_size=3, idle_after=timedelta(0)
    )
    assert job.config == IdleJobConfig(app_name="a", batch_size=3, idle_after=timedelta(0))
    assert (job.app_name, job.batch_size) == ("a", 3)
    with pytest.raises(InvalidInputError, match="IdleJobConfig.batch_size"):
        IdleIngestJob(InMemorySessionService(), memory, app_name="a", batch_size=-2)
    with pytest.raises(InvalidInputError, match="not both"):
        IdleIngestJob(InMemorySessionService(), memory, IdleJobConfig(app_name="a"), app_name="b")


def test_retry_delays_follow_the_config(embedder):
    memory = PgVectorMemoryService(
        "postgresql+psycopg://unused@localhost/unused", embedder=embedder
    )
    config = IdleJobConfig(
        app_name="a", retry_backoff=timedelta(seconds=10), max_retry_backoff=timedelta(seconds=30)
    )
    job = IdleIngestJob(InMemorySessionService(), memory, config)
    delays = [job.retry_delay(n).total_seconds() for n in (1, 2, 3, 4, 5)]
    assert delays == [0, 10, 20, 30, 30]
