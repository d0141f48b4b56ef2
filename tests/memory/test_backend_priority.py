"""A batch process yields the CPU (issue 49): ``run_as_batch_job`` lowers the process and each
backend its engine opens, where the server runs on this host (the embedded default).

Real parts: the test's PostgreSQL, a child process (a niceness cannot be raised back, so the
test's own process is left alone).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from adk_memory_kit.memory.backend_priority import BUILD_NICENESS

pytestmark = pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no process priorities")

CHILD = textwrap.dedent(
    """
    import asyncio, os, sys
    from sqlalchemy import text
    from adk_memory_kit.db.engine import make_engine
    from adk_memory_kit.memory.backend_priority import run_as_batch_job

    async def main():
        engine = make_engine(sys.argv[1], pool_size=1)
        run_as_batch_job(engine)
        async with engine.connect() as conn:
            pid = int(await conn.scalar(text("SELECT pg_backend_pid()")))
            try:  # a role without pg_read_all_settings (row-level security's) may not see it
                data_dir = await conn.scalar(text("SELECT current_setting('data_directory')"))
            except Exception:
                data_dir = None
        try:
            local = data_dir is not None and (
                os.path.realpath(os.readlink(f"/proc/{pid}/cwd")) == os.path.realpath(data_dir))
        except OSError:
            local = False
        backend = os.getpriority(os.PRIO_PROCESS, pid) if local else None
        # a new connection is handed out idle: it can be made autocommit (index builds are)
        async with engine.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text("SELECT 1"))
        async with engine.connect() as one, engine.connect() as two:
            two = await two.execution_options(isolation_level="AUTOCOMMIT")
            await two.execute(text("SELECT 1"))
        print(os.nice(0), backend)
        await engine.dispose()

    asyncio.run(main())
    """
)


def test_a_batch_job_runs_itself_and_its_backends_at_the_lowest_priority(db_url):
    done = subprocess.run(
        [sys.executable, "-c", CHILD, db_url], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    own, backend = done.stdout.split()
    assert int(own) == BUILD_NICENESS
    if backend == "None":  # the process still ran, its connections usable (asserted above)
        pytest.skip("the server's backends are not this host's, or the role may not see where")
    assert int(backend) == BUILD_NICENESS
