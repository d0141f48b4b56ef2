"""Many users on one server: search latency and write rate as users and rows grow (issue 45).

Two modes, one loader (synthetic rows inserted with SQL: random unit vectors and texts drawn
from a small vocabulary; the exact per-user scan costs the same whatever the vectors hold;
the statistics triggers run as for any write).

**Mixed users (default)**: light users with 20-100 rows each and a few heavy ones with
thousands (each heavy user gets its partial HNSW index, as the maintenance side builds it
after an import). The table grows in ``--points`` steps up to ``--users`` users (heavy users
in proportion); at each step it times ``search_memory`` for random light users and for the
heavy users, searches/s with ``--clients`` concurrent searchers, and the write rate of the
public ``add_events_to_memory`` (one turn of 2 events per call, random light users; rows/s
from the rows really added), sequential and with ``--clients`` concurrent writers. Vectors,
for writes and queries, come from the fast deterministic STAND-IN embedder of
``benchmarks/scale.py`` (feature hashing, not a semantic model): the figures are the
database's and the kit's share; a real embedder adds its own time per query and per row.
Each run uses a fresh database on the server (dropped at the end unless ``--keep``).

    python benchmarks/scale_many_users.py                    # ~3 min on 2 cores
    python benchmarks/scale_many_users.py --users 10000 --heavy 10 \\
        --heavy-rows 20000-50000 --light-rows 20-100 --points 4   # full size (~1M rows)
    python benchmarks/scale_many_users.py --plot docs/img/many_users_curve.png --json out.json

**Uniform light users** (``--rows`` given; the earlier benchmark, same options): ``--rows`` rows
spread evenly over ``--users`` users, ``search_memory`` and its database part timed for
random users, with the real MiniLM query embedding.

    python benchmarks/scale_many_users.py --rows 1000000 --users 10000 --queries 300
    python benchmarks/scale_many_users.py --db-url postgresql+psycopg://... (a server of your own)

Without --db-url it uses an embedded server under --home (default /tmp/adk_memory_kit_scale);
the uniform mode reuses rows already loaded there.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))  # the sibling benchmarks (scale, fairness)


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


WORDS = (
    "order delivery hotel flight lisbon pune office reception vegetarian pescatarian aisle "
    "window seat refund invoice meeting budget project deadline train booking dinner lunch "
    "coffee laptop password reset shipment parcel warehouse museum concert tickets birthday "
    "gift doctor appointment gym running yoga garden tomato recipe pasta sushi weather rain"
).split()


_INSERT = """
INSERT INTO adk_memory_items (id, app_name, user_id, session_id, event_id, kind, author,
    role, text, search_text, source_hash, embedding, event_time)
SELECT gen_random_uuid(), :app, u.uid, 's-' || (g / 50), 'e-' || g, 'event', 'user', 'user',
       t.body, t.body, '', v.vec, now() - (g || ' seconds')::interval
FROM unnest(CAST(:uids AS text[]), CAST(:los AS int[]), CAST(:his AS int[])) AS u(uid, lo, hi)
CROSS JOIN LATERAL generate_series(u.lo, u.hi - 1) AS g
CROSS JOIN LATERAL (
    SELECT string_agg(({words})[1 + floor(random() * {n_words})::int], ' ')
           || ' ref-' || g AS body
    FROM generate_series(1, 12) WHERE g >= 0
) t
CROSS JOIN LATERAL (
    SELECT l2_normalize(array_agg(random() - 0.5)::vector) AS vec
    FROM generate_series(1, {dim}) WHERE g >= 0
) v
"""


async def load_counts(
    engine, counts: dict[str, tuple[int, int]], app: str, dim: int, batch: int = 50_000
) -> float:
    """Insert rows ``lo`` .. ``hi - 1`` of each user of ``counts`` (``{user: (lo, hi)}``),
    about ``batch`` rows per statement; returns rows/s."""
    from sqlalchemy import text

    words = "ARRAY[" + ",".join(f"'{w}'" for w in WORDS) + "]"
    sql = text(_INSERT.format(words=words, n_words=len(WORDS), dim=dim))
    pieces: list[tuple[str, int, int]] = []
    for user, (lo, hi) in counts.items():
        pieces += [(user, a, min(hi, a + batch)) for a in range(lo, hi, batch)]
    total = sum(hi - lo for _, lo, hi in pieces)
    done, started, chunk = 0, time.perf_counter(), []
    for k, piece in enumerate(pieces):
        chunk.append(piece)
        if sum(hi - lo for _, lo, hi in chunk) < batch and k + 1 < len(pieces):
            continue
        async with engine.begin() as conn:
            await conn.execute(
                sql,
                {
                    "app": app,
                    "uids": [u for u, _, _ in chunk],
                    "los": [lo for _, lo, _ in chunk],
                    "his": [hi for _, _, hi in chunk],
                },
            )
        done += sum(hi - lo for _, lo, hi in chunk)
        chunk = []
        rate = done / (time.perf_counter() - started)
        print(f"loaded {done:,}/{total:,} rows ({rate:,.0f} rows/s)", file=sys.stderr)
    async with engine.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text("VACUUM (ANALYZE) adk_memory_items"))
    return total / max(time.perf_counter() - started, 1e-9)


async def load(engine, rows: int, users: int, app: str, dim: int) -> None:
    """The uniform mode: ``rows`` rows spread evenly over ``users`` users ('user-<k>')."""
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
    if have:
        async with engine.begin() as conn:
            await conn.execute(text("DELETE FROM adk_memory_items WHERE app_name = :a"), {"a": app})
    per, extra = divmod(rows, users)
    counts = {f"user-{k}": (0, per + (k < extra)) for k in range(users)}
    await load_counts(engine, counts, app, dim)


async def uniform_main(args) -> None:
    """The earlier benchmark: many light users, equal sizes, MiniLM query embedding."""
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


# ------------------------------------------------------------------------------ mixed users
APP_MIXED = "many-users"


def plan_users(args) -> list[tuple[str, int]]:
    """(user, rows) of the final table, deterministic: heavy users first, then light ones in
    the order they join (so each curve point is a prefix of both lists)."""
    rng = random.Random(args.seed)
    h_lo, h_hi = (int(x) for x in args.heavy_rows.split("-"))
    l_lo, l_hi = (int(x) for x in args.light_rows.split("-"))
    heavy = [(f"heavy-{k}", rng.randint(h_lo, h_hi)) for k in range(args.heavy)]
    light = [(f"light-{k}", rng.randint(l_lo, l_hi)) for k in range(args.users - args.heavy)]
    return heavy + light


def point_sizes(args) -> list[tuple[int, int]]:
    """(users, heavy users) at each curve point: the final size halved ``points - 1`` times."""
    out = []
    for k in range(args.points - 1, -1, -1):
        users = max(args.heavy + 1, args.users // 2**k)
        out.append((users, max(1, round(args.heavy * users / args.users))))
    return out


def _words(rng: random.Random, n: int = 12) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


async def time_searches(memory, users: list[str], queries: list[str]) -> list[float]:
    timings = []
    for user, query in zip(users, queries, strict=True):
        t0 = time.perf_counter()
        await memory.search_memory(app_name=APP_MIXED, user_id=user, query=query)
        timings.append((time.perf_counter() - t0) * 1000)
    return timings


async def concurrently(clients: int, work: list, run) -> float:
    """Run ``run(item)`` for every item with ``clients`` workers; the wall time (s)."""
    queue = list(work)

    async def worker() -> None:
        while queue:
            await run(queue.pop())

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(clients)))
    return time.perf_counter() - t0


async def _row_count(engine) -> int:
    from sqlalchemy import text

    async with engine.connect() as conn:
        return (
            await conn.execute(
                text("SELECT count(*) FROM adk_memory_items WHERE app_name = :a"),
                {"a": APP_MIXED},
            )
        ).scalar_one()


async def write_turns(
    memory, users: list[str], tag: str, clients: int
) -> tuple[float, list[float]]:
    """One turn (2 events) per call of ``add_events_to_memory``, one call per user given;
    (rows/s counted in the table, per-call ms)."""
    from google.adk.events.event import Event
    from google.genai import types

    rng = random.Random(tag)
    base = time.time()
    calls = []
    for k, user in enumerate(users):
        events = [
            Event(
                id=f"{tag}-{k}-{j}",
                author="user" if j == 0 else "agent",
                invocation_id=f"{tag}-{k}",
                timestamp=base + k + j / 10,
                content=types.Content(
                    role="user" if j == 0 else "model", parts=[types.Part(text=_words(rng))]
                ),
            )
            for j in range(2)
        ]
        calls.append((user, events, f"{tag}-{k % 7}"))
    before = await _row_count(memory.engine)
    per_call: list[float] = []

    async def one(call) -> None:
        user, events, session = call
        t0 = time.perf_counter()
        await memory.add_events_to_memory(
            app_name=APP_MIXED, user_id=user, events=events, session_id=session
        )
        per_call.append((time.perf_counter() - t0) * 1000)

    wall = await concurrently(clients, calls, one)
    added = await _row_count(memory.engine) - before
    return added / wall, per_call


def _p(values: list[float], pct: float) -> float:
    return _percentile(values, pct) if values else float("nan")


async def measure_point(memory, args, loaded: list[tuple[str, int]], point: int) -> dict:
    from sqlalchemy import text

    rng = random.Random(args.seed * 1000 + point)
    light = [u for u, _ in loaded if u.startswith("light-")]
    heavy = [u for u, _ in loaded if u.startswith("heavy-")]
    q = args.queries
    queries = [" ".join(rng.sample(WORDS, 3)) for _ in range(q)]
    # light users as they come: a random user per query, nothing warmed first
    light_ms = await time_searches(memory, [rng.choice(light) for _ in range(q)], queries)
    # heavy users: the same few users all day, so their pages and index are warm
    hq = args.heavy_queries
    h_users = [heavy[k % len(heavy)] for k in range(hq)]
    await time_searches(memory, h_users, queries[:hq])
    heavy_ms = await time_searches(memory, h_users, queries[:hq])
    # search throughput: --clients concurrent searchers, random light users
    work = [(rng.choice(light), rng.choice(queries)) for _ in range(q)]

    async def search(item) -> None:
        await memory.search_memory(app_name=APP_MIXED, user_id=item[0], query=item[1])

    searches_per_s = q / await concurrently(args.clients, work, search)
    w = args.write_calls
    seq_rate, seq_ms = await write_turns(
        memory, [rng.choice(light) for _ in range(w)], f"p{point}s", 1
    )
    par_rate, par_ms = await write_turns(
        memory, [rng.choice(light) for _ in range(w)], f"p{point}c", args.clients
    )
    heavy_rate, heavy_write_ms = await write_turns(
        memory, [heavy[k % len(heavy)] for k in range(max(1, w // 4))], f"p{point}h", 1
    )
    async with memory.engine.connect() as conn:
        size = (
            await conn.execute(
                text(
                    "SELECT sum(pg_total_relation_size(c)) FROM unnest(ARRAY['adk_memory_items',"
                    " 'adk_memory_user_stats', 'adk_memory_term_stats']) AS c"
                )
            )
        ).scalar_one()
    return {
        "table_mb": float(size) / 2**20,
        "users": len(loaded),
        "heavy_users": len(heavy),
        "rows": await _row_count(memory.engine),
        "light_p50": statistics.median(light_ms),
        "light_p95": _p(light_ms, 95),
        "heavy_p50": statistics.median(heavy_ms),
        "heavy_p95": _p(heavy_ms, 95),
        "searches_per_s": searches_per_s,
        "write_rows_per_s_1": seq_rate,
        "write_call_p95_1": _p(seq_ms, 95),
        "write_rows_per_s_n": par_rate,
        "write_call_p95_n": _p(par_ms, 95),
        "heavy_write_rows_per_s": heavy_rate,
        "heavy_write_call_p95": _p(heavy_write_ms, 95),
    }


def plot(runs: list[tuple[str, list[dict]]], path: str, clients: int) -> None:
    """The curve: one series per run (``(label, points)``), x = rows in the table."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for n, (label, points) in enumerate(runs):
        rows = [p["rows"] for p in points]
        dash = "-" if n == 0 else ":"
        for axis, key, marker, color, name in (
            (left, "light_p95", "o", "C0", "light users"),
            (left, "heavy_p95", "s", "C1", "heavy users"),
            (right, "searches_per_s", "o", "C0", f"searches/s, {clients} clients"),
            (right, "write_rows_per_s_n", "s", "C1", f"write rows/s, {clients} writers"),
            (right, "write_rows_per_s_1", "^", "C2", "write rows/s, 1 writer"),
        ):
            axis.plot(
                rows,
                [p[key] for p in points],
                marker + dash,
                color=color,
                label=f"{name}, {label}",
            )
        for p in points:
            left.annotate(
                f"{p['users']:,} users",
                (p["rows"], 0),
                fontsize=7,
                rotation=90,
                textcoords="offset points",
                xytext=(2, 4),
            )
    left.set_ylabel("search_memory p95 (ms)")
    left.set_title("Search p95 (stand-in query embedding)")
    right.set_ylabel("per second")
    right.set_title("Throughput on one server")
    from matplotlib.ticker import FuncFormatter, NullFormatter

    for ax in (left, right):
        ax.set_xscale("log")
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}"))
        ax.set_xlabel("rows in the table (users grow with them)")
        ax.set_ylim(bottom=0)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


async def mixed_main(args) -> None:
    """The many-users simulation: curve points, then the table (and plot, JSON)."""
    import fairness  # the sibling benchmark: a fresh database on the server
    import scale  # the stand-in embedder
    from sqlalchemy import make_url, text
    from sqlalchemy.ext.asyncio import create_async_engine

    from adk_memory_kit import PgVectorMemoryService
    from adk_memory_kit.db import embedded_db_url
    from adk_memory_kit.memory.ann import index_heavy_users

    server = args.db_url or embedded_db_url()
    url = await fairness._fresh_database(server)
    memory = PgVectorMemoryService.from_url(url, embedder=scale.HashingEmbedder())
    await memory.ready()
    plan = plan_users(args)
    heavy_plan = [x for x in plan if x[0].startswith("heavy-")]
    light_plan = [x for x in plan if x[0].startswith("light-")]
    loaded: list[tuple[str, int]] = []
    points = []
    try:
        for k, (users, heavy) in enumerate(point_sizes(args)):
            target = heavy_plan[:heavy] + light_plan[: users - heavy]
            new = [x for x in target if x not in loaded]
            t0 = time.perf_counter()
            load_rate = await load_counts(
                memory.engine, {u: (0, n) for u, n in new}, APP_MIXED, memory.embedder.dim
            )
            load_s = time.perf_counter() - t0
            t0 = time.perf_counter()
            built = await index_heavy_users(memory.engine)  # as the maintenance side does
            build_s = time.perf_counter() - t0
            loaded = target
            point = await measure_point(memory, args, loaded, k)
            point.update(
                load_rows_per_s=load_rate, load_s=load_s, index_s=build_s, indexes_built=len(built)
            )
            points.append(point)
            print(json.dumps(point), file=sys.stderr)
    finally:
        await memory.close()
        if not args.keep:
            admin = create_async_engine(server, isolation_level="AUTOCOMMIT")
            async with admin.connect() as conn:
                name = make_url(url).database
                await conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            await admin.dispose()
    print(
        f"\nmixed users: heavy {args.heavy_rows} rows, light {args.light_rows} rows; "
        f"{args.queries} light / {args.heavy_queries} heavy queries, {args.write_calls} write "
        f"calls (2 events each) per point; {args.clients} concurrent clients; stand-in "
        f"embedder; load average {os.getloadavg()[0]:.1f}\n"
    )
    print(
        "| users (heavy) | rows | light p50 / p95 ms | heavy p50 / p95 ms | searches/s "
        f"({args.clients} clients) | write rows/s, 1 writer (call p95 ms) | write rows/s, "
        f"{args.clients} writers (call p95 ms) | heavy-user writes rows/s | load rows/s | "
        "index builds s | MB (bytes/row) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in points:
        print(
            f"| {p['users']:,} ({p['heavy_users']}) | {p['rows']:,} | "
            f"{p['light_p50']:.1f} / {p['light_p95']:.1f} | "
            f"{p['heavy_p50']:.1f} / {p['heavy_p95']:.1f} | {p['searches_per_s']:.0f} | "
            f"{p['write_rows_per_s_1']:.0f} ({p['write_call_p95_1']:.0f}) | "
            f"{p['write_rows_per_s_n']:.0f} ({p['write_call_p95_n']:.0f}) | "
            f"{p['heavy_write_rows_per_s']:.0f} | {p['load_rows_per_s']:,.0f} | "
            f"{p['index_s']:.0f} | {p['table_mb']:,.0f} "
            f"({p['table_mb'] * 2**20 / p['rows']:,.0f}) |"
        )
    if args.json_out:
        with open(args.json_out, "w") as fh:
            json.dump({"args": vars(args), "points": points}, fh, indent=1)
    if args.plot:
        plot([(f"heavy {args.heavy_rows} rows", points)], args.plot, args.clients)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=None, help="the uniform mode: total rows")
    parser.add_argument("--users", type=int, default=None, help="default 2,000 (uniform: 10,000)")
    parser.add_argument("--heavy", type=int, default=4, help="heavy users at the last point")
    parser.add_argument("--heavy-rows", default="4000-8000", help="rows of a heavy user, lo-hi")
    parser.add_argument("--light-rows", default="20-100", help="rows of a light user, lo-hi")
    parser.add_argument("--points", type=int, default=4, help="curve points (size halves)")
    parser.add_argument("--queries", type=int, default=None, help="light queries per point")
    parser.add_argument("--heavy-queries", type=int, default=40)
    parser.add_argument("--write-calls", type=int, default=200, help="write calls per point")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seed", type=int, default=45)
    parser.add_argument("--plot", default=None, help="PNG of the curve (matplotlib)")
    parser.add_argument("--json", dest="json_out", default=None)
    parser.add_argument(
        "--plot-from", nargs="+", default=None, help="only plot these runs' --json files"
    )
    parser.add_argument("--keep", action="store_true", help="keep the mixed mode's database")
    parser.add_argument("--db-url", default=None)
    parser.add_argument("--home", default="/tmp/adk_memory_kit_scale")
    args = parser.parse_args()
    if args.plot_from:
        runs = []
        for path in args.plot_from:
            with open(path) as fh:
                run = json.load(fh)
            a = run["args"]
            label = f"{a['users']:,} users, heavy {a['heavy_rows']} rows"
            runs.append((label, run["points"]))
        plot(runs, args.plot or "many_users_curve.png", runs and run["args"]["clients"])
        return
    if not args.db_url:
        os.environ["ADK_MEMORY_KIT_HOME"] = args.home
        os.makedirs(args.home, exist_ok=True)
    if args.rows is not None:
        args.users = args.users or 10_000
        args.queries = args.queries or 300
        await uniform_main(args)
    else:
        args.users = args.users or 2_000
        args.queries = args.queries or 200
        await mixed_main(args)


if __name__ == "__main__":
    asyncio.run(main())
