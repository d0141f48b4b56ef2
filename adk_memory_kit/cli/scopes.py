"""``adk-memory-kit share``, ``unshare``, ``grant`` and ``revoke``: shared memory scopes.

The operator's path to shared memory (issue 47, docs/scopes.md): knowledge every user of an
app reads (``--scope app``, the default) or the users granted a group read
(``--scope group:<name>``). No conversation can write it.
"""

from __future__ import annotations

import argparse

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.wording import counted


def register(subparsers: argparse._SubParsersAction) -> None:
    share = subparsers.add_parser(
        "share",
        help="store knowledge shared by every user of an app (or a group's users); an "
        "operator's write, through the redaction gate",
    )
    share.add_argument("--app", required=True, help="app name")
    share.add_argument(
        "--scope", default="app", help="'app' (default) or 'group:<name>' (see grant)"
    )
    share.add_argument("text", nargs="+", help="one fact per argument")
    share.set_defaults(func=_share)

    unshare = subparsers.add_parser("unshare", help="delete one shared memory by its id")
    unshare.add_argument("--app", required=True, help="app name")
    unshare.add_argument("--scope", default="app", help="'app' (default) or 'group:<name>'")
    unshare.add_argument("memory_id", help="the id a search returned")
    unshare.set_defaults(func=_unshare)

    for name, verb in (("grant", "grant"), ("revoke", "revoke")):
        parser = subparsers.add_parser(
            name, help=f"{verb} a group's shared memory to (from) one user of an app"
        )
        parser.add_argument("--app", required=True, help="app name")
        parser.add_argument("--user", required=True, help="user id")
        parser.add_argument("--group", required=True, help="group name, e.g. finance")
        parser.set_defaults(func=_grant if name == "grant" else _revoke)


async def _share(args: argparse.Namespace) -> int:
    async with PgVectorMemoryService(args.db_url) as memory:
        report = await memory.add_shared_memory(
            app_name=args.app, memories=list(args.text), scope=args.scope
        )
    written = [o for o in report.outcomes if o.outcome != "REJECTED"]
    print(f"shared {counted(len(written), 'memory')} in {args.app} ({args.scope})")
    for outcome in written:
        print(f"  {outcome.memory_id}")
    return 0


async def _unshare(args: argparse.Namespace) -> int:
    async with PgVectorMemoryService(args.db_url) as memory:
        deleted = await memory.delete_shared_memory(
            app_name=args.app, scope=args.scope, memory_id=args.memory_id
        )
    print(f"deleted {counted(deleted, 'shared memory', 'shared memories')}")
    return 0 if deleted else 1


async def _grant(args: argparse.Namespace) -> int:
    async with PgVectorMemoryService(args.db_url) as memory:
        new = await memory.grant_group(app_name=args.app, user_id=args.user, group=args.group)
    print(f"{'granted' if new else 'already granted'}: group {args.group} to {args.user}")
    return 0


async def _revoke(args: argparse.Namespace) -> int:
    async with PgVectorMemoryService(args.db_url) as memory:
        gone = await memory.revoke_group(app_name=args.app, user_id=args.user, group=args.group)
    print(f"{'revoked' if gone else 'no grant'}: group {args.group} from {args.user}")
    return 0
