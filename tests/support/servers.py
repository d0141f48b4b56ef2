"""A dedicated embedded PostgreSQL for tests that kill it (never the shared test server)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import psutil

from adk_memory_kit.db import embedded


def kill_server(pgdata: Path) -> int:
    """SIGKILL the postmaster in ``pgdata`` and every process it started; returns its pid.

    Waits until none of them runs, so no statement sent afterwards can still commit.
    """
    pid = embedded._lock_file_pid(pgdata / "postmaster.pid")
    assert pid is not None and embedded._running(pid)
    root = psutil.Process(pid)
    try:
        procs = [root, *root.children(recursive=True)]
    except (
        psutil.NoSuchProcess
    ):  # the postmaster exited after the check (children are listed leniently)
        procs = [root]
    for proc in procs:
        try:
            os.kill(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 10
    while any(embedded._running(p.pid) for p in procs) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not any(embedded._running(p.pid) for p in procs)
    return pid


def stop_server(pgdata: Path) -> None:
    """Stop the server in ``pgdata`` this process started and forget its handle."""
    server = embedded._servers.pop(pgdata, None)
    embedded._last_restart.pop(pgdata, None)
    pid = embedded._lock_file_pid(pgdata / "postmaster.pid")
    if server is not None and embedded._running(pid):
        server.cleanup()  # type: ignore[attr-defined]
    pid = embedded._lock_file_pid(pgdata / "postmaster.pid")
    if embedded._running(pid):
        os.kill(pid, signal.SIGKILL)
