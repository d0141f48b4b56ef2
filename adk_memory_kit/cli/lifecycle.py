"""``adk-memory-kit ingest-idle`` and ``adk-memory-kit forget``.

``--session-db-url`` picks the session store the agent's ``Runner`` uses:

* unset, or a PostgreSQL URL: ADK's ``DatabaseSessionService`` on it. On the same database
  as ``--db-url`` the idle job lists candidates with one SQL query;
* anything else goes through ADK's own service factory (what ``adk web
  --session_service_uri`` accepts): ``sqlite+aiosqlite:///sessions.db`` or another
  SQLAlchemy URL (``DatabaseSessionService``), ``sqlite:///sessions.db``
  (``SqliteSessionService``), ``agentengine://...`` (Vertex AI), or a scheme registered in
  ADK's service registry. The idle job then lists sessions through the public
  ``list_sessions`` API. Watermarks, memories and the forget log stay in ``--db-url``.

Errors the kit raises on purpose (``MemoryKitError``) reach ``adk_memory_kit.cli.main``, the
one handler, which prints one ``error: ...`` line on stderr and exits with status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from urllib.parse import urlsplit

from google.adk.sessions.base_session_service import BaseSessionService
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.adk.sessions.sqlite_session_service import SqliteSessionService

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.db.engine import resolve_db_url
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.lifecycle.forget import data_map, forget_user, pending_forgets
from adk_memory_kit.lifecycle.idle_job import IdleIngestJob, IdleRunReport
from adk_memory_kit.lifecycle.watermarks import SessionKey

_SESSION_URL_HELP = (
    "where the agent's sessions live (default: the same database as --db-url): a "
    "PostgreSQL URL, sqlite+aiosqlite:///FILE or another SQLAlchemy async URL "
    "(DatabaseSessionService), sqlite:///FILE (SqliteSessionService), agentengine://ID; "
    "non-PostgreSQL stores are listed through ADK's public session API"
)
_POSTGRES_SCHEMES = {"postgres", "postgresql", "postgresql+psycopg", "pgvector"}


def register(subparsers: argparse._SubParsersAction) -> None:
    idle = subparsers.add_parser(
        "ingest-idle",
        help="ingest idle, changed sessions into long-term memory (cron or sidecar)",
        description="Ingest every session of an app untouched for --idle-minutes and changed "
        "since its last ingestion. Safe to run as several workers at once.",
    )
    idle.add_argument("--app", required=True, help="app name")
    idle.add_argument("--idle-minutes", type=float, default=30.0, help="default: 30")
    idle.add_argument("--once", action="store_true", help="one pass, then exit (for cron)")
    idle.add_argument(
        "--interval", type=float, default=60.0, help="seconds between passes (default: 60)"
    )
    idle.add_argument("--batch-size", type=int, default=None, help="max sessions per pass")
    idle.add_argument("--session-db-url", default=None, help=_SESSION_URL_HELP)
    idle.add_argument("--quiet", action="store_true", help="print pass summaries only")
    idle.set_defaults(func=_ingest_idle)

    forget = subparsers.add_parser(
        "forget",
        help="delete a user's sessions, user: state and memories (right to be forgotten)",
    )
    forget.add_argument("--app", required=True, help="app name")
    who = forget.add_mutually_exclusive_group(required=True)
    who.add_argument("--user", help="user id to forget")
    who.add_argument("--pending", action="store_true", help="list forgets that were interrupted")
    forget.add_argument(
        "--dry-run", action="store_true", help="only show where the user's data lives"
    )
    forget.add_argument("--json", action="store_true", help="print JSON")
    forget.add_argument("--session-db-url", default=None, help=_SESSION_URL_HELP)
    forget.set_defaults(func=_forget)


def session_service_from_url(url: str | None, db_url: str | None) -> BaseSessionService:
    """The session service for ``--session-db-url`` (see the module doc)."""
    if not url or urlsplit(url).scheme in _POSTGRES_SCHEMES:
        # statement parameters (user text) never rendered into error messages
        return DatabaseSessionService(db_url=resolve_db_url(url or db_url), hide_parameters=True)
    scheme = urlsplit(url).scheme
    if not scheme:
        raise InvalidInputError(
            f"--session-db-url {url!r} has no scheme; use e.g. postgresql+psycopg://..., "
            "sqlite+aiosqlite:///sessions.db or sqlite:///sessions.db"
        )
    if scheme == "memory":
        raise InvalidInputError(
            "--session-db-url memory:// is empty outside the agent's own process; run the "
            "job from that process with the Python API (IdleIngestJob, forget_user)"
        )
    from google.adk.cli.utils.service_factory import create_session_service_from_options

    try:
        return create_session_service_from_options(
            base_dir=Path.cwd(), session_service_uri=url, use_local_storage=False
        )
    except (ValueError, ImportError) as exc:
        raise InvalidInputError(
            f"cannot open the session store {scheme}://...: {exc}".splitlines()[0]
        ) from exc


async def _services(
    args: argparse.Namespace,
) -> tuple[BaseSessionService, PgVectorMemoryService]:
    db_url = getattr(args, "db_url", None)
    memory_url = await asyncio.to_thread(resolve_db_url, db_url)  # validates --db-url first
    sessions = await asyncio.to_thread(session_service_from_url, args.session_db_url, db_url)
    if isinstance(sessions, DatabaseSessionService) and args.session_db_url:
        try:
            await sessions.prepare_tables()  # open it now, so a bad URL fails here
        except Exception as exc:
            await _close_sessions(sessions)
            scheme = urlsplit(args.session_db_url).scheme
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            raise InvalidInputError(
                f"cannot open the session store {scheme}://... ({reason}); check "
                "--session-db-url (sqlite+aiosqlite:///relative.db, "
                "sqlite+aiosqlite:////absolute/path.db)"
            ) from exc
    return sessions, PgVectorMemoryService(memory_url)


async def _close_sessions(sessions: BaseSessionService) -> None:
    if isinstance(sessions, (DatabaseSessionService, SqliteSessionService)):
        await sessions.close()  # the services that hold connections


def _stamp() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


async def _ingest_idle(args: argparse.Namespace) -> int:
    sessions, memory = await _services(args)

    def progress(key: SessionKey, outcome: str) -> None:
        # failures are printed with their error by on_report
        if outcome == "ingested" or (not args.quiet and outcome not in ("failed", "unchanged")):
            print(f"{_stamp()}  {outcome:<10} {key}", flush=True)

    def on_report(report: IdleRunReport) -> None:
        if args.quiet and not report.considered:
            return
        print(f"{_stamp()}  pass done: {report.summary()}", flush=True)
        for key, error in report.failed:
            print(f"{_stamp()}  failed     {key}: {error}", file=sys.stderr, flush=True)

    job = IdleIngestJob(
        sessions,
        memory,
        app_name=args.app,
        idle_after=timedelta(minutes=args.idle_minutes),
        batch_size=args.batch_size,
        progress=progress,
    )
    try:
        if args.once:
            report = await job.run_once()  # a database failure raises a kit error: exit 2
            on_report(report)
            return 1 if report.failed else 0
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, stop.set)
        print(
            f"{_stamp()}  ingesting sessions of {args.app!r} idle for {args.idle_minutes:g} min, "
            f"every {args.interval:g}s (Ctrl-C to stop)",
            flush=True,
        )
        await job.run_forever(args.interval, stop=stop, on_report=on_report)
        return 0
    finally:
        await job.close()
        await memory.close()
        await _close_sessions(sessions)


async def _forget(args: argparse.Namespace) -> int:
    sessions, memory = await _services(args)
    try:
        if args.pending:
            pending = await pending_forgets(args.app, memory_service=memory)
            if args.json:
                print(json.dumps([p.__dict__ for p in pending], default=str, indent=2))
            elif not pending:
                print("no interrupted forgets")
            for p in [] if args.json else pending:
                detail = f": {p.detail}" if p.detail else ""
                print(
                    f"{p.requested_at:%Y-%m-%dT%H:%M:%S%z}  {p.app_name}/{p.user_id}  "
                    f"{p.status}{detail}  (re-run forget for this user to finish)"
                )
            return 0
        if args.dry_run:
            found = await data_map(
                args.app,
                args.user,
                session_service=sessions,
                memory_service=memory,
            )
            print(json.dumps(found.as_dict(), indent=2) if args.json else found.summary())
            return 0
        report = await forget_user(
            args.app,
            args.user,
            session_service=sessions,
            memory_service=memory,
        )
        print(
            json.dumps(report.as_dict(), default=str, indent=2) if args.json else report.summary()
        )
        return 0 if report.verified and report.user_state == "deleted" else 1
    finally:
        await memory.close()
        await _close_sessions(sessions)
