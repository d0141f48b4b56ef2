"""A killed embedded server comes back in the same process, at a bounded rate.

Runs its own embedded server in a temporary home (not the shared test server), kills its
postmaster with SIGKILL and checks that the same engine and a new ``PgVectorMemoryService()``
work again without restarting the process, that a second death within the restart interval
gives a clear ``DatabaseUnavailableError``, and that both the restart and the reconnection
are logged.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import tempfile
import time
from pathlib import Path

import psutil
import pytest
from sqlalchemy import text

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.db import embedded
from adk_memory_kit.db.engine import make_engine
from adk_memory_kit.errors import DatabaseUnavailableError


def _kill_postmaster(pgdata) -> int:
    """SIGKILL the server and its backends (a crash), and wait until all of them are gone.

    Killing the postmaster alone leaves its backends alive for a moment, so a pooled
    connection could still answer a ping and then fail mid-statement: that is a different
    fault (covered by tests/faults) from the one this module tests.
    """
    pid = int((pgdata / "postmaster.pid").read_text().splitlines()[0])
    victims = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    for victim in victims:
        with contextlib.suppress(psutil.NoSuchProcess):
            victim.kill()
    psutil.wait_procs(victims, timeout=10)
    deadline = time.monotonic() + 10
    while embedded._postmaster_running(pgdata) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not embedded._postmaster_running(pgdata)
    return pid


@pytest.fixture
def own_server(monkeypatch):
    """A second embedded server in a fresh folder, the default for this test, stopped after.

    The folder is made with :func:`tempfile.mkdtemp` under the system temp folder, like the
    run's own server (tests/conftest.py): pytest's ``tmp_path`` lives under a folder only
    root may enter, where the server's unprivileged user cannot initialise its data.
    """
    tmp_path = Path(tempfile.mkdtemp(prefix="adk_memory_kit_recovery_"))
    monkeypatch.setenv("ADK_MEMORY_KIT_HOME", str(tmp_path))
    monkeypatch.delenv("ADK_MEMORY_KIT_DB_URL", raising=False)
    url = embedded.embedded_db_url()
    pgdata = tmp_path.resolve() / "pgdata"
    yield url, pgdata
    server = embedded._servers.pop(pgdata, None)
    embedded._last_restart.pop(pgdata, None)
    pid = embedded._lock_file_pid(pgdata / "postmaster.pid")
    if server is not None and embedded._running(pid):
        server.cleanup()  # type: ignore[attr-defined]
    if embedded._running(embedded._lock_file_pid(pgdata / "postmaster.pid")):
        os.kill(embedded._lock_file_pid(pgdata / "postmaster.pid"), signal.SIGKILL)
    shutil.rmtree(tmp_path, ignore_errors=True)


async def _select_one(engine) -> int:
    async with engine.connect() as conn:
        return (await conn.execute(text("SELECT 1"))).scalar_one()


@pytest.mark.slow
async def test_a_killed_embedded_server_is_restarted_in_the_same_process(
    own_server, embedder, caplog
):
    url, pgdata = own_server
    engine = make_engine(url, pool_size=1)  # the URL of the server this process started
    try:
        assert await _select_one(engine) == 1
        killed = _kill_postmaster(pgdata)
        with caplog.at_level(logging.WARNING, logger="adk_memory_kit.db"):
            # the same engine: its pooled connection is dead, the next one restarts the server
            assert await _select_one(engine) == 1
        restarted = [r.getMessage() for r in caplog.records if "restarted it" in r.getMessage()]
        assert len(restarted) == 1 and str(killed) in restarted[0]
        assert any("reconnected to the database" in r.getMessage() for r in caplog.records)
        assert embedded._postmaster_running(pgdata)

        # killed again at once: not restarted again within the interval, a clear error instead
        _kill_postmaster(pgdata)
        with pytest.raises(DatabaseUnavailableError, match="restarted at most once every"):
            await _select_one(engine)

        # once the interval has passed, a new service with no URL (the embedded default) works
        embedded._last_restart[pgdata] -= embedded.RESTART_INTERVAL_S
        service = PgVectorMemoryService(embedder=embedder)
        try:
            found = await service.search_memory(app_name="app", user_id="u", query="anything")
            assert found.memories == []
        finally:
            await service.close()
        assert await _select_one(engine) == 1
    finally:
        await engine.dispose()
