"""Whether the embedded server's postmaster is alive, read from its lock file (used by the
server's starter and by the reaper that stops it)."""

from __future__ import annotations

from pathlib import Path


def lock_file_pid(path: Path) -> int | None:
    """The pid on the first line of a PostgreSQL lock file (``None``: no file, or no pid)."""
    try:
        return int(path.read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return None


def process_running(pid: int | None) -> bool:
    """Whether ``pid`` is a live process (a zombie, killed but not yet reaped, is not)."""
    if pid is None:
        return False
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def postmaster_running(pgdata: Path) -> bool:
    """Whether the postmaster named in ``pgdata``'s lock file is alive."""
    return process_running(lock_file_pid(pgdata / "postmaster.pid"))
