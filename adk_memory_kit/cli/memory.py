"""``adk-memory-kit search``, ``import``, ``purge-expired`` and ``purge-stale``."""

from __future__ import annotations

import argparse
import math
from datetime import timedelta

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.wording import counted
from adk_memory_kit.memory.backend_priority import run_as_batch_job
from adk_memory_kit.memory.importer import DEFAULT_BATCH, FORMATS, ImportReport
from adk_memory_kit.recall.framing import format_search_results


def register(subparsers: argparse._SubParsersAction) -> None:
    search = subparsers.add_parser("search", help="search one user's long-term memory")
    search.add_argument("--app", required=True, help="app name")
    search.add_argument("--user", required=True, help="user id")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument(
        "--agent", default=None, help="read this agent's private memories too (docs/scopes.md)"
    )
    search.add_argument("query", help="what to look for")
    search.set_defaults(func=_search)

    bulk = subparsers.add_parser(
        "import",
        help="bulk-import memories (JSON lines, ADK's SQLite memory, a Mem0 export) through "
        "the redaction gate and the write policy; an interrupted import resumes",
    )
    bulk.add_argument("source", help="the file to import")
    bulk.add_argument("--format", choices=FORMATS, default="jsonl")
    bulk.add_argument("--app", default=None, help="app name (else each record's app_name)")
    bulk.add_argument("--user", default=None, help="user id (else each record's user_id)")
    bulk.add_argument("--batch", type=int, default=DEFAULT_BATCH, help="facts per write")
    bulk.add_argument(
        "--restart", action="store_true", help="start over instead of resuming (no duplicates)"
    )
    bulk.add_argument(
        "--priority",
        choices=("low", "normal"),
        default="low",
        help="low (default): this process and its database backends yield the CPU to searches "
        "served beside the import (where the server runs on this host)",
    )
    bulk.set_defaults(func=_import)

    purge = subparsers.add_parser("purge-expired", help="delete memories whose TTL has passed")
    purge.set_defaults(func=_purge)

    stale = subparsers.add_parser(
        "purge-stale",
        help="delete memories not used for N days with low importance (pinned memories and "
        "facts that feed user: state never go)",
    )
    stale.add_argument("--app", required=True, help="app name")
    stale.add_argument(
        "--days",
        type=_days,
        default=90.0,
        help="delete memories unused for more than this many days, > 0 (default: %(default)s)",
    )
    stale.add_argument(
        "--max-importance",
        type=_importance,
        default=0.7,
        help="only memories at most this important, 0..1 (default: %(default)s)",
    )
    stale.add_argument("--dry-run", action="store_true", help="show what would go; delete nothing")
    stale.set_defaults(func=_purge_stale)


def _days(value: str) -> float:
    """``--days``: a positive number of days (argparse names the option in its error)."""
    try:
        days = float(value)
        if not days > 0 or not math.isfinite(days):
            raise ValueError
        timedelta(days=days)
    except (ValueError, OverflowError):
        raise argparse.ArgumentTypeError(
            f"must be a positive number of days, e.g. 90 (got {value!r})"
        ) from None
    return days


def _importance(value: str) -> float:
    """``--max-importance``: a number from 0 to 1."""
    try:
        importance = float(value)
        if not 0.0 <= importance <= 1.0:
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"must be a number from 0 to 1, e.g. 0.7 (got {value!r})"
        ) from None
    return importance


async def _search(args: argparse.Namespace) -> int:
    async with PgVectorMemoryService(args.db_url) as memory:
        # what the agent would be served (every type but procedure), but an operator's look
        # is not a use: it never keeps an item from decaying (like the console's searches)
        result = await memory.search(
            app_name=args.app,
            user_id=args.user,
            query=args.query,
            limit=args.limit,
            record_access=False,
            agent_name=args.agent,
        )
    for line in format_search_results(result.memories, app=args.app, user=args.user):
        print(line)
    return 0


async def _import(args: argparse.Namespace) -> int:
    def shown(report: ImportReport) -> None:
        print(
            f"read {report.read}: {report.written} written, {report.rejected} rejected"
            + (f", {report.skipped} done before" if report.skipped else ""),
            flush=True,
        )

    memory = PgVectorMemoryService(args.db_url)
    if args.priority == "low":
        run_as_batch_job(memory.engine)
    async with memory:
        report = await memory.import_memories(
            args.source,
            format=args.format,
            app_name=args.app,
            user_id=args.user,
            batch=args.batch,
            resume=not args.restart,
            progress=shown,
        )
    print(
        f"import complete: {report.read} records, {report.written} written, "
        f"{report.rejected} rejected, {report.sessions} sessions"
        + (f" ({report.skipped} were done by an earlier run)" if report.skipped else "")
    )
    return 0


async def _purge(args: argparse.Namespace) -> int:
    async with PgVectorMemoryService(args.db_url) as memory:
        removed = await memory.purge_expired()
    print(f"removed {counted(removed, 'expired memory', 'expired memories')}")
    return 0


async def _purge_stale(args: argparse.Namespace) -> int:
    async with PgVectorMemoryService(args.db_url) as memory:
        report = await memory.curator.purge_stale(
            args.app,
            older_than=timedelta(days=args.days),
            max_importance=args.max_importance,
            dry_run=args.dry_run,
        )
    verb = "would remove" if report.dry_run else "removed"
    print(
        f"{verb} {counted(len(report.rows) if report.dry_run else report.deleted, 'memory')}"
        f" of {args.app}"
        f" unused since {report.cutoff:%Y-%m-%d %H:%M} UTC"
        f" with importance <= {args.max_importance}"
    )
    for user, row in report.rows:
        weight = "-" if row.importance is None else f"{row.importance:.2f}"
        print(
            f"  {user}  {row.id}  {row.memory_type or '-':10}  importance {weight}"
            f"  used {row.access_count}x  last {row.last_used:%Y-%m-%d}"
        )
    return 0
