"""Search cost against one user's history: the old (exact) query and the bounded path, side by side.

One table holds one user per size in ``--sizes`` (default 500, 10k and 100k rows; add
1000000 for the 1M-row user). Rows are conversation-like: LoCoMo turns (speaker + text, an
image caption appended), half of them with a sentence of another turn, one in twenty naming
an order id such as ``A-4521``; the previous row is the full-text context, as ingestion does.
Queries are LoCoMo questions, plus one in ten asking for an order id.

Vectors come from a fast deterministic STAND-IN embedder (feature hashing of words into 384
dimensions, not a semantic model), so a million rows load in minutes; ``search_memory``
still pays the real MiniLM query embedding (computed and discarded; ``--no-minilm`` skips it).
Rows are loaded with ``COPY`` (the statistics triggers run as for any write), then the table
is vacuumed as autovacuum would after a bulk load.

Caches are warm: each path runs the query set once, untimed, before it is timed.
For each user it reports p50/p95 of the database part and of ``search_memory``, before (the
exact query every user took until now: ``SearchOptions(heavy_user_rows=∞)``) and after (the
bounded path above ``heavy_user_rows``, with the user's partial HNSW index), the overlap of
the two top-10s, and the recall of the HNSW dense list against the exact scan. A heavy user's
partial HNSW index is built as the maintenance side builds it after an import that bypassed
the service (``build_user_index``, what ``lifecycle.IndexUpkeepJob`` runs; searches never
start a build, issue 49), before timing. Then write
throughput of ``add_events_to_memory`` (rows/s) with the real MiniLM embedder and with the
stand-in, the cost-curve table, and a PNG plot (matplotlib: the ``dev`` extra).

    python benchmarks/scale.py --locomo ../shared/data/locomo_dev.json
    python benchmarks/scale.py --sizes 500,10000,100000,1000000 --queries 40

Without --db-url it uses an embedded server under --home (default /tmp/adk_memory_kit_scale);
users already loaded there are reused.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import random
import re
import statistics
import sys
import time
import uuid
import zlib
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

APP = "scale-bench"
DIM = 384
_WORD = re.compile(r"[a-z0-9][a-z0-9\-]*")


class HashingEmbedder:
    """STAND-IN embedder: signed feature hashing of words and word pairs, L2-normalised.

    Deterministic and ~100x faster than MiniLM; texts sharing words get similar vectors, but
    it is not a semantic model. With ``query_model`` set, ``embed_query`` also runs that
    model on the query (result discarded) so ``search_memory`` timings include a real query
    embedding.
    """

    model_id = "stand-in/feature-hashing-384"
    dim = DIM

    def __init__(self, query_model=None) -> None:
        self.query_model = query_model

    def vector(self, text: str) -> np.ndarray:
        words = _WORD.findall(text.lower())
        vec = np.zeros(DIM, dtype=np.float32)
        for token in words + [a + " " + b for a, b in zip(words, words[1:], strict=False)]:
            h = zlib.crc32(token.encode())
            vec[h % DIM] += 1.0 if (h >> 16) & 1 else -1.0
        norm = float(np.linalg.norm(vec))
        if norm == 0:
            vec[0] = 1.0
            norm = 1.0
        return vec / norm

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self.vector(t).tolist() for t in texts]

    async def embed_query(self, texts: Sequence[str]) -> list[list[float]]:
        if self.query_model is not None:
            await self.query_model.embed(list(texts))
        return await self.embed(texts)


def _literal(vec: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.5g}" for x in vec) + "]"


def _percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(pct / 100 * (len(ordered) - 1))))]


def _stat(values: list[float], pct: float) -> float:
    """The percentile of ``values``; NaN when there are none (not measured)."""
    return _percentile(values, pct) if values else math.nan


# ------------------------------------------------------------------------------ corpus
def load_locomo(path: str) -> tuple[list[str], list[str]]:
    """(turns as 'Speaker: text', questions) from the LoCoMo file."""
    data = json.loads(Path(path).read_text())
    turns: list[str] = []
    questions: list[str] = []
    for conv in data:
        c = conv["conversation"]
        for key in sorted(k for k in c if re.fullmatch(r"session_\d+", k)):
            for turn in c[key]:
                body = turn["text"]
                if turn.get("blip_caption"):
                    body += f" [shares {turn['blip_caption']}]"
                turns.append(f"{turn['speaker']}: {body}")
        questions += [qa["question"] for qa in conv["qa"] if qa.get("category") in (1, 2, 3, 4)]
    return turns, questions


def make_rows(turns: list[str], n: int, seed: int) -> list[str]:
    """``n`` conversation-like texts (deterministic for a seed)."""
    rng = random.Random(seed)
    sentences = [s for t in turns for s in re.split(r"(?<=[.!?])\s+", t.split(": ", 1)[-1]) if s]
    rows = []
    for _ in range(n):
        text = rng.choice(turns)
        if rng.random() < 0.5:
            text += " " + rng.choice(sentences)
        if rng.random() < 0.05:
            text += f" (order {rng.choice('ABC')}-{rng.randrange(1000, 10000)})"
        rows.append(text)
    return rows


def make_queries(questions: list[str], count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        if i % 10 == 9:
            out.append(f"what happened with order {rng.choice('ABC')}-{rng.randrange(1000, 10000)}")
        else:
            out.append(rng.choice(questions))
    return out


# ------------------------------------------------------------------------------ loading
async def user_rows(engine, user: str) -> int:
    from sqlalchemy import text

    from adk_memory_kit.memory.tables import TABLE

    async with engine.connect() as conn:
        return (
            await conn.execute(
                text(f"SELECT count(*) FROM {TABLE} WHERE app_name = :a AND user_id = :u"),
                {"a": APP, "u": user},
            )
        ).scalar_one()


async def load_user(engine, embedder: HashingEmbedder, user: str, texts: list[str]) -> float:
    """COPY ``texts`` as ``user``'s rows in batches; returns rows/s (0: already loaded)."""
    from sqlalchemy import text

    from adk_memory_kit.memory.tables import TABLE

    have = await user_rows(engine, user)
    if have >= len(texts):
        return 0.0
    if have:
        async with engine.begin() as conn:
            await conn.execute(
                text(f"DELETE FROM {TABLE} WHERE app_name = :a AND user_id = :u"),
                {"a": APP, "u": user},
            )
    t0 = time.perf_counter()
    await copy_rows(engine, embedder, user, texts, progress=True)
    return len(texts) / (time.perf_counter() - t0)


async def copy_rows(
    engine,
    embedder: HashingEmbedder,
    user: str,
    texts: list[str],
    *,
    offset: int = 0,
    batch: int = 20_000,
    progress: bool = False,
) -> None:
    """COPY ``texts`` as ``user``'s rows (one transaction per ``batch``), appended after the
    ``offset`` rows the user already has: sessions of 50 turns, each turn indexed with the one
    before it, one minute apart from 2024-01-01, each with the entity keys the service would
    write for it (issue 48; the statistics and entity triggers run)."""
    from adk_memory_kit.memory.tables import TABLE
    from adk_memory_kit.text.entities import entities

    cols = (
        "id, app_name, user_id, session_id, event_id, kind, author, role, text, search_text,"
        " context_text, source_hash, embedding, event_time, entities"
    )
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    t0 = time.perf_counter()
    for lo in range(0, len(texts), batch):
        async with engine.begin() as conn:
            raw = (await conn.get_raw_connection()).driver_connection
            async with raw.cursor() as cur:
                async with cur.copy(f"COPY {TABLE} ({cols}) FROM STDIN") as copy:
                    for i in range(lo, min(len(texts), lo + batch)):
                        body = texts[i]
                        author, _, said = body.partition(":")
                        await copy.write_row(
                            (
                                str(uuid.uuid4()),
                                APP,
                                user,
                                f"s-{(offset + i) // 50}",
                                f"e-{offset + i}",
                                "event",
                                author,
                                "user",
                                body,
                                body,
                                texts[i - 1] if i % 50 else "",
                                "bench",
                                _literal(embedder.vector(body)),
                                start + timedelta(minutes=offset + i),
                                entities(said, author),
                            )
                        )
        if progress:
            done = min(len(texts), lo + batch)
            rate = done / (time.perf_counter() - t0)
            print(f"  {user}: {done:,}/{len(texts):,} rows ({rate:,.0f} rows/s)", file=sys.stderr)


async def vacuum(engine) -> None:
    """VACUUM (ANALYZE) the memory table, as autovacuum does after a bulk load: fresh planner
    statistics, and the GIN indexes' pending lists merged (until then every full-text index
    scan also reads the pending list)."""
    from sqlalchemy import text

    from adk_memory_kit.memory.tables import TABLE

    async with engine.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text(f"VACUUM (ANALYZE) {TABLE}"))


# ------------------------------------------------------------------------------ measuring
def _backend_cpu_ms(pid: int | None) -> float | None:
    """CPU time (ms) the server process ``pid`` has run so far (``/proc/<pid>/schedstat``,
    nanoseconds); ``None`` where it cannot be read (another host, not Linux)."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/schedstat") as fh:
            return int(fh.read().split()[0]) / 1e6
    except (OSError, ValueError, IndexError):
        return None


async def time_db(engine, user, queries, vectors, options, *, forced_light: bool, cpu=None):
    """Database part per query (ms) and the top-10 ids, on one connection. ``cpu`` (a list)
    receives the server process's CPU ms per query, where the server runs on this machine:
    unlike wall time, it does not grow with the load other processes put on the machine."""
    from sqlalchemy import text

    from adk_memory_kit.memory.query import query_terms
    from adk_memory_kit.memory.search import SearchPlan, plan_search, search_rows

    timings, tops = [], []
    async with engine.connect() as conn:
        pid = (await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one()
        await conn.commit()
        if _backend_cpu_ms(pid) is None:
            pid = None
        for q, vec in zip(queries, vectors, strict=True):
            c0 = _backend_cpu_ms(pid)
            t0 = time.perf_counter()
            plan = await plan_search(conn, APP, user, options)
            if forced_light:
                plan = SearchPlan(rows=plan.rows, heavy=False, ann=False)
            rows = await search_rows(
                conn,
                app=APP,
                user=user,
                qvec=vec,
                terms=query_terms(q),
                limit=10,
                options=options,
                plan=plan,
            )
            timings.append((time.perf_counter() - t0) * 1000)
            c1 = _backend_cpu_ms(pid)
            if cpu is not None and c0 is not None and c1 is not None:
                cpu.append(c1 - c0)
            tops.append([(str(r["id"]), r["text"]) for r in rows])
            await conn.commit()
    return timings, tops


async def _client_backends(engine) -> list[int]:
    """Process ids of the server's client backends (the pooled connections a search uses)."""
    from sqlalchemy import text

    async with engine.connect() as conn:
        found = await conn.execute(
            text(
                "SELECT pid FROM pg_stat_activity"
                " WHERE datname = current_database() AND backend_type = 'client backend'"
            )
        )
        return [int(r.pid) for r in found]


def _server_cpu_ms(pids: list[int]) -> float | None:
    """CPU ms the server processes ``pids`` have run so far; ``None`` if one is unreadable."""
    total = 0.0
    for pid in pids:
        ms = _backend_cpu_ms(pid)
        if ms is None:
            return None
        total += ms
    return total


async def time_full(memory, user, queries, cpu=None, server_cpu=None) -> list[float]:
    """Wall ms of each ``search_memory`` call; ``cpu`` (a list) receives this process's CPU ms
    per call (the query embedding, the fusion, the drivers), ``server_cpu`` the database
    server's (every client backend of the pool, where the server runs on this machine).

    The MiniLM vector cache is emptied before each call, so every call pays a real query
    embedding (as a user's new question does): without it the first user measured filled the
    cache and every later user's query came from it."""
    await memory.search_memory(app_name=APP, user_id=user, query=queries[0])  # open the pool
    query_model = getattr(memory.store.embedder, "query_model", None)
    timings = []
    for q in queries:
        if query_model is not None:
            query_model.cache.clear()
        pids = await _client_backends(memory.engine) if server_cpu is not None else []
        s0 = _server_cpu_ms(pids)
        c0 = time.process_time()
        t0 = time.perf_counter()
        await memory.search_memory(app_name=APP, user_id=user, query=q)
        timings.append((time.perf_counter() - t0) * 1000)
        if cpu is not None:
            cpu.append((time.process_time() - c0) * 1000)
        s1 = _server_cpu_ms(pids)
        if server_cpu is not None and s0 is not None and s1 is not None:
            server_cpu.append(s1 - s0)
    return timings


async def ann_recall(engine, user, vectors, depth: int, ef: int) -> tuple[float, float]:
    """Recall of the HNSW dense list against the exact scan: (@10, @depth).

    Counted by distance, so ties (rows with the same text) do not count as misses: an
    approximate neighbour counts if it is no farther than the exact list's k-th.
    """
    from sqlalchemy import text

    from adk_memory_kit.memory.ann_names import scope_literals
    from adk_memory_kit.memory.tables import TABLE

    lit = " AND ".join(scope_literals(APP, user))
    try:  # issue 45: the index covers the rows not pending (none here: nothing is written)
        from adk_memory_kit.memory.ann_names import INDEXED_ROWS

        lit += f" AND {INDEXED_ROWS}"
    except ImportError:  # a kit from before issue 45: the user's literals are the predicate
        pass
    sql = text(
        f"SELECT embedding <=> CAST(:v AS vector) AS d FROM {TABLE}"
        f" WHERE app_name = :a AND user_id = :u AND {lit}"
        " ORDER BY embedding <=> CAST(:v AS vector) LIMIT :k"
    )
    exact_sql = text(
        f"SELECT embedding <=> CAST(:v AS vector) AS d FROM {TABLE}"
        " WHERE app_name = :a AND user_id = :u"
        " ORDER BY (embedding <=> CAST(:v AS vector)) + 0 LIMIT :k"
    )
    r10: list[float] = []
    rdeep: list[float] = []
    async with engine.connect() as conn:
        for vec in vectors:
            await conn.execute(
                text(
                    "SELECT set_config('hnsw.ef_search', :ef, true),"
                    " set_config('hnsw.iterative_scan', 'relaxed_order', true)"
                ),
                {"ef": str(ef)},
            )
            literal = "[" + ",".join(f"{x:.7g}" for x in vec) + "]"
            p = {"a": APP, "u": user, "v": literal, "k": depth}
            approx = [r.d for r in await conn.execute(sql, p)]
            exact = [r.d for r in await conn.execute(exact_sql, p)]
            await conn.commit()
            for k, out in ((10, r10), (depth, rdeep)):
                if exact[:k]:
                    bound = exact[:k][-1] + 1e-6
                    out.append(sum(d <= bound for d in approx[:k]) / len(exact[:k]))
    return statistics.mean(r10), statistics.mean(rdeep)


async def write_throughput(memory, user: str, texts: list[str], batch: int) -> float:
    """rows/s of add_events_to_memory, ``batch`` events per call."""
    from google.adk.events.event import Event
    from google.genai import types

    t0 = time.perf_counter()
    base = time.time()
    for lo in range(0, len(texts), batch):
        events = [
            Event(
                id=f"w-{i}",
                author="user",
                invocation_id="bench",
                timestamp=base + i,
                content=types.Content(role="user", parts=[types.Part(text=texts[i])]),
            )
            for i in range(lo, min(len(texts), lo + batch))
        ]
        await memory.add_events_to_memory(
            app_name=APP, user_id=user, events=events, session_id=f"w-{lo // batch}"
        )
    return len(texts) / (time.perf_counter() - t0)


def plot(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r["rows"] for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4))
    ax.plot(sizes, [r["before_full_p95"] for r in rows], "o-", label="before: exact query")
    ax.plot(sizes, [r["after_full_p95"] for r in rows], "s-", label="after: bounded path")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("rows of the user")
    ax.set_ylabel("search_memory p95 (ms)")
    ax.set_title("Search cost against one user's history")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--locomo", default=str(Path(__file__).parents[1].parent / "shared/data/locomo_dev.json")
    )
    parser.add_argument("--sizes", default="500,2000,10000,100000")
    parser.add_argument("--queries", type=int, default=40)
    parser.add_argument(
        "--write-rows", type=int, default=200, help="rows per write test (0: skip it)"
    )
    parser.add_argument("--no-minilm", action="store_true", help="stand-in query embedding")
    parser.add_argument("--plot", default="docs/scale_cost_curve.png")
    parser.add_argument("--json", dest="json_out", default=None)
    parser.add_argument("--db-url", default=None)
    parser.add_argument(
        "--lexical-budget", type=int, default=None, help="SearchOptions.lexical_budget (after)"
    )
    parser.add_argument(
        "--ef-search", type=int, default=None, help="SearchOptions.ann_ef_search (after)"
    )
    parser.add_argument("--home", default="/tmp/adk_memory_kit_scale")
    parser.add_argument(
        "--entity-weight",
        type=float,
        default=None,
        help="SearchOptions.entity_weight (after; 0: the entity list off, issue 48)",
    )
    parser.add_argument(
        "--no-before",
        action="store_true",
        help="skip the old exact query (minutes at 100k rows); 'after' figures only",
    )
    parser.add_argument(
        "--rls",
        choices=("on", "off"),
        default=None,
        help="row-level security (ADK_MEMORY_KIT_RLS; default: the kit's default, off)",
    )
    args = parser.parse_args()
    if args.rls:
        os.environ["ADK_MEMORY_KIT_RLS"] = args.rls
    if not args.db_url:
        os.environ["ADK_MEMORY_KIT_HOME"] = args.home
        os.makedirs(args.home, exist_ok=True)

    from adk_memory_kit import PgVectorMemoryService
    from adk_memory_kit.core.scope import operator_scope, user_scope
    from adk_memory_kit.embedders import LocalMiniLMEmbedder
    from adk_memory_kit.memory.ann import ANN_MIN_ROWS, build_user_index
    from adk_memory_kit.memory.config import SearchOptions

    minilm = LocalMiniLMEmbedder()
    stand_in = HashingEmbedder(None if args.no_minilm else minilm)
    tuned = {
        k: v
        for k, v in {
            "lexical_budget": args.lexical_budget,
            "ann_ef_search": args.ef_search,
            "entity_weight": args.entity_weight,
        }.items()
        if v is not None
    }
    after_opts = SearchOptions(**tuned)
    before_opts = SearchOptions(heavy_user_rows=2**62)
    after = PgVectorMemoryService.from_url(args.db_url, embedder=stand_in, search=after_opts)
    before = PgVectorMemoryService.from_url(args.db_url, embedder=stand_in, search=before_opts)
    await after.search_memory(app_name=APP, user_id="warm-up", query="create the schema")
    engine = after.engine

    turns, questions = load_locomo(args.locomo)
    sizes = [int(s) for s in args.sizes.split(",")]
    loads = {}
    for size in sizes:
        user = f"user-{size}"
        with operator_scope():  # a bulk load, as an operator would run it
            rate = await load_user(engine, stand_in, user, make_rows(turns, size, seed=size))
        if rate:
            loads[size] = rate
        if size >= after_opts.heavy_user_rows:
            # a COPY is an import that bypasses the service, so the maintenance side builds
            # the index (lifecycle.IndexUpkeepJob does the same for every heavy user);
            # searches never start a build (issue 49)
            t0 = time.perf_counter()
            await after.search_memory(app_name=APP, user_id=user, query="first search")
            first_ms = (time.perf_counter() - t0) * 1000
            await build_user_index(engine, APP, user)
            print(
                f"  {user}: first search {first_ms:.0f} ms (exact);"
                f" HNSW index built by the maintenance side in {time.perf_counter() - t0:.1f} s",
                file=sys.stderr,
            )

    with operator_scope():
        await vacuum(engine)
    queries = make_queries(questions, args.queries, seed=7)
    vectors = await stand_in.embed(queries)
    results = []
    for size in sizes:
        user = f"user-{size}"
        # warm caches: each path runs the whole query set once, untimed, right before it is
        # timed (the old query reads every row of the user, evicting what the new one uses)
        b_cpu: list[float] = []
        a_cpu: list[float] = []
        a_client_cpu: list[float] = []
        a_server_cpu: list[float] = []
        with user_scope(APP, user):  # the database part runs as the service runs it
            if args.no_before:
                b_db, b_top, b_full = [math.nan], [], [math.nan]
            else:
                await time_db(engine, user, queries, vectors, before_opts, forced_light=True)
                b_db, b_top = await time_db(
                    engine, user, queries, vectors, before_opts, forced_light=True, cpu=b_cpu
                )
                b_full = await time_full(before, user, queries)
            await time_db(engine, user, queries, vectors, after_opts, forced_light=False)
            a_db, a_top = await time_db(
                engine, user, queries, vectors, after_opts, forced_light=False, cpu=a_cpu
            )
            a_full = await time_full(
                after, user, queries, cpu=a_client_cpu, server_cpu=a_server_cpu
            )
        pairs = list(zip(a_top, b_top, strict=True)) if b_top else []
        overlap = text_overlap = math.nan  # not measured without the old query
        if pairs:
            overlap = statistics.mean(
                len({i for i, _ in a} & {i for i, _ in b}) / max(1, len(b)) for a, b in pairs
            )
            # rows with the same text tie in every list; which copy wins a tie is arbitrary
            text_overlap = statistics.mean(
                len({t for _, t in a} & {t for _, t in b}) / max(1, len({t for _, t in b}))
                for a, b in pairs
            )
        total_cpu = (
            [a + b for a, b in zip(a_client_cpu, a_server_cpu, strict=True)]
            if len(a_server_cpu) == len(a_client_cpu)
            else []
        )
        heavy = size >= after_opts.heavy_user_rows
        indexed = size >= ANN_MIN_ROWS
        with user_scope(APP, user):
            recall = (
                await ann_recall(
                    engine, user, vectors, after_opts.candidates, after_opts.ann_ef_search
                )
                if indexed
                else (1.0, 1.0)
            )
        results.append(
            {
                "rows": size,
                "path": ("bounded + HNSW" if indexed else "bounded, exact dense")
                if heavy
                else "exact (light)",
                "before_db_p50": statistics.median(b_db),
                "before_db_p95": _percentile(b_db, 95),
                "after_db_p50": statistics.median(a_db),
                "after_db_p95": _percentile(a_db, 95),
                "before_full_p50": statistics.median(b_full),
                "before_full_p95": _percentile(b_full, 95),
                "after_full_p50": statistics.median(a_full),
                "after_full_p95": _percentile(a_full, 95),
                "before_db_cpu_p50": _stat(b_cpu, 50),
                "before_db_cpu_p95": _stat(b_cpu, 95),
                "after_db_cpu_p50": _stat(a_cpu, 50),
                "after_db_cpu_p95": _stat(a_cpu, 95),
                "after_client_cpu_p50": _stat(a_client_cpu, 50),
                "after_client_cpu_p95": _stat(a_client_cpu, 95),
                "after_total_cpu_p50": _stat(total_cpu, 50),
                "after_total_cpu_p95": _stat(total_cpu, 95),
                "top10_overlap": overlap,
                "top10_text_overlap": text_overlap,
                "ann_recall10": recall[0],
                "ann_recall_deep": recall[1],
            }
        )
        print(f"  measured {user}", file=sys.stderr)

    # write throughput: real MiniLM vs the stand-in (separate apps: one embedder per schema is
    # recorded, so the MiniLM run uses its own database under --home/minilm)
    t_stand = t_real = math.nan
    if args.write_rows > 0:
        write_texts = make_rows(turns, args.write_rows, seed=99)
        writer = f"writer-{uuid.uuid4().hex[:6]}"
        t_stand = await write_throughput(after, writer, write_texts, 20)
    await before.close()
    await after.close()
    if args.write_rows > 0:
        minilm_home = os.path.join(args.home, "minilm")
        os.makedirs(minilm_home, exist_ok=True)
        from adk_memory_kit.db import embedded_db_url

        url = args.db_url or embedded_db_url(minilm_home)
        real = PgVectorMemoryService(url, embedder=minilm)
        await real.search_memory(app_name=APP, user_id="warm-up", query="start the server")
        t_real = await write_throughput(real, f"writer-{uuid.uuid4().hex[:6]}", write_texts, 20)
        await real.close()

    load = os.getloadavg()
    print(f"\nmachine: {os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f}")
    print(f"queries per user: {len(queries)} (LoCoMo questions, 1 in 10 an order id)\n")
    print(
        "| rows of the user | path after | database p50 / p95 ms, before | after |"
        " search_memory p50 / p95 ms, before | after | top-10 overlap: ids / texts |"
        " HNSW recall@10 / @200 |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| {r['rows']:,} | {r['path']} | {r['before_db_p50']:.1f} / {r['before_db_p95']:.1f}"
            f" | {r['after_db_p50']:.1f} / {r['after_db_p95']:.1f}"
            f" | {r['before_full_p50']:.1f} / {r['before_full_p95']:.1f}"
            f" | {r['after_full_p50']:.1f} / {r['after_full_p95']:.1f}"
            f" | {r['top10_overlap']:.3f} / {r['top10_text_overlap']:.3f}"
            f" | {r['ann_recall10']:.3f} / {r['ann_recall_deep']:.3f} |"
        )
    print(
        "\nCPU ms per search (load-independent): the database server process per query"
        " (before | after), and this process per search_memory call (query embedding,"
        " fusion, drivers)\n"
    )
    print("| rows of the user | database CPU p50 / p95, before | after | client CPU p50 / p95 |")
    print("|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| {r['rows']:,} | {r['before_db_cpu_p50']:.1f} / {r['before_db_cpu_p95']:.1f}"
            f" | {r['after_db_cpu_p50']:.1f} / {r['after_db_cpu_p95']:.1f}"
            f" | {r['after_client_cpu_p50']:.1f} / {r['after_client_cpu_p95']:.1f} |"
        )
    print(
        "\nsearch_memory per call, after (the figures of issue 25): wall ms, and CPU ms of this"
        " process plus the database server's backends (load-independent)\n"
    )
    print("| rows of the user | wall p50 / p95 | CPU p50 / p95 |")
    print("|---:|---:|---:|")
    for r in results:
        print(
            f"| {r['rows']:,} | {r['after_full_p50']:.1f} / {r['after_full_p95']:.1f}"
            f" | {r['after_total_cpu_p50']:.1f} / {r['after_total_cpu_p95']:.1f} |"
        )
    light = next((r for r in results if r["rows"] == min(sizes)), None)
    for r in results:
        if light and r is not light and r["path"] != "exact (light)":
            print(
                f"\n{r['rows']:,}-row user against the {light['rows']:,}-row user, p95 after:"
                f" database {r['after_db_p95'] / light['after_db_p95']:.1f}x,"
                f" search_memory wall {r['after_full_p95'] / light['after_full_p95']:.2f}x,"
                f" search_memory CPU"
                f" {r['after_total_cpu_p95'] / light['after_total_cpu_p95']:.2f}x"
            )
    print("\n| write path | rows/s |\n|---|---:|")
    print(f"| add_events_to_memory, MiniLM int8 (real) | {t_real:,.0f} |")
    print(f"| add_events_to_memory, stand-in hashing embedder | {t_stand:,.0f} |")
    for size, rate in loads.items():
        print(f"| COPY load, stand-in vectors ({size:,} rows) | {rate:,.0f} |")
    if args.plot:
        plot(results, args.plot)
        print(f"\nplot: {args.plot}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"results": results, "load": load}, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
