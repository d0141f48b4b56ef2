"""Recall of a heavy user's HNSW list by graph density, for choosing ``LARGE_GRAPH_ROWS``.

For each size in ``--sizes`` one user is loaded (``benchmarks/scale.py``'s rows and stand-in
vectors: feature hashing, not a semantic model, so large users load in minutes), then:

1. its partial index is built with pgvector's default graph (m 16, ef_construction 64), as
   ``build_user_index`` does below ``LARGE_GRAPH_ROWS``; recall is measured;
2. the same index is rebuilt with the denser graph (m 32, ef_construction 128), as
   ``build_user_index`` does from ``LARGE_GRAPH_ROWS`` on; recall is measured again.

Recall is the HNSW dense list's against the exact scan of the same user, at
``SearchOptions().ann_ef_search`` (@10 and @``candidates``), counted by distance so ties are
not misses (``scale.ann_recall``). Build times are wall-clock on this machine.

    python benchmarks/ann_graph.py --sizes 100000,125000,150000,200000 --queries 40

Without --db-url it uses an embedded server under --home (default /tmp/adk_memory_kit_graph);
users already loaded there are reused (their index is rebuilt from the default graph).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import scale  # noqa: E402  (the sibling benchmark: rows, queries, loading, recall)


async def _drop_index(engine, name: str) -> None:
    from sqlalchemy import text

    async with engine.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text(f"DROP INDEX CONCURRENTLY IF EXISTS {name}"))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--locomo", default=str(Path(__file__).parents[1].parent / "shared/data/locomo_dev.json")
    )
    parser.add_argument("--sizes", default="100000,125000,150000,200000")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--db-url", default=None)
    parser.add_argument("--home", default="/tmp/adk_memory_kit_graph")
    args = parser.parse_args()
    if not args.db_url:
        os.environ["ADK_MEMORY_KIT_HOME"] = args.home
        os.makedirs(args.home, exist_ok=True)

    from adk_memory_kit import PgVectorMemoryService
    from adk_memory_kit.memory.ann import (
        HNSW_EF_CONSTRUCTION,
        HNSW_M,
        LARGE_HNSW_EF_CONSTRUCTION,
        LARGE_HNSW_M,
        build_user_index,
    )
    from adk_memory_kit.memory.ann_names import index_name
    from adk_memory_kit.memory.config import SearchOptions

    stand_in = scale.HashingEmbedder(None)
    memory = PgVectorMemoryService(args.db_url, embedder=stand_in)
    await memory.search_memory(app_name=scale.APP, user_id="warm-up", query="create the schema")
    engine = memory.engine
    options = SearchOptions()
    turns, questions = scale.load_locomo(args.locomo)
    queries = scale.make_queries(questions, args.queries, seed=7)
    vectors = await stand_in.embed(queries)

    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        user = f"user-{size}"
        await scale.load_user(engine, stand_in, user, scale.make_rows(turns, size, seed=size))
        await scale.vacuum(engine)
        await _drop_index(engine, index_name(scale.APP, user))
        for label, large_graph_rows in (
            (f"m {HNSW_M} / efc {HNSW_EF_CONSTRUCTION}", size + 1),
            (f"m {LARGE_HNSW_M} / efc {LARGE_HNSW_EF_CONSTRUCTION}", 1),
        ):
            t0 = time.perf_counter()
            await build_user_index(engine, scale.APP, user, large_graph_rows=large_graph_rows)
            built = time.perf_counter() - t0
            r10, rdeep = await scale.ann_recall(
                engine, user, vectors, options.candidates, options.ann_ef_search
            )
            rows.append((size, label, built, r10, rdeep))
            print(f"  {user} {label}: build {built:.0f} s, recall@10 {r10:.3f}", file=sys.stderr)
    await memory.close()

    print(
        f"\nef_search {options.ann_ef_search}, {args.queries} queries"
        f"\n| rows | graph | build (s) | recall@10 | recall@{options.candidates} |"
        "\n|---:|---|---:|---:|---:|"
    )
    for size, label, built, r10, rdeep in rows:
        print(f"| {size:,} | {label} | {built:.0f} | {r10:.3f} | {rdeep:.3f} |")


if __name__ == "__main__":
    asyncio.run(main())
