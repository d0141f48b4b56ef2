"""The light user's plan next to a growing neighbour (issue 49): what it reads, and its latency.

A fresh database on the embedded server (under ``ADK_MEMORY_KIT_HOME``): a light user of 500
rows, then SETUP: a neighbour COPYed to each of ``--sizes`` rows in turn (3k, 30k, 100k; the
statistics triggers on). At each size, right after the load and again after ``VACUUM
(ANALYZE)``: ``search_memory`` of the light user on ``--queries`` LoCoMo questions (p50 /
p95, stand-in vectors, no MiniLM: the database's share), and ``EXPLAIN (ANALYZE, BUFFERS)``
of the light statement (``search_sql.LIGHT_LISTS_SQL``) on the same questions: the scans of
the memory table, the rows its indexes returned (the light user has 500), buffers and
execution time, as the search plans it (with ``LIGHT_SETTINGS_SQL`` where the code has it).

    ADK_MEMORY_KIT_HOME=/tmp/fair python benchmarks/fairness_plans.py
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
import fairness  # noqa: E402
import scale  # noqa: E402

APP = scale.APP
LIGHT, HEAVY = "light-500", "neighbour"


def _nodes(node: dict[str, Any]):
    yield node
    for child in node.get("Plans", []):
        yield from _nodes(child)


async def explain(engine, queries: list[str], embedder) -> dict[str, Any]:
    """Medians over the questions of the light statement's plan as the search runs it."""
    from pgvector.sqlalchemy import VECTOR
    from sqlalchemy import bindparam, text

    from adk_memory_kit.memory import search_sql
    from adk_memory_kit.memory.config import SearchOptions
    from adk_memory_kit.memory.query import query_terms
    from adk_memory_kit.memory.search import search_params

    settings = getattr(search_sql, "LIGHT_SETTINGS_SQL", None)
    sql = text("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + search_sql.LIGHT_LISTS_SQL.text)
    sql = sql.bindparams(bindparam("qvec", type_=VECTOR()))
    times, buffers, rows, kinds = [], [], [], set()
    for q in queries:
        params = {
            **search_params(APP, LIGHT, query_terms(q), 10, SearchOptions()),
            "qvec": embedder.vector(q).tolist(),
        }
        async with engine.connect() as conn:
            if settings is not None:
                await conn.execute(settings)
            found = (await conn.execute(sql, params)).scalar_one()[0]
            await conn.rollback()
        plan = found["Plan"]
        scans = [n for n in _nodes(plan) if "Index Name" in n or n["Node Type"] == "Seq Scan"]
        kinds |= {f"{n['Node Type']} {n.get('Index Name', '')}".strip() for n in scans}
        times.append(found["Execution Time"])
        buffers.append(plan["Shared Hit Blocks"] + plan.get("Shared Read Blocks", 0))
        rows.append(sum(n["Actual Rows"] * n["Actual Loops"] for n in scans))
    return {
        "exec_ms": statistics.median(times),
        "buffers": statistics.median(buffers),
        "index_rows": statistics.median(rows),
        "scans": sorted(kinds),
        "settings": settings is not None,
    }


async def timed(memory, queries: list[str]) -> tuple[float, float]:
    ms = []
    for q in queries:
        t = time.perf_counter()
        await memory.search_memory(app_name=APP, user_id=LIGHT, query=q)
        ms.append((time.perf_counter() - t) * 1000)
    return statistics.median(ms), scale._percentile(ms, 95)


async def main(args: argparse.Namespace) -> None:
    from adk_memory_kit import PgVectorMemoryService
    from adk_memory_kit.core.scope import operator_scope
    from adk_memory_kit.db import embedded_db_url
    from adk_memory_kit.memory.config import SearchOptions

    url = await fairness._fresh_database(embedded_db_url())
    embedder = scale.HashingEmbedder()
    memory = PgVectorMemoryService.from_url(
        url,
        embedder=embedder,
        write_policy="full_transcript",
        search=SearchOptions(ann_auto_build=False),
    )
    await memory.ready()
    turns, questions = scale.load_locomo(fairness._locomo())
    queries = scale.make_queries(questions, args.queries, seed=7)
    sizes = [int(s) for s in args.sizes.split(",")]
    texts = scale.make_rows(turns, max(sizes), seed=1)
    engine = memory.engine
    print(f"{args.label}\n")
    print(
        "| neighbour rows | when | light p50 / p95 ms | statement exec ms (median) |"
        " rows out of indexes | buffers | scans |"
    )
    print("|---:|---|---:|---:|---:|---:|---|")
    with operator_scope():
        await fairness._copy(engine, embedder, LIGHT, scale.make_rows(turns, 500, seed=500))
        await scale.vacuum(engine)
        have = 0
        for size in [0, *sizes]:
            if size > have:
                await fairness._copy(engine, embedder, HEAVY, texts[have:size], offset=have)
                have = size
            for when in ["right after the load", "after VACUUM (ANALYZE)"] if size else ["empty"]:
                if when.startswith("after"):
                    await scale.vacuum(engine)
                p50, p95 = await timed(memory, queries)
                plan = await explain(engine, queries[:10], embedder)
                print(
                    f"| {size:,} | {when} | {p50:.1f} / {p95:.1f} | {plan['exec_ms']:.1f} |"
                    f" {plan['index_rows']:,.0f} | {plan['buffers']:,.0f} |"
                    f" {'; '.join(plan['scans'])} |",
                    flush=True,
                )
    await memory.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="3000,30000,100000")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument("--label", default=f"run {uuid.uuid4().hex[:6]}")
    asyncio.run(main(parser.parse_args()))
