"""A heavy user's full-text candidate stage: its CPU cost and what it does to the ranking.

Runs on the users ``benchmarks/scale.py`` loaded (same ``--home``, same stand-in vectors and
query set); run that first. For each variant (``SearchOptions`` overrides) and each query it
measures the database server's CPU ms of the lexical statements alone (the lexeme-frequency
probe and the candidate statement, :func:`~adk_memory_kit.memory.search.lexical_lists`) and of
the whole search (``search_rows`` on one connection), and compares the top 10 with the exact
ranking (the light path's exact lists over every row of the user, computed once and kept in
``--cache``): overlap of ids, and of texts (copies of a text tie in every list).

    python benchmarks/scale.py --sizes 500,100000 --no-before --write-rows 0
    python benchmarks/scale_lexical.py --user user-100000 \\
        --variant 'budget 300={"lexical_budget": 300}'
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from scale import (  # noqa: E402  (the benchmark next to this one)
    APP,
    HashingEmbedder,
    _backend_cpu_ms,
    _percentile,
    load_locomo,
    make_queries,
)


async def _cpu_of(conn, pid, call):
    """(result, server CPU ms) of ``await call()``."""
    c0 = _backend_cpu_ms(pid)
    result = await call()
    c1 = _backend_cpu_ms(pid)
    return result, (c1 - c0) if c0 is not None and c1 is not None else float("nan")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--locomo", default=str(Path(__file__).parents[1].parent / "shared/data/locomo_dev.json")
    )
    parser.add_argument("--home", default="/tmp/adk_memory_kit_scale")
    parser.add_argument("--user", default="user-100000")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--cache", default="/tmp/adk_memory_kit_scale_exact.json")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=JSON",
        help="SearchOptions overrides to measure (repeatable); the defaults always run",
    )
    args = parser.parse_args()
    os.environ["ADK_MEMORY_KIT_HOME"] = args.home

    from sqlalchemy import text

    from adk_memory_kit import PgVectorMemoryService
    from adk_memory_kit.core.scope import user_scope
    from adk_memory_kit.memory.config import SearchOptions
    from adk_memory_kit.memory.query import query_terms
    from adk_memory_kit.memory.search import (
        SearchPlan,
        lexical_lists,
        plan_search,
        search_params,
        search_rows,
    )

    embedder = HashingEmbedder(None)
    memory = PgVectorMemoryService(None, embedder=embedder)
    await memory.search_memory(app_name=APP, user_id="warm-up", query="start the server")
    _, questions = load_locomo(args.locomo)
    queries = make_queries(questions, args.queries, seed=7)
    vectors = await embedder.embed(queries)
    variants = {"default": {}}
    for spec in args.variant:
        name, _, overrides = spec.partition("=")
        variants[name] = json.loads(overrides)

    key = hashlib.sha256(json.dumps([args.user, queries]).encode()).hexdigest()[:16]
    cache = json.loads(Path(args.cache).read_text()) if Path(args.cache).exists() else {}
    with user_scope(APP, args.user):
        async with memory.engine.connect() as conn:
            pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
            await conn.commit()

            async def top10(options, plan=None):
                tops, cpu = [], []
                for q, vec in zip(queries, vectors, strict=True):

                    async def call(q=q, vec=vec):
                        return await search_rows(
                            conn,
                            app=APP,
                            user=args.user,
                            qvec=vec,
                            terms=query_terms(q),
                            limit=10,
                            options=options,
                            plan=plan,
                        )

                    rows, ms = await _cpu_of(conn, pid, call)
                    await conn.commit()
                    tops.append([(str(r["id"]), r["text"]) for r in rows])
                    cpu.append(ms)
                return tops, cpu

            if key not in cache:
                exact_opts = SearchOptions(heavy_user_rows=2**62)
                found = await plan_search(conn, APP, args.user, exact_opts)
                light = SearchPlan(rows=found.rows, heavy=False, ann=False)
                cache[key] = (await top10(exact_opts, light))[0]
                Path(args.cache).write_text(json.dumps(cache))
            exact = cache[key]

            print(f"{args.user}: {len(queries)} queries; server CPU ms per query (p50 / p95)\n")
            print("| variant | lexical stage CPU | whole search CPU | top-10 overlap ids / texts |")
            print("|---|---:|---:|---:|")
            for name, overrides in variants.items():
                options = SearchOptions(**overrides)
                await top10(options)  # warm
                tops, whole = await top10(options)
                lex = []
                for q in queries:
                    terms = query_terms(q)
                    if not terms:
                        continue
                    params = search_params(APP, args.user, terms, 10, options)
                    _, ms = await _cpu_of(conn, pid, lambda p=params: lexical_lists(conn, p))
                    await conn.commit()
                    lex.append(ms)
                ids = statistics.mean(
                    len({i for i, _ in a} & {i for i, _ in b}) / max(1, len(b))
                    for a, b in zip(tops, exact, strict=True)
                )
                texts = statistics.mean(
                    len({t for _, t in a} & {t for _, t in b}) / max(1, len({t for _, t in b}))
                    for a, b in zip(tops, exact, strict=True)
                )
                print(
                    f"| {name} | {_percentile(lex, 50):.1f} / {_percentile(lex, 95):.1f}"
                    f" | {_percentile(whole, 50):.1f} / {_percentile(whole, 95):.1f}"
                    f" | {ids:.3f} / {texts:.3f} |"
                )
    await memory.close()


if __name__ == "__main__":
    asyncio.run(main())
