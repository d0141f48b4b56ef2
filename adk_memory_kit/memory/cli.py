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
        return 0
    print(f"{len(result.memories)} memories of {args.user} in {args.app}, best first "
          "(score: weighted reciprocal-rank fusion, higher is better)")
    print(f"{'#':>3}  {'score':>6}  {'when (UTC)':16}  {'kind':5}  author: text")
    for rank, entry in enumerate(result.memories, start=1):
        text = " ".join(p.text or "" for p in entry.content.parts or []).replace("\n", " ")
        meta = entry.custom_metadata
        when = (entry.timestamp or "")[:16].replace("T", " ")
        flag = "  (superseded)" if "superseded_at" in meta else ""
        print(f"{rank:>3}  {meta.get('score', 0.0):6.3f}  {when:16}  {meta.get('kind', ''):5}  "
              f"{entry.author or '-'}: {text[:160]}{flag}")
    return 0


async def _purge(args: argparse.Namespace) -> int:
    async with PgVectorMemoryService(args.db_url) as memory:
        removed = await memory.purge_expired()
    print(f"removed {removed} expired memories")
    return 0
