"""Search across memory scopes (issue 47): every scope the caller is entitled to, one ranking.

A caller reads, owner by owner (:func:`~adk_memory_kit.core.memory_scopes.entitled_reads`):
their own ``user`` rows and, for a calling agent, that agent's private rows (both stored under
the user's id); the app's shared rows; each granted group's shared rows. Each owner is searched
by the one hybrid search (memory/search.py, its own BM25 statistics and plan), the query
embedded once for all of them, and the ranked lists are merged into one ranking by score,
each list keeping its own order. Guarantees:

* no row of an owner outside the entitled list is read (each statement filters on its owner
  and its scopes, and row-level security admits only the user's own rows and the app's and
  granted groups' shared rows);
* with no shared or agent rows, the result is exactly the user's own search (same rows, same
  order), so the default search is unchanged;
* every row carries its ``scope``.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from adk_memory_kit.core.memory_scopes import ScopeRead
from adk_memory_kit.memory.config import SearchOptions
from adk_memory_kit.memory.search import SearchFilters, search_on_engine

Row = Mapping[str, Any]


def once(embed: Callable[[], Awaitable[list[float]]]) -> Callable[[], Awaitable[list[float]]]:
    """``embed`` called at most once, its vector shared by every caller."""
    task: asyncio.Future[list[float]] | None = None

    async def shared() -> list[float]:
        nonlocal task
        if task is None:
            task = asyncio.ensure_future(embed())
        return await asyncio.shield(task)

    return shared


def merge_ranked(lists: Sequence[Sequence[Row]], limit: int) -> list[Row]:
    """One ranking of several ranked lists: repeatedly the best-scored head of any list (ties:
    the earlier list), so each list keeps its own order; cut to ``limit``."""
    heads = [0] * len(lists)
    merged: list[Row] = []
    while len(merged) < limit:
        best = -1
        for i, rows in enumerate(lists):
            if heads[i] < len(rows) and (
                best < 0 or float(rows[heads[i]]["score"]) > _score(lists[best][heads[best]])
            ):
                best = i
        if best < 0:
            break
        merged.append(lists[best][heads[best]])
        heads[best] += 1
    return merged


def _score(row: Row) -> float:
    return float(row["score"])


async def scoped_search(
    engine: AsyncEngine,
    *,
    app: str,
    reads: Sequence[ScopeRead],
    embed_query: Callable[[], Awaitable[list[float]]],
    terms: list[str],
    limit: int,
    options: SearchOptions,
    filters: SearchFilters | None = None,
    **ranking: Any,
) -> list[Row]:
    """The entitled ``reads`` searched (concurrently, the query embedded once; if one fails,
    the others are cancelled and awaited before the error propagates) and merged into
    one ranking of at most ``limit`` rows. ``ranking``: :func:`search_on_engine`'s re-ranking
    keywords (``present_tense``, ``plain_present``, ``asked``)."""
    base = filters or SearchFilters()
    embed = once(embed_query)
    tasks = [
        asyncio.ensure_future(
            search_on_engine(
                engine,
                app=app,
                user=read.owner,
                embed_query=embed,
                terms=terms,
                limit=limit,
                options=options,
                filters=dataclasses.replace(base, scopes=read.scopes),
                **ranking,
            )
        )
        for read in reads
    ]
    try:
        lists = await asyncio.gather(*tasks)
    finally:  # one failed (or the caller was cancelled): the others cancelled and awaited
        for task in tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return merge_ranked(lists, limit)


__all__ = ["merge_ranked", "once", "scoped_search"]
