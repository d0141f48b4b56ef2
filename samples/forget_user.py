"""Right to be forgotten: show where a user's data lives, then delete all of it.

    python samples/forget_user.py wire_demo traveller-1

The arguments are the ``app_name`` your ``Runner`` uses and the ``user_id`` to forget
(``wire_demo`` / ``traveller-1`` is what ``samples/wire_runner.py`` creates; ``adk web``
creates ``user`` in each app). Deletes the user's sessions and ``user:`` state, and their rows
in every kit home found in the database (long-term memories and snapshots, the review queue,
idle-job watermarks, the episodic log, and homes later packages add), and keeps a deletion
record per run (app, user id, times, counts per home). If it is interrupted, or data is still
left at the end, the forget stays open (listed by
``adk-memory-kit forget --app wire_demo --pending``): run it again, it finishes the job.
Command-line equivalent: ``adk-memory-kit forget --app wire_demo --user traveller-1 [--dry-run]``.
"""

from __future__ import annotations

import asyncio
import sys

from google.adk.sessions.database_session_service import DatabaseSessionService

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.db import resolve_db_url
from adk_memory_kit.lifecycle import data_map, forget_user


async def main(app_name: str, user_id: str) -> int:
    db_url = resolve_db_url(None)  # ADK_MEMORY_KIT_DB_URL, else the embedded server
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url)
    try:
        # every kit home in the database (review queue, watermarks, episodic log, ...) is
        # found from the catalog: only the session and memory services are passed
        services = {"session_service": sessions, "memory_service": memory}
        print((await data_map(app_name, user_id, **services)).summary())
        report = await forget_user(app_name, user_id, **services)
        print(report.summary())
        after = await data_map(app_name, user_id, **services)
        print("nothing left" if not after.holds_user_data else after.summary())
        if not report.verified:
            print("NOT finished: the forget stays open; run this again to finish it")
            return 1
        return 0
    finally:
        await memory.close()
        await sessions.close()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python samples/forget_user.py APP_NAME USER_ID")
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
