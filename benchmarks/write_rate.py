"""Write rate by user size (issue 45, "writes at the database's pace").

For each size in ``--rows`` (default 1000, 10000, 30000) one user is filled to that many rows
with ``COPY`` (an import, as ``benchmarks/scale.py`` loads; the statistics triggers run), its
partial HNSW index is built when the size calls for one (as the write side or
``IndexUpkeepJob`` would have built it), the table is vacuumed and analysed (as autovacuum
would after the import: without fresh statistics the planner takes a big user for a small one),
and then ``--batches`` batches of ``--batch`` events (500) are written through
``add_events_to_memory``. The rate reported for a size is the median
of those batches' rows/s: the rate of a batch written when the user has N rows. The same
rows then go, in the same batches, into a bare table (text, a GIN-indexed tsvector and a
vector(384) column) on the same server: the floor of what the server can take.
Rows written to a user who has an HNSW index wait outside it (issue 45, ``ann_pending``): after
each size's batches their fold into the index (``memory/ann.py`` ``fold_pending``, the work a
background fold does once the user's writes pause) is timed on its own, off the write rate,
so the sessions below start with nothing pending (with a kit from before issue 45: nothing to
fold, ``-``).

Then ``--sessions`` sessions of ``--turns`` turns (20) are written with
``add_session_to_memory`` (``write_policy="full_transcript"``: every turn stored) for the
largest user, and each again after ``--grow`` (10) more turns (the new turns' rows, and the
two turns before them whose following-turn context changed, are rewritten); it reports the
p50 / p95 of each write's database time (the sum of its statements' round trips, measured
client-side) and of its wall time.

Vectors come from the fast deterministic STAND-IN embedder of ``benchmarks/scale.py``
(feature hashing, not a semantic model), so the figures are the kit's and the database's cost,
not a model's. Rows are LoCoMo-like turns (``scale.make_rows``).

    ADK_MEMORY_KIT_HOME=/tmp/kh-write python benchmarks/write_rate.py
    python benchmarks/write_rate.py --rows 1000,10000,100000   # the full figure (~3-5 min)

Without --db-url it uses the embedded server under ``ADK_MEMORY_KIT_HOME`` (or --home), in a
database of its own made for the run and dropped at its end (``--keep`` keeps it), so runs
before and after a change start from the same empty tables.
``--profile`` also prints, for the largest user, every statement of one batch and of the
sessions with its client-side time, and ``EXPLAIN (ANALYZE, BUFFERS)`` of the writes of one
more batch (run for real).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import scale  # noqa: E402  (the corpus, the stand-in embedder, COPY loading)

APP = scale.APP
BARE = "write_rate_bare"


class DbClock:
    """Client-side time of every statement run on an engine (round trip included)."""

    def __init__(self, engine) -> None:
        from sqlalchemy import event

        self.total = 0.0
        self.by_sql: dict[str, list[float]] = defaultdict(list)
        self.record = False
        sync = engine.sync_engine

        @event.listens_for(sync, "before_cursor_execute")
        def _before(conn, cursor, statement, params, context, executemany):
            conn.info.setdefault("t0", []).append(time.perf_counter())

        @event.listens_for(sync, "after_cursor_execute")
        def _after(conn, cursor, statement, params, context, executemany):
            elapsed = time.perf_counter() - conn.info["t0"].pop()
            self.total += elapsed
            if self.record:
                self.by_sql[" ".join(statement.split())[:110]].append(elapsed)


def events_of(texts: list[str], first: int, base: float, author: str = "user"):
    from google.adk.events.event import Event
    from google.genai import types

    return [
        Event(
            id=f"w-{first + i}",
            author=author,
            invocation_id="bench",
            timestamp=base + first + i,
            content=types.Content(role="user", parts=[types.Part(text=body)]),
        )
        for i, body in enumerate(texts)
    ]


async def write_batches(memory, user: str, texts: list[str], batch: int, clock: DbClock):
    """Write ``texts`` through add_events_to_memory; per batch (rows/s, database seconds)."""
    out = []
    base = time.time()
    for lo in range(0, len(texts), batch):
        chunk = texts[lo : lo + batch]
        events = events_of(chunk, lo, base)
        db0 = clock.total
        t0 = time.perf_counter()
        await memory.add_events_to_memory(
            app_name=APP, user_id=user, events=events, session_id=f"b-{uuid.uuid4().hex[:8]}"
        )
        out.append((len(chunk) / (time.perf_counter() - t0), clock.total - db0))
    return out


async def fold_rate(memory, engine, user: str) -> tuple[int, float] | None:
    """(rows, rows/s) of folding the user's pending rows into their HNSW index now (issue 45);
    ``None`` with a kit that has no pending rows."""
    try:
        from adk_memory_kit.memory.pending_rows import fold_pending
    except ImportError:
        return None
    folder = getattr(memory.store, "pending_folder", None)
    if folder is not None:
        await folder.close()  # the background fold of this user: timed here instead
    t0 = time.perf_counter()
    rows = await fold_pending(engine, APP, user)
    return rows, rows / max(time.perf_counter() - t0, 1e-9)


async def bare_floor(engine, embedder, texts: list[str], batch: int) -> float:
    """rows/s of the same rows into a plain table (text, GIN tsvector, vector(384))."""
    from pgvector.sqlalchemy import VECTOR
    from sqlalchemy import bindparam, text

    async with engine.begin() as conn:
        await conn.execute(text(f"DROP TABLE IF EXISTS {BARE}"))
        await conn.execute(
            text(
                f"CREATE TABLE {BARE} (id bigserial PRIMARY KEY, user_id text NOT NULL,"
                " body text NOT NULL, tsv tsvector GENERATED ALWAYS AS"
                " (to_tsvector('english', body)) STORED, embedding vector(384) NOT NULL)"
            )
        )
        await conn.execute(text(f"CREATE INDEX ON {BARE} USING gin (tsv)"))
    insert = text(f"INSERT INTO {BARE} (user_id, body, embedding) VALUES (:u, :b, :e)")
    insert = insert.bindparams(bindparam("e", type_=VECTOR()))
    rates = []
    for lo in range(0, len(texts), batch):
        chunk = texts[lo : lo + batch]
        t0 = time.perf_counter()
        vectors = await embedder.embed(chunk)
        async with engine.begin() as conn:
            await conn.execute(
                insert, [{"u": "bare", "b": b, "e": v} for b, v in zip(chunk, vectors, strict=True)]
            )
        rates.append(len(chunk) / (time.perf_counter() - t0))
    async with engine.begin() as conn:
        await conn.execute(text(f"DROP TABLE {BARE}"))
    return statistics.median(rates)


async def session_latency(
    memory, user: str, corpus: list[str], n: int, turns: int, grow: int, clock: DbClock
):
    """(database ms, wall ms) of ``n`` add_session_to_memory calls of ``turns`` new turns, and
    of the same sessions written again after ``grow`` more turns (the new turns' rows, and the
    earlier turns whose following-turn context changed, rewritten; none when ``grow`` is 0).
    Only the first writes' statements are recorded (``clock.record``)."""
    from google.adk.sessions.session import Session

    first, grown = [], []
    record = clock.record
    base = time.time()
    size = turns + grow
    for s in range(n):
        texts = corpus[s * size : (s + 1) * size]
        events = [
            e.model_copy(update={"author": "user" if i % 2 == 0 else "assistant"})
            for i, e in enumerate(events_of(texts, s * size, base))
        ]
        sid = f"s-{uuid.uuid4().hex[:8]}"
        for out, upto in ((first, turns), (grown, size)) if grow else ((first, turns),):
            session = Session(id=sid, app_name=APP, user_id=user, events=events[:upto])
            clock.record = record and out is first
            db0 = clock.total
            t0 = time.perf_counter()
            await memory.add_session_to_memory(session)
            out.append(((clock.total - db0) * 1000, (time.perf_counter() - t0) * 1000))
    clock.record = False
    return first, grown


async def profile(memory, engine, user: str, texts: list[str], clock: DbClock) -> None:
    """One batch of ``texts``: each statement with its client-side time, then the same batch
    again (new event ids) with ``EXPLAIN (ANALYZE, BUFFERS)`` of each write to the memory
    table (run for real: the rows are written)."""
    from sqlalchemy import event

    clock.by_sql.clear()
    clock.record = True
    await write_batches(memory, user, texts, len(texts), clock)
    clock.record = False
    print("\nstatements of one batch (client-side ms):")
    for sql, times in sorted(clock.by_sql.items(), key=lambda kv: -sum(kv[1])):
        print(f"  {sum(times) * 1000:8.1f} ms  x{len(times):<3} {sql}")

    plans: list[list[str]] = []
    sync = engine.sync_engine

    def explain(conn, cursor, statement, params, context, executemany):
        if statement.lstrip().startswith("INSERT INTO adk_memory_items") and not executemany:
            return "EXPLAIN (ANALYZE, BUFFERS) " + statement, params
        return statement, params

    def collect(conn, cursor, statement, params, context, executemany):
        if statement.startswith("EXPLAIN"):
            plans.append([r[0] for r in cursor.fetchall()])

    event.listen(sync, "before_cursor_execute", explain, retval=True)
    event.listen(sync, "after_cursor_execute", collect)
    try:
        await write_batches(memory, user, texts, len(texts), clock)
    finally:
        event.remove(sync, "before_cursor_execute", explain)
        event.remove(sync, "after_cursor_execute", collect)
    for plan in plans[:3]:
        print("\nEXPLAIN (ANALYZE, BUFFERS) of a write to the memory table in that batch:")
        print("\n".join("  " + line for line in plan[:8]))
        print("\n".join("  " + line for line in plan[8:] if "Trigger" in line or "Time" in line))
    if len(plans) > 3:
        print(f"  ... and {len(plans) - 3} more such statements in the batch")


async def import_rate(memory, turns, rows: int, run: str) -> float:
    """Rows/s of ``import_memories`` bringing ``rows`` facts of a new user in from a file."""
    import json
    import tempfile

    texts = scale.make_rows(turns, rows, seed=rows + 7)
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "import.jsonl"
        source.write_text(
            "".join(json.dumps({"user_id": f"imp-{run}", "text": t}) + "\n" for t in texts),
            encoding="utf-8",
        )
        start = time.perf_counter()
        report = await memory.import_memories(
            source, app_name=APP, batch=500, state_file=Path(folder) / "state.json"
        )
        elapsed = time.perf_counter() - start
    return report.read / elapsed


async def fresh_database(name: str):
    """A new database on the embedded server: (its URL, a runner of admin statements)."""
    import psycopg

    from adk_memory_kit.db import embedded_db_url

    base = embedded_db_url()
    dsn = base.replace("postgresql+psycopg://", "postgresql://")

    async def admin(sql: str) -> None:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await conn.execute(sql)

    await admin(f"CREATE DATABASE {name}")
    return base.replace("/postgres?", f"/{name}?"), admin


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default="1000,10000,30000", help="user sizes (rows)")
    parser.add_argument("--batch", type=int, default=500, help="events per add_events call")
    parser.add_argument("--batches", type=int, default=3, help="timed batches per size")
    parser.add_argument("--sessions", type=int, default=40, help="20-turn sessions timed")
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--grow", type=int, default=10, help="turns added before a rewrite")
    parser.add_argument("--profile", action="store_true", help="per-statement times, EXPLAIN")
    parser.add_argument(
        "--locomo", default=str(Path(__file__).parents[1].parent / "shared/data/locomo_dev.json")
    )
    parser.add_argument(
        "--import-rows",
        type=int,
        default=2000,
        help="facts bulk-imported with import_memories from a JSON-lines file (0: skip)",
    )
    parser.add_argument("--db-url", default=None)
    parser.add_argument("--home", default=None, help="embedded server home (default: env)")
    parser.add_argument("--keep", action="store_true", help="keep the run's database")
    args = parser.parse_args()
    if args.home and not args.db_url:
        os.environ["ADK_MEMORY_KIT_HOME"] = args.home

    from adk_memory_kit import PgVectorMemoryService
    from adk_memory_kit.core.scope import operator_scope
    from adk_memory_kit.memory.ann import ANN_MIN_ROWS, build_user_index

    run = uuid.uuid4().hex[:6]
    url, admin = args.db_url, None
    if url is None:
        url, admin = await fresh_database(f"write_rate_{run}")
    stand_in = scale.HashingEmbedder()
    memory = PgVectorMemoryService.from_url(url, embedder=stand_in, write_policy="full_transcript")
    await memory.ready()
    engine = memory.engine
    clock = DbClock(engine)
    turns, _ = scale.load_locomo(args.locomo)
    sizes = sorted(int(s) for s in args.rows.split(","))
    print(f"run {run}: sizes {sizes}, batches of {args.batch}; STAND-IN embedder", file=sys.stderr)
    results = []
    written: list[str] = []
    for size in sizes:
        user = f"wr-{run}-{size}"
        if size:
            with operator_scope():  # a bulk import, as an operator would run it
                await scale.load_user(engine, stand_in, user, scale.make_rows(turns, size, size))
            if size >= ANN_MIN_ROWS:
                await build_user_index(engine, APP, user)
            with operator_scope():  # what autovacuum does after a bulk load (fresh statistics)
                await scale.vacuum(engine)
        texts = scale.make_rows(turns, args.batch * args.batches, seed=size + 1)
        batches = await write_batches(memory, user, texts, args.batch, clock)
        await memory.store.wait_for_index_builds()
        fold = await fold_rate(memory, engine, user)
        written += texts
        rate = statistics.median(r for r, _ in batches)
        db_share = sum(d for _, d in batches) / sum(args.batch / r for r, _ in batches)
        results.append((size, rate, db_share, fold))
        each = ", ".join(f"{r:,.0f}" for r, _ in batches)
        print(
            f"  {size:>7,} rows: {rate:,.0f} rows/s ({db_share:.0%} in the database;"
            f" batch by batch: {each})",
            file=sys.stderr,
        )
    floor = await bare_floor(engine, stand_in, written, args.batch)
    imported = await import_rate(memory, turns, args.import_rows, run) if args.import_rows else None
    heavy = f"wr-{run}-{sizes[-1]}"
    if args.profile:
        await profile(memory, engine, heavy, scale.make_rows(turns, args.batch, seed=5), clock)
    clock.by_sql.clear()
    clock.record = args.profile
    sessions, grown = await session_latency(
        memory,
        heavy,
        scale.make_rows(turns, args.sessions * (args.turns + args.grow), 11),
        args.sessions,
        args.turns,
        args.grow,
        clock,
    )
    clock.record = False
    if args.profile:
        print(f"\nstatements of one {args.turns}-turn session (client-side ms, mean):")
        for sql, times in sorted(clock.by_sql.items(), key=lambda kv: -sum(kv[1])):
            print(f"  {sum(times) * 1000 / len(sessions):8.2f} ms  {sql}")
    await memory.close()
    if admin is not None and not args.keep:
        await admin(f"DROP DATABASE write_rate_{run}")

    print(
        f"\nadd_events_to_memory, {args.batch}-event batches (median of {args.batches}),"
        " STAND-IN embedder"
    )
    print(
        "| rows of the user | rows/s | share in the database | folded into the index afterwards:"
        " rows, rows/s |\n|---:|---:|---:|---:|"
    )
    for size, rate, share, fold in results:
        folded = f"{fold[0]:,}, {fold[1]:,.0f}" if fold and fold[0] else "-"
        print(f"| {size:,} | {rate:,.0f} | {share:.0%} | {folded} |")
    print(f"| bare table floor | {floor:,.0f} | | |")
    if imported is not None:
        print(
            f"\nimport_memories of {args.import_rows:,} facts (JSON lines, a new user): "
            f"{imported:,.0f} rows/s ({floor / imported:.1f}x below the bare-table floor)"
        )
    print()
    for label, timed in (
        (f"{args.turns}-turn sessions", sessions),
        (f"the same sessions written again after {args.grow} more turns", grown),
    ):
        if not timed:
            continue
        db = [d for d, _ in timed]
        wall = [w for _, w in timed]
        print(
            f"{label} at the {sizes[-1]:,}-row user ({len(timed)}):"
            f" database p50 {scale._percentile(db, 50):.1f} ms,"
            f" p95 {scale._percentile(db, 95):.1f} ms;"
            f" wall p50 {scale._percentile(wall, 50):.1f} ms,"
            f" p95 {scale._percentile(wall, 95):.1f} ms"
        )


if __name__ == "__main__":
    asyncio.run(main())
