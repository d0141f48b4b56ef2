"""Search latency of PgVectorMemoryService with many light users (default: 1M items, 10k users).

Loads synthetic rows straight into the memory table with SQL (random unit vectors and texts
drawn from a small vocabulary: the exact per-user scan costs the same whatever the vectors
hold), then times ``search_memory`` for random users: the database part alone (the hybrid
SQL with a precomputed query vector) and the whole call including the query embedding.

    python benchmarks/scale_many_users.py --rows 1000000 --users 10000 --queries 300
    python benchmarks/scale_many_users.py --db-url postgresql+psycopg://... (a server of your own)

Without --db-url it uses an embedded server under --home (default /tmp/adk_memory_kit_scale),
reusing rows already loaded there.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


WORDS = (
    "order delivery hotel flight lisbon pune office reception vegetarian pescatarian aisle "
    "window seat refund invoice meeting budget project deadline train booking dinner lunch "
    "coffee laptop password reset shipment parcel warehouse museum concert tickets birthday "
    "gift doctor appointment gym running yoga garden tomato recipe pasta sushi weather rain"
).split()


async def load(engine, rows: int, users: int, app: str, dim: int) -> None:
    from sqlalchemy import text

    async with engine.connect() as conn:
        have = (
            await conn.execute(
                text("SELECT count(*) FROM adk_memory_items WHERE app_name = :a"), {"a": app}
            )
        ).scalar_one()
    if have >= rows:
        print(f"reusing {have:,} rows already loaded", file=sys.stderr)
        return
    words = "ARRAY[" + ",".join(f"'{w}'" for w in WORDS) + "]"
    batch = 50_000
    started = time.perf_counter()
    for start in range(have, rows, batch):
        stop = min(rows, start + batch)
        sql = f"""
        INSERT INTO adk_memory_items (id, app_name, user_id, session_id, event_id, kind, author,
            role, text, search_text, source_hash, embedding, event_time)
        SELECT gen_random_uuid(), :app, 'user-' || (g % :users), 's-' || (g / 50), 'e-' || g,
               'event', 'user', 'user', t.body, t.body, '', v.vec,
               now() - (g || ' seconds')::interval
        FROM generate_series(:start, :stop - 1) AS g
        CROSS JOIN LATERAL (
            SELECT string_agg(({words})[1 + floor(random() * {len(WORDS)})::int], ' ')
                   || ' ref-' || g AS body
            FROM generate_series(1, 12) WHERE g >= 0
        ) t
        CROSS JOIN LATERAL (
            SELECT l2_normalize(array_agg(random() - 0.5)::vector) AS vec
            FROM generate_series(1, {dim}) WHERE g >= 0
        ) v
        """
        async with engine.begin() as conn:
            await conn.execute(
                text(sql), {"app": app, "users": users, "start": start, "stop": stop}
            )
        rate = (stop - have) / (time.perf_counter() - started)
        print(f"loaded {stop:,}/{rows:,} rows ({rate:,.0f} rows/s)", file=sys.stderr)
    async with engine.begin() as conn:
        await conn.execute(text("ANALYZE adk_memory_items"))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--db-url", default=None)
    parser.add_argument("--home", default="/tmp/adk_memory_kit_scale")
    args = parser.parse_args()
    if not args.db_url:
        os.environ["ADK_MEMORY_KIT_HOME"] = args.home
        os.makedirs(args.home, exist_ok=True)

    from sqlalchemy import text

    from adk_memory_kit import PgVectorMemoryService
    from adk_memory_kit.memory.query import query_terms
    from adk_memory_kit.memory.search import search_rows

    app = "scale-bench"
    memory = PgVectorMemoryService(args.db_url)
    await memory.search_memory(app_name=app, user_id="warm-up", query="create schema")
    await load(memory.engine, args.rows, args.users, app, memory.embedder.dim)

    rng = random.Random(7)
    queries = [" ".join(rng.sample(WORDS, 3)) for _ in range(args.queries)]
    users = [f"user-{rng.randrange(args.users)}" for _ in range(args.queries)]
    vectors = await memory.embedder.embed(queries)
    opts = memory.store.search_options

    async def db_pass(conn) -> list[float]:
        timings: list[float] = []
        for q, u, vec in zip(queries, users, vectors, strict=True):
            t0 = time.perf_counter()
            rows = await search_rows(
                conn,
                app=app,
                user=u,
                qvec=vec,
                terms=query_terms(q),
                limit=opts.limit,
                options=opts,
            )
            timings.append((time.perf_counter() - t0) * 1000)
            assert rows, f"no rows for {u}"
        return timings

    async with memory.engine.connect() as conn:
        first_ms = await db_pass(conn)  # each user's pages as they come (cold if just started)
        db_ms = await db_pass(conn)  # the same queries again: pages cached, plans prepared
        count = (await conn.execute(text("SELECT count(*) FROM adk_memory_items"))).scalar_one()
    full_ms: list[float] = []
    for q, u in zip(queries, users, strict=True):
        t0 = time.perf_counter()
        await memory.search_memory(app_name=app, user_id=u, query=q)
        full_ms.append((time.perf_counter() - t0) * 1000)
    await memory.close()
    print(f"\nrows in table: {count:,}; users: {args.users:,}; queries: {args.queries}\n")
    print("| measure | p50 ms | p95 ms | max ms |")
    print("|---|---|---|---|")
    for name, values in [
        ("database part (hybrid SQL), first pass", first_ms),
        ("database part (hybrid SQL), repeated", db_ms),
        ("search_memory incl. query embedding", full_ms),
    ]:
        print(
            f"| {name} | {statistics.median(values):.2f} | {_percentile(values, 95):.2f} | "
            f"{max(values):.2f} |"
        )


if __name__ == "__main__":
    asyncio.run(main())
