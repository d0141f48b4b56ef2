"""``adk-memory-kit trace``, ``costs``, ``log-export`` and ``log-purge``: the episodic log.

``trace`` prints one session's timeline, ``costs`` a cost table for an app (optionally one
user or session, over a time range), ``log-export`` writes successful invocations as JSONL
and ``log-purge --days N`` deletes entries older than N days (run it from cron).
"""

from __future__ import annotations

import argparse
import re
import sys
from datetime import datetime, timedelta, timezone

from adk_memory_kit.errors import InvalidInputError

_RELATIVE = re.compile(r"^(\d+(?:\.\d+)?)([dhm])$")


def parse_when(value: str | None) -> datetime | None:
    """``2026-11-30``, ``2026-11-30T12:00`` (UTC unless an offset is given), or a span back
    from now: ``7d``, ``24h``, ``30m``."""
    if value is None:
        return None
    match = _RELATIVE.match(value.strip())
    if match:
        amount, unit = float(match.group(1)), match.group(2)
        span = {"d": timedelta(days=amount), "h": timedelta(hours=amount)}.get(
            unit, timedelta(minutes=amount)
        )
        return datetime.now(timezone.utc) - span
    try:
        when = datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise InvalidInputError(
            f"cannot read the time {value!r}: use an ISO date such as 2026-11-30 or "
            "2026-11-30T12:00, or a span back from now such as 7d, 24h, 30m"
        ) from exc
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def register(subparsers: argparse._SubParsersAction) -> None:
    trace = subparsers.add_parser(
        "trace",
        help="print one session's episodic log as a timeline",
        description="Every logged step of one session in order: model calls with tokens, cost "
        "and latency, tool calls, errors, state changes and transfers.",
    )
    trace.add_argument("--app", required=True, help="app name")
    trace.add_argument("--session", required=True, help="session id")
    trace.add_argument("--user", default=None, help="user id (looked up when omitted)")
    trace.set_defaults(func=run_trace)

    costs = subparsers.add_parser(
        "costs",
        help="tokens and cost of an app's model calls, by model, agent, user and session",
        description="Sums the episodic log. Cost is 'unknown' for models without a price.",
    )
    costs.add_argument("--app", required=True, help="app name")
    costs.add_argument("--user", default=None, help="only this user")
    costs.add_argument("--session", default=None, help="only this session (needs --user)")
    costs.add_argument("--since", default=None, help="ISO time or span back: 7d, 24h, 30m")
    costs.add_argument("--until", default=None, help="ISO time or span back (exclusive)")
    costs.set_defaults(func=run_costs)

    export = subparsers.add_parser(
        "log-export",
        help="write successful invocations as JSONL (task, tool steps, final answer)",
    )
    export.add_argument("--app", required=True, help="app name")
    export.add_argument("--out", required=True, help="the JSONL file to write")
    export.add_argument("--user", default=None, help="only this user")
    export.add_argument("--since", default=None, help="ISO time or span back: 7d, 24h, 30m")
    export.set_defaults(func=run_export)

    purge = subparsers.add_parser(
        "log-purge",
        help="delete episodic log entries older than --days (retention; run from cron)",
    )
    purge.add_argument("--days", type=float, required=True, help="retention in days")
    purge.set_defaults(func=run_purge)


def _log(args: argparse.Namespace):
    from adk_memory_kit.episodic.store import EpisodicLog

    return EpisodicLog(args.db_url)


async def run_trace(args: argparse.Namespace) -> int:
    from adk_memory_kit.episodic.report import format_timeline

    log = _log(args)
    try:
        user = args.user
        if user is None:
            users = await log.users_of_session(args.app, args.session)
            if not users:
                print(_no_entries(args.app, args.session), file=sys.stderr)
                return 2
            if len(users) > 1:
                print(
                    f"error: session {args.session!r} in app {args.app!r} has log entries of "
                    f"{len(users)} users ({', '.join(users)}); pass --user to pick one",
                    file=sys.stderr,
                )
                return 2
            user = users[0]
        entries = await log.trace(args.app, user, args.session)
        if not entries:
            print(_no_entries(args.app, args.session, user), file=sys.stderr)
            return 2
        print(f"app {args.app}  user {user}  session {args.session}")
        print(format_timeline(entries))
    finally:
        await log.close()
    return 0


def _no_entries(app: str, session: str, user: str | None = None) -> str:
    who = f" of user {user!r}" if user else ""
    return (
        f"error: no episodic log entries for session {session!r}{who} in app {app!r} "
        "(check the ids; only runs with the episodic log plugin are logged, and "
        "log-purge removes old entries)"
    )


async def run_costs(args: argparse.Namespace) -> int:
    from adk_memory_kit.episodic.report import format_costs

    log = _log(args)
    try:
        summary = await log.cost_summary(
            args.app,
            user_id=args.user,
            session_id=args.session,
            since=parse_when(args.since),
            until=parse_when(args.until),
        )
        print(format_costs(summary))
        print(f"prices: {log.prices.source}")
    finally:
        await log.close()
    return 0


async def run_export(args: argparse.Namespace) -> int:
    log = _log(args)
    try:
        written = await log.export_trajectories(
            args.app, args.out, user_id=args.user, since=parse_when(args.since)
        )
    finally:
        await log.close()
    print(f"wrote {written} successful invocations to {args.out}")
    return 0


async def run_purge(args: argparse.Namespace) -> int:
    log = _log(args)
    try:
        deleted = await log.purge_expired(args.days)
    finally:
        await log.close()
    print(f"deleted {deleted} episodic log entries older than {args.days:g} days")
    return 0
