"""Ingest abandoned sessions into long-term memory: a sidecar next to your agent.

    python samples/run_idle_job.py my_app

ADK's Runner never writes long-term memory; this job does, for every session untouched for
30 minutes that changed since its last ingestion. Run as many copies as you like: each
session is claimed by one worker. The command-line equivalent (cron or sidecar) is
``adk-memory-kit ingest-idle --app my_app --idle-minutes 30 [--once]``.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta

from google.adk.sessions.database_session_service import DatabaseSessionService
from google.adk.sessions.session import Session

from adk_memory_kit.db import resolve_db_url
from adk_memory_kit.lifecycle import IdleIngestJob
from adk_memory_kit.memory import PgVectorMemoryService


async def after_ingest(session: Session) -> None:
    """Optional: runs after the memory write, before the watermark advances.

    Put a sleep-time fact extractor here. If it raises, the session is retried next pass.
    """
    print(f"ingested {session.user_id}/{session.id}: {len(session.events)} events")


async def main(app_name: str) -> None:
    db_url = resolve_db_url(None)  # ADK_MEMORY_KIT_DB_URL, else the embedded server
    sessions = DatabaseSessionService(db_url=db_url)  # the one your Runner uses
    memory = PgVectorMemoryService(db_url)
    job = IdleIngestJob(
        sessions,
        memory,
        app_name=app_name,
        idle_after=timedelta(minutes=30),
        after_ingest=after_ingest,
    )
    try:
        await job.run_forever(timedelta(minutes=1), on_report=lambda r: print(r.summary()))
    finally:
        await job.close()
        await memory.close()
        await sessions.close()


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "my_app"))
    except KeyboardInterrupt:
        pass
