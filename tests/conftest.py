"""Shared fixtures: one real embedded PostgreSQL (+pgvector) and the real local embedder."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

_HOME = Path(tempfile.mkdtemp(prefix="adk_memory_kit_test_"))
# atexit runs last-registered first: the embedded server (registered when it starts) stops
# before this removes its data folder.
atexit.register(shutil.rmtree, _HOME, ignore_errors=True)
os.environ["ADK_MEMORY_KIT_HOME"] = str(_HOME)
os.environ.pop("ADK_MEMORY_KIT_DB_URL", None)

# ADK_MEMORY_KIT_TEST_PARTITIONS=N runs the suite against memory tables hash-partitioned by
# user_id into N partitions (CI runs the memory and lifecycle tests once more this way).
TEST_PARTITIONS = int(os.environ.get("ADK_MEMORY_KIT_TEST_PARTITIONS") or 0) or None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Keep pytest's temporary folders under this run's home unless ``--basetemp`` is given.

    Tests that start their own embedded server keep its data in ``tmp_path``. The server runs
    as an unprivileged user (when the tests run as root), and pytest closes its default root
    (``/tmp/pytest-of-root``) to everyone else at every session start, so ``initdb`` could be
    refused there depending on test order. Under the run's home nothing closes it again.
    """
    if config.option.basetemp is None:
        config.option.basetemp = str(_HOME / "pytest-tmp")


@pytest.fixture(scope="session")
def kit_home_dir() -> Path:
    """The temporary ADK_MEMORY_KIT_HOME of this test run."""
    return _HOME


@pytest.fixture(scope="session")
def db_url() -> str:
    """SQLAlchemy URL of the embedded server started once for the whole run."""
    from adk_memory_kit.db import embedded_db_url

    return embedded_db_url()


@pytest.fixture(scope="session")
def embedder():
    """The real local MiniLM embedder (loaded once)."""
    from adk_memory_kit.embedders import LocalMiniLMEmbedder

    return LocalMiniLMEmbedder()


@pytest.fixture(scope="session")
def test_partitions() -> int | None:
    """The partition count of this run's memory tables (None: plain tables)."""
    return TEST_PARTITIONS


@pytest.fixture(autouse=True, scope="session")
def _partitioned_schema(request):
    """With ADK_MEMORY_KIT_TEST_PARTITIONS set, create the partitioned memory schema before
    any test, so services built without ``partitions`` find it already partitioned."""
    if not TEST_PARTITIONS:
        return
    import asyncio

    from adk_memory_kit.assembly import PgVectorMemoryService

    service = PgVectorMemoryService.from_url(
        request.getfixturevalue("db_url"),
        embedder=request.getfixturevalue("embedder"),
        storage={"partitions": TEST_PARTITIONS},
    )

    async def create() -> None:
        await service.store.ready()
        await service.close()

    asyncio.run(create())


@pytest.fixture(scope="module")
async def sessions(db_url):
    """ADK's DatabaseSessionService on the embedded server (one per test module)."""
    from google.adk.sessions.database_session_service import DatabaseSessionService

    service = DatabaseSessionService(db_url=db_url)
    yield service
    await service.close()


@pytest.fixture(scope="module")
async def memory(db_url, embedder):
    """A PgVectorMemoryService on the embedded server (one per test module).

    It stores whole transcripts (``WritePolicy.FULL_TRANSCRIPT``): the tests using it check
    the storage mechanics (upserts, snapshots, redaction, forget, lifecycle counts) on every
    event. The default ROUTED policy is tested in tests/write_policy/ with its own services.
    """
    from adk_memory_kit.assembly import PgVectorMemoryService
    from adk_memory_kit.core.session_policy import WritePolicy

    service = PgVectorMemoryService.from_url(
        db_url,
        embedder=embedder,
        write_policy=WritePolicy.FULL_TRANSCRIPT,
        storage={"partitions": TEST_PARTITIONS},
    )
    yield service
    await service.close()
