"""Ingest abandoned sessions into long-term memory: a sidecar next to your agent.

    python samples/run_idle_job.py wire_demo --idle-minutes 0 --once   # one pass now
    python samples/run_idle_job.py concierge                           # every minute, 30 min idle

The first argument is the ``app_name`` your ``Runner`` (or ``App``) uses: the job ingests that
app's sessions, of every user (``wire_demo`` is what ``samples/wire_runner.py`` creates,
``concierge`` what the ``adk web`` sample agent creates). ADK's Runner never writes long-term
memory; this job does, for every session untouched for ``--idle-minutes`` (default 30) that
changed since its last ingestion. ``--once`` runs one pass and exits (cron); exit status 1 if
a session failed. Run as
many copies as you like: each session is claimed by one worker. A session that fails is
retried on the next pass, then with a growing delay (up to an hour), without holding up the
others. The command-line equivalent (cron or sidecar) is
``adk-memory-kit ingest-idle --app wire_demo --idle-minutes 30 [--once]``.

The sessions are read from ADK's ``DatabaseSessionService`` on the kit's database
(``ADK_MEMORY_KIT_DB_URL``, else the embedded server). If your Runner uses another session
service, pass that service instead: any ``BaseSessionService`` works.
"""

from __future__ import annotations

import argparse
import asyncio
from datetime import timedelta

from google.adk.sessions.database_session_service import DatabaseSessionService
from google.adk.sessions.session import Session

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.db import resolve_db_url
from adk_memory_kit.lifecycle import IdleIngestJob


async def main(app_name: str, idle_minutes: float, once: bool) -> int:
    db_url = resolve_db_url(None)  # ADK_MEMORY_KIT_DB_URL, else the embedded server
    sessions = DatabaseSessionService(db_url=db_url)  # the one your Runner uses
    memory = PgVectorMemoryService(db_url)

    async def after_ingest(session: Session) -> None:
        """Optional: runs after the memory write, before the watermark advances.

        Put a sleep-time fact extractor here. If it raises, the session is retried later.
        """
        rows = await memory.count_memories(app_name=app_name, user_id=session.user_id)
        print(
            f"ingested session {session.id} of {session.user_id}: long-term memory rows for "
            f"that user now {sum(rows.values())} {rows}"
        )

    job = IdleIngestJob(
        sessions,
        memory,
        app_name=app_name,
        idle_after=timedelta(minutes=idle_minutes),
        after_ingest=after_ingest,
    )
    try:
        if once:
            report = await job.run_once()
            print(report.summary())
            for key, error in report.failed:
                print(f"failed {key}: {error}")
            return 1 if report.failed else 0
        print(
            f"ingesting sessions of {app_name!r} idle for {idle_minutes:g} minutes, a pass "
            "a minute; Ctrl-C to stop"
        )
        await job.run_forever(timedelta(minutes=1), on_report=lambda r: print(r.summary()))
        return 0
    finally:
        await job.close()
        await memory.close()
        await sessions.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Ingest idle sessions into long-term memory.")
    parser.add_argument("app_name", help="the Runner's app name, e.g. wire_demo or concierge")
    parser.add_argument(
        "--idle-minutes",
        type=float,
        default=30.0,
        help="ingest sessions untouched for this long (default 30; 0 = every changed session)",
    )
    parser.add_argument("--once", action="store_true", help="one pass, then exit")
    args = parser.parse_args()
    if args.idle_minutes < 0:
        parser.error("--idle-minutes must be 0 or more")
    try:
        raise SystemExit(asyncio.run(main(args.app_name, args.idle_minutes, args.once)))
    except KeyboardInterrupt:
        pass
