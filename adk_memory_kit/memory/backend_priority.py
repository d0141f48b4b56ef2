"""Lower the CPU priority of one Postgres backend, where the server runs on this host.

A maintenance build (memory/ann.py) is one backend busy on a core for seconds to minutes; on
a small host (the embedded default on 2 cores) it competes with every search. When the
server's backend is a process of this host that this process may renice, the build's backend
is set to :data:`BUILD_NICENESS`, so searches' backends (niceness 0) take the CPU first and
the build runs in what is left. A raised niceness cannot be lowered again without privileges,
so the caller discards the connection after the work (its backend exits).

Best effort: a remote server, another user's processes or a platform without ``/proc`` leave
the priority as it is.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection

logger = logging.getLogger(__name__)

#: The niceness of a build's backend (19: the lowest priority Linux has).
BUILD_NICENESS = 19

_WHO = text(
    "SELECT pg_backend_pid() AS pid, current_setting('data_directory', true) AS data_dir,"
    " inet_server_addr() AS addr"
)


def _same_process(pid: int, data_dir: str) -> bool:
    """Whether ``pid`` is, on this host, a backend of the server whose data is ``data_dir``
    (a backend's working directory is its server's data directory)."""
    try:
        cwd = os.readlink(f"/proc/{pid}/cwd")
        return Path(cwd).resolve() == Path(data_dir).resolve()
    except OSError:
        return False


async def lower_backend_priority(conn: AsyncConnection) -> bool:
    """Renice ``conn``'s backend to :data:`BUILD_NICENESS` when it runs on this host;
    ``True`` if done. The connection must be discarded after its work (see the module)."""
    if not hasattr(os, "setpriority"):
        return False
    row = (await conn.execute(_WHO)).one()
    local = row.addr is None or str(row.addr) in ("127.0.0.1", "::1")
    if not (local and row.data_dir and _same_process(int(row.pid), str(row.data_dir))):
        return False
    try:
        os.setpriority(os.PRIO_PROCESS, int(row.pid), BUILD_NICENESS)
    except OSError as exc:
        logger.debug("could not lower a build backend's priority: %s", type(exc).__name__)
        return False
    return True
