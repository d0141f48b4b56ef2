"""Lower the CPU priority of one Postgres backend, where the server runs on this host.

A maintenance build (memory/ann.py) is one backend busy on a core for seconds to minutes; on
a small host (the embedded default on 2 cores) it competes with every search. When the
server's backend is a process of this host that this process may renice, the build's backend
is set to :data:`BUILD_NICENESS`, so searches' backends (niceness 0) take the CPU first and
the build runs in what is left. A raised niceness cannot be lowered again without privileges,
so the caller discards the connection after the work (its backend exits).

A bulk import in a process of its own (``adk-memory-kit import``) is the same kind of
work: :func:`run_as_batch_job` lowers that process and every backend its engine opens.

Best effort: a remote server, another user's processes or a platform without ``/proc`` leave
the priority as it is.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

logger = logging.getLogger(__name__)

#: The niceness of a build's backend (19: the lowest priority Linux has).
BUILD_NICENESS = 19

_WHO_SQL = (
    "SELECT pg_backend_pid() AS pid, current_setting('data_directory', true) AS data_dir,"
    " inet_server_addr() AS addr"
)
_WHO = text(_WHO_SQL)


def _same_process(pid: int, data_dir: str) -> bool:
    """Whether ``pid`` is, on this host, a backend of the server whose data is ``data_dir``
    (a backend's working directory is its server's data directory)."""
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
        return Path(cwd).resolve() == Path(data_dir).resolve()
    except OSError:
        return False


def _renice(pid: int, data_dir: str | None, addr: object) -> bool:
    """Renice backend ``pid`` when it is a local backend of the server at ``data_dir``."""
    if not hasattr(os, "setpriority"):
        return False
    local = addr is None or str(addr) in ("127.0.0.1", "::1")
    if not (local and data_dir and _same_process(int(pid), str(data_dir))):
        return False
    try:
        os.setpriority(os.PRIO_PROCESS, int(pid), BUILD_NICENESS)
    except OSError as exc:
        logger.debug("could not lower a backend's priority: %s", type(exc).__name__)
        return False
    return True


async def lower_backend_priority(conn: AsyncConnection) -> bool:
    """Renice ``conn``'s backend to :data:`BUILD_NICENESS` when it runs on this host;
    ``True`` if done. The connection must be discarded after its work (see the module)."""
    if not hasattr(os, "setpriority"):
        return False
    try:
        row = (await conn.execute(_WHO)).one()
    except DBAPIError as exc:  # a role that may not read data_directory: leave it as it is
        logger.debug("could not locate a backend to lower: %s", type(exc.orig).__name__)
        return False
    return _renice(int(row.pid), row.data_dir, row.addr)


def _renice_on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(_WHO_SQL)
        pid, data_dir, addr = cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - best effort: a role that may not read
        # data_directory (row-level security's) keeps its connection, at normal priority
        logger.debug("could not locate a backend to lower: %s", type(exc).__name__)
        return
    finally:
        cursor.close()
        # the query opened a transaction: end it, so the connection is handed out idle (an
        # autocommit one, as index builds take, cannot be made from one in a transaction)
        dbapi_connection.rollback()
    _renice(int(pid), data_dir, addr)


def run_as_batch_job(engine: AsyncEngine) -> None:
    """Make this process a background job: this process and every backend ``engine`` opens
    from now on run at :data:`BUILD_NICENESS`, so searches served beside it (other processes,
    other backends) take the CPU first. For a process that does batch work only (an import):
    neither can be raised back. Call it before the engine's first connection (connections
    already open keep their priority)."""
    if hasattr(os, "nice"):
        os.nice(max(BUILD_NICENESS - os.nice(0), 0))
    if hasattr(os, "setpriority"):
        event.listen(engine.sync_engine, "connect", _renice_on_connect)
