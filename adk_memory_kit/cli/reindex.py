"""``adk-memory-kit reindex``: re-apply the write policy to one app's (or user's) sessions."""

from __future__ import annotations

import argparse

from adk_memory_kit.routing.write_policy import WritePolicy


def register(subparsers: argparse._SubParsersAction) -> None:
    cmd = subparsers.add_parser(
        "reindex",
        help="re-apply the memory write policy to the stored sessions of an app (or one user)",
        description="Reads each session through ADK's DatabaseSessionService and ingests it "
        "again under the write policy: rows the policy no longer stores (filler, routed-away "
        "sentences, echoes of recalled memory) are deleted, the rest rewritten. Only the "
        "given app (and user) is touched.",
    )
    cmd.add_argument("--app", required=True, help="app name")
    cmd.add_argument("--user", default=None, help="only this user (default: every user)")
    cmd.add_argument(
        "--write-policy",
        default=WritePolicy.ROUTED.value,
        choices=[p.value for p in WritePolicy],
        help="the policy to apply (default: routed)",
    )
    cmd.add_argument(
        "--dry-run",
        action="store_true",
        help="write nothing; print the row count each user would have after the run",
    )
    cmd.add_argument(
        "--session-db-url",
        default=None,
        help="the sessions' database (default: --db-url / the embedded server)",
    )
    cmd.set_defaults(func=_reindex)


async def _reindex(args: argparse.Namespace) -> int:
    from google.adk.sessions.database_session_service import DatabaseSessionService

    from adk_memory_kit.assembly import PgVectorMemoryService
    from adk_memory_kit.db.engine import resolve_db_url
    from adk_memory_kit.lifecycle.reindex import reindex

    db_url = resolve_db_url(args.db_url)
    sessions = DatabaseSessionService(db_url=resolve_db_url(args.session_db_url or args.db_url))
    memory = PgVectorMemoryService.from_url(db_url, write_policy=args.write_policy)
    try:
        report = await reindex(
            sessions,
            memory,
            app_name=args.app,
            user_id=args.user,
            dry_run=args.dry_run,
            progress=print,
        )
    finally:
        await memory.close()
        await sessions.close()
    if not report.users:
        print(f"no sessions found for {args.app}" + (f"/{args.user}" if args.user else ""))
    return 0
