"""Hybrid search: which lists a user's search reads, and the one fusion that ranks them.

The lists come from SQL (memory/search_sql.py): for a light user one statement reads exact
dense, BM25 and exact-phrase lists over all of their rows; for a heavy user
(``heavy_user_rows``) bounded statements read them through the user's HNSW index and the
GIN index (memory/lexical.py chooses the full-text candidates). Every path then ranks with
the same function, :func:`~adk_memory_kit.memory.fusion.fuse` (weighted reciprocal rank
fusion, a small bonus for a turn whose author the query names, the relevance floor), fetches
the returned rows by primary key, and optionally re-orders the top (memory/rerank.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import TextClause
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_memory_kit.memory.ann_names import index_name
from adk_memory_kit.memory.config import (
    SearchOptions,
)
from adk_memory_kit.memory.entity_recall import expand
from adk_memory_kit.memory.fusion import FusionWeights, fuse
from adk_memory_kit.memory.lexical import candidate_queries, coverage_terms
from adk_memory_kit.memory.query import websearch_or_query
from adk_memory_kit.memory.rerank import rerank
from adk_memory_kit.memory.search_sql import (
    FETCH_SQL,
    HNSW_SETTINGS_SQL,
    LEXEME_DF_SQL,
    LIGHT_LISTS_SQL,
    LIGHT_SETTINGS_SQL,
    PROFILE_SQL,
    PROFILE_TERMS_SQL,
    VECTOR_ONLY_SQL,
    heavy_lexical_sql,
    heavy_sql,
)


@dataclass(frozen=True)
class SearchFilters:
    """The caller's filters, applied inside every ranked list.

    ``types``: only these memory types (``None``: every type except ``procedure``, which is
    never recalled unless asked for by type); ``tags``: items holding any of them;
    ``as_of``: items whose validity window ``[valid_from, valid_to)`` holds that time;
    ``include_superseded``: superseded items too (an operator's view of the history);
    ``scopes``: the memory scopes read under the searched owner (issue 47: ``user`` alone by
    default; memory/scoped_search.py adds the calling agent's private scope, and reads each
    shared owner with its own scope).
    """

    types: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    as_of: datetime | None = None
    include_superseded: bool = False
    scopes: tuple[str, ...] = ("user",)

    def params(self) -> dict[str, Any]:
        return {
            "scopes": list(self.scopes),
            "types": list(self.types) if self.types is not None else None,
            "tags": list(self.tags) if self.tags is not None else None,
            "as_of": self.as_of,
            "all_versions": self.include_superseded,
        }


@dataclass(frozen=True)
class SearchPlan:
    """The path a search takes. ``rows``: the user's row count (statistics table);
    ``heavy``: bounded lists; ``ann``: the user's partial HNSW index serves the dense list;
    ``dfs``: the user's document frequency of each query lexeme they hold (read with the
    plan when the query's terms were given; ``None``: not read)."""

    rows: int
    heavy: bool
    ann: bool
    dfs: Mapping[str, int] | None = None


async def plan_search(
    conn: AsyncConnection,
    app: str,
    user: str,
    options: SearchOptions,
    terms: list[str] | None = None,
) -> SearchPlan:
    """One indexed lookup: the user's row count and whether their partial index exists; with
    the query's ``terms``, also their lexemes' document frequencies (same round trip)."""
    params = {"app": app, "user": user, "ix": index_name(app, user)}
    if not terms:
        row = (await conn.execute(PROFILE_SQL, params)).one()
        dfs = None
    else:
        row = (await conn.execute(PROFILE_TERMS_SQL, {**params, "qtext": " ".join(terms)})).one()
        dfs = dict(zip(row.lexemes or [], (int(df) for df in row.dfs or []), strict=True))
    rows = int(row.n or 0)
    return SearchPlan(rows=rows, heavy=rows >= options.heavy_user_rows, ann=bool(row.ann), dfs=dfs)


def search_params(
    app: str,
    user: str,
    terms: list[str],
    limit: int,
    options: SearchOptions,
    filters: SearchFilters | None = None,
) -> dict[str, Any]:
    """The bound parameters every search statement shares (all but the query vector)."""
    params: dict[str, Any] = {
        "app": app,
        "user": user,
        "lim": limit,
        "cand": max(options.candidates, limit),
        "budget": max(options.lexical_budget, 1),
        "rescore": max(options.lexical_rescore, options.candidates, limit),
        "floor": options.min_similarity if options.relevance_floor else None,
        **(filters or SearchFilters()).params(),
    }
    if terms:
        params.update(text_params(terms, options))
    return params


async def _rows(conn: AsyncConnection, sql: TextClause, params: dict[str, Any]) -> list[Any]:
    """The statement's rows as plain dicts (the fusion and the re-orderings read each row's
    fields several times, which a driver's row mapping makes slow)."""
    result = await conn.execute(sql, params)
    columns = list(result.keys())
    return [dict(zip(columns, row, strict=True)) for row in result.all()]


async def lexical_lists(
    conn: AsyncConnection, params: dict[str, Any], search_plan: SearchPlan | None = None
) -> list[Any]:
    """A heavy user's BM25 and exact-phrase lists (no query vector needed): the query
    lexemes' document frequencies (the plan's, else one probe), then one statement
    (memory/lexical.py plans it)."""
    if search_plan is not None and search_plan.dfs is not None:
        dfs = dict(search_plan.dfs)
        rows = search_plan.rows if dfs else 0
    else:
        found = (await conn.execute(LEXEME_DF_SQL, params)).all()
        dfs = {r.lexeme: int(r.df) for r in found}
        rows = int(found[0].n) if found else 0
    plan = candidate_queries(dfs, params["budget"])
    terms = coverage_terms(dfs, rows, params["k1"], params["ctxw"])
    bound: dict[str, Any] = {f"tier{i}": tier for i, tier in enumerate(plan.tiers)}
    for i, term in enumerate(terms):
        bound.update(
            {
                f"cq{i}t": term.turn_query,
                f"cq{i}c": term.any_query,
                f"cw{i}t": term.in_turn,
                f"cw{i}c": term.in_context,
            }
        )
    sql = heavy_lexical_sql(plan.rare is not None, len(plan.tiers), len(terms))
    return await _rows(conn, sql, {**params, "tq_rare": plan.rare, **bound})


async def _dense_list(
    conn: AsyncConnection, plan: SearchPlan, params: dict[str, Any], options: SearchOptions
) -> list[Any]:
    """A heavy user's dense top :cand (HNSW when the user has an index), best first, each
    with its BM25 and exact-phrase scores."""
    await _set_ef_search(conn, plan, params, options)
    return await _rows(conn, heavy_sql(params["app"], params["user"]), params)


async def _set_ef_search(
    conn: AsyncConnection, plan: SearchPlan, params: dict[str, Any], options: SearchOptions
) -> None:
    if plan.ann:
        ef = str(min(max(options.ann_ef_search, params["cand"]), 1000))
        await conn.execute(HNSW_SETTINGS_SQL, {"ef": ef})


async def _fuse(
    conn: AsyncConnection, params: dict[str, Any], lexical: list[Any], dense: list[Any]
) -> list[Mapping[str, Any]]:
    """Rank the lists (memory/fusion.py, the one ranking of every path) and fetch the
    returned rows, in order."""
    top = fuse(
        dense=dense,
        lexical=lexical,
        weights=FusionWeights(
            rrf_k=params["rrf_k"], vector=params["wv"], text=params["wt"], exact=params["we"]
        ),
        cand=params["cand"],
        limit=params["lim"],
        min_similarity=params["floor"],
    )
    if not top:
        return []
    found = {
        r["id"]: r for r in await _rows(conn, FETCH_SQL, {**params, "ids": [f.id for f in top]})
    }
    return [
        {**found[f.id], "score": f.score, "bm25_score": f.bm25, "exact_score": f.exact}
        for f in top
        if f.id in found  # a row deleted since the lists were read is not returned
    ]


async def search_rows(
    conn: AsyncConnection,
    *,
    app: str,
    user: str,
    qvec: list[float],
    terms: list[str],
    limit: int,
    options: SearchOptions,
    plan: SearchPlan | None = None,
    filters: SearchFilters | None = None,
) -> list[Mapping[str, Any]]:
    """Search on ``conn``: the exact path for light users, the bounded one for heavy users.

    Every row carries ``score`` (the fused score, in ranking order) and its parts
    ``dense_score`` (cosine similarity), ``bm25_score`` and ``exact_score`` (``None``: the row
    was not in that list). :func:`search_on_engine` returns the same rows faster for heavy
    users; this runs every statement on the one connection. The read-time re-orderings
    apply as there (memory/rerank.py).
    """
    if not (options.session_weight > 0 or options.neighbour_weight > 0):
        return await _fused_rows(conn, app, user, qvec, terms, limit, options, plan, filters)
    rows = await _fused_rows(
        conn, app, user, qvec, terms, max(limit, options.rerank_depth), options, plan, filters
    )
    return rerank(
        rows,
        session_weight=options.session_weight,
        neighbour_weight=options.neighbour_weight,
        limit=limit,
        as_of=filters.as_of if filters else None,
    )


async def _fused_rows(
    conn: AsyncConnection,
    app: str,
    user: str,
    qvec: list[float],
    terms: list[str],
    limit: int,
    options: SearchOptions,
    plan: SearchPlan | None,
    filters: SearchFilters | None,
) -> list[Mapping[str, Any]]:
    """The fused rows of :func:`search_rows`, before any re-ordering."""
    if not terms and options.relevance_floor:
        return []  # stop words only: nothing is relevant
    plan = plan or await plan_search(conn, app, user, options, terms)
    params = {**search_params(app, user, terms, limit, options, filters), "qvec": qvec}
    if not plan.heavy:
        await conn.execute(LIGHT_SETTINGS_SQL)
        if not terms:
            return await _rows(conn, VECTOR_ONLY_SQL, params)
        lists = await _rows(conn, LIGHT_LISTS_SQL, params)
        dense = [r for r in lists if r["list"] == "vec"]
        return await _fuse(conn, params, [r for r in lists if r["list"] != "vec"], dense)
    if not terms:
        await _set_ef_search(conn, plan, params, options)
        return await _rows(conn, heavy_sql(app, user, hybrid=False), params)
    lexical = await lexical_lists(conn, params, plan)
    dense = await _dense_list(conn, plan, params, options)
    return await _fuse(conn, params, lexical, dense)


async def _plan_then_lexical(
    engine: AsyncEngine,
    app: str,
    user: str,
    options: SearchOptions,
    params: dict[str, Any],
    plan_ready: asyncio.Future[SearchPlan],
) -> list[Any] | None:
    """Read the user's plan and hand it to ``plan_ready``; for a heavy user with query terms
    (``params`` holds them), then read the lexical lists on the same pooled connection
    (``None`` otherwise).

    The plan is read while the query is embedded, so a server that dies meanwhile can take
    the connection with it mid-statement; the read has no side effects, so it is repeated
    once on a fresh connection (the pool reconnects). A failure before the plan is known is
    handed to ``plan_ready`` too, so its waiter never hangs.
    """
    try:
        try:
            return await _plan_then_lexical_once(engine, app, user, options, params, plan_ready)
        except DBAPIError as exc:
            if plan_ready.done() or not exc.connection_invalidated:
                raise
        return await _plan_then_lexical_once(engine, app, user, options, params, plan_ready)
    except BaseException as exc:
        if not plan_ready.done():
            if isinstance(exc, asyncio.CancelledError):
                plan_ready.cancel()
            else:
                plan_ready.set_exception(exc)
        raise


async def _plan_then_lexical_once(
    engine: AsyncEngine,
    app: str,
    user: str,
    options: SearchOptions,
    params: dict[str, Any],
    plan_ready: asyncio.Future[SearchPlan],
) -> list[Any] | None:
    async with engine.connect() as conn:
        plan = await plan_search(conn, app, user, options, params.get("terms"))
        plan_ready.set_result(plan)
        if not (plan.heavy and params.get("terms")):
            return None
        return await lexical_lists(conn, params, plan)


async def search_on_engine(
    engine: AsyncEngine,
    *,
    app: str,
    user: str,
    embed_query: Callable[[], Awaitable[list[float]]],
    terms: list[str],
    limit: int,
    options: SearchOptions,
    filters: SearchFilters | None = None,
    on_plan: Callable[[SearchPlan], None] | None = None,
    present_tense: bool = False,
    plain_present: bool = False,
    asked: frozenset[str] | None = None,
    entity_keys: tuple[str, ...] = (),
) -> list[Mapping[str, Any]]:
    """The rows :func:`search_rows` returns, with ``embed_query`` called for the query vector.

    ``present_tense`` (the question asks about now, :func:`~.rerank.asks_about_now`): the
    newest of the rows answering it about equally well leads them (memory/rerank.py);
    ``plain_present`` (:func:`~.rerank.asks_in_the_present`): the same among stated facts;
    ``asked``: whom the question asks about (:func:`~.rerank.asked_about`);
    ``entity_keys``: the question's entities (text/entities.py), for the entity list fused
    in before the re-orderings (memory/entity_recall.py; ``entity_weight`` 0: not read).

    ``on_plan`` is called with the user's plan as soon as it is read (no search starts an
    index build: builds are the write side's, memory/ann.py). With a session or neighbour
    weight, the top ``rerank_depth`` fused rows are re-ordered (memory/rerank.py) before the
    cut to ``limit``.

    The query is embedded while the user's plan is read; for a heavy user with query terms
    the lexical lists also run then, on the connection that read the plan, so the search
    takes about the longer of the two sides rather than their sum (two pooled connections a
    search, not three). The connection that runs the statements needing the vector is taken
    after the embedding, so a database that went away meanwhile is reconnected by the pool.
    If either side fails, the other is cancelled and awaited before the error propagates; no
    connection is left busy.
    """
    if not terms and options.relevance_floor:
        return []  # stop words only: nothing is relevant (and nothing to embed)
    as_of = bool(filters and filters.as_of)
    present_tense, plain_present = present_tense and not as_of, plain_present and not as_of
    reorder = (
        options.session_weight > 0 or options.neighbour_weight > 0 or present_tense or plain_present
    )
    if reorder:
        rows = await _search_on_engine(
            engine,
            app=app,
            user=user,
            embed_query=embed_query,
            terms=terms,
            limit=max(limit, options.rerank_depth),
            options=options,
            filters=filters,
            on_plan=on_plan,
            entity_keys=entity_keys,
            returned=limit,
        )
        return rerank(
            rows,
            session_weight=options.session_weight,
            neighbour_weight=options.neighbour_weight,
            limit=limit,
            as_of=filters.as_of if filters else None,
            present_tense=present_tense,
            plain_present=plain_present,
            asked=asked,
            floor=options.min_similarity if options.relevance_floor else -1.0,
        )
    return await _search_on_engine(
        engine,
        app=app,
        user=user,
        embed_query=embed_query,
        terms=terms,
        limit=limit,
        options=options,
        filters=filters,
        on_plan=on_plan,
        entity_keys=entity_keys,
    )


async def _search_on_engine(
    engine: AsyncEngine,
    *,
    app: str,
    user: str,
    embed_query: Callable[[], Awaitable[list[float]]],
    terms: list[str],
    limit: int,
    options: SearchOptions,
    filters: SearchFilters | None,
    on_plan: Callable[[SearchPlan], None] | None,
    entity_keys: tuple[str, ...] = (),
    returned: int | None = None,
) -> list[Mapping[str, Any]]:
    """The fused rows (``limit`` of them), the entity list fused in; ``returned``: how many
    of them the caller returns after its re-ordering (default ``limit``)."""
    params = search_params(app, user, terms, limit, options, filters)
    plan_ready: asyncio.Future[SearchPlan] = asyncio.get_running_loop().create_future()
    embedding = asyncio.ensure_future(embed_query())
    side = asyncio.ensure_future(_plan_then_lexical(engine, app, user, options, params, plan_ready))
    try:
        plan = await plan_ready
        if on_plan is not None:
            on_plan(plan)
        params["qvec"] = await embedding
        async with engine.connect() as conn:
            if not (plan.heavy and terms):
                await side  # the plan only: done
                rows = await _fused_rows(
                    conn, app, user, params["qvec"], terms, limit, options, plan, filters
                )
            else:
                dense = await _dense_list(conn, plan, params, options)
                lexical = await side
                assert lexical is not None  # a heavy user with terms: the lexical lists
                rows = await _fuse(conn, params, lexical, dense)
            if not terms or not _entity_list_applies(options, filters):
                return rows
            return await _with_entity_list(
                conn, rows, params, plan, options, filters, entity_keys, returned or limit
            )
    finally:
        for task in (embedding, side):
            if not task.done():
                task.cancel()
        await asyncio.gather(embedding, side, return_exceptions=True)
        if plan_ready.done() and not plan_ready.cancelled():
            plan_ready.exception()  # retrieved: the side task's own error is what propagates


def _entity_list_applies(options: SearchOptions, filters: SearchFilters | None) -> bool:
    """Whether the entity list is read: on, and no filter it cannot honour (a time-travel
    or tag filter, superseded rows asked for)."""
    f = filters or SearchFilters()
    return (
        options.entity_weight > 0
        and f.as_of is None
        and f.tags is None
        and not f.include_superseded
    )


async def _with_entity_list(
    conn: AsyncConnection,
    rows: list[Mapping[str, Any]],
    params: dict[str, Any],
    plan: SearchPlan,
    options: SearchOptions,
    filters: SearchFilters | None,
    entity_keys: tuple[str, ...],
    returned: int,
) -> list[Mapping[str, Any]]:
    """``rows`` with the entity list fused in (memory/entity_recall.py), cut to the limit;
    ``returned``: how many rows the search returns in the end."""
    f = filters or SearchFilters()
    expanded = await expand(
        conn,
        rows,
        params=params,
        scopes=f.scopes,
        types=f.types,
        asked=entity_keys,
        user_rows=plan.rows,
        options=options,
        returned=returned,
    )
    return expanded[: params["lim"]]


def text_params(terms: list[str], options: SearchOptions) -> dict[str, Any]:
    """The full-text and fusion parameters of the search statements for the query's terms."""
    return {
        "tsq": websearch_or_query(terms),
        "qtext": " ".join(terms),
        "terms": terms,
        "rrf_k": options.rrf_k,
        "wv": options.vector_weight,
        "wt": options.text_weight,
        "we": options.exact_weight,
        "wa": options.author_weight,
        "k1": options.bm25_k1,
        "b": options.bm25_b,
        "ctxw": options.context_weight,
    }
