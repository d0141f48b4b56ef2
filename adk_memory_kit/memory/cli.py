"""``adk-memory-kit search`` and ``adk-memory-kit purge-expired``."""

from __future__ import annotations

import argparse

from adk_memory_kit.memory.service import PgVectorMemoryService


def register(subparsers: argparse._SubParsersAction) -> None:
    search = subparsers.add_parser("search", help="search one user's long-term memory")
    search.add_argument("--app", required=True, help="app name")
    search.add_argument("--user", required=True, help="user id")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("query", help="what to look for")
    search.set_defaults(func=_search)

    purge = subparsers.add_parser("purge-expired", help="delete memories whose TTL has passed")
    purge.set_defaults(func=_purge)


async def _search(args: argparse.Namespace) -> int:
    async with PgVectorMemoryService(args.db_url) as memory:
        result = await memory.search_memory(
            app_name=args.app, user_id=args.user, query=args.query, limit=args.limit
        )
    if not result.memories:
        print("no memories found")
    for entry in result.memories:
        text = " ".join(p.text or "" for p in entry.content.parts or [])
        score = entry.custom_metadata.get("score", 0.0)
        print(f"{score:.4f}  {entry.timestamp}  {entry.author or '-'}: {text[:200]}")
    return 0


async def _purge(args: argparse.Namespace) -> int:
    async with PgVectorMemoryService(args.db_url) as memory:
        removed = await memory.purge_expired()
    print(f"removed {removed} expired memories")
    return 0
