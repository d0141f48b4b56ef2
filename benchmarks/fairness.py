"""Fairness over time (issue 49): a light user's search latency while a neighbour grows and is
indexed, on one server.

One fresh database on the embedded server (under ``ADK_MEMORY_KIT_HOME``). A light user of
``--light`` rows (500) and, in the main process, a *prober*: back-to-back ``search_memory``
calls (LoCoMo questions; the real MiniLM query embedding unless ``--no-minilm``), one at a
time, the light user's and (from the import on) the neighbour's in turn, as the issue's
measurement interleaved them; each search timed and stamped. Meanwhile, in phases:

1. ``empty``: the light user alone on the server (the reference p95);
2. ``import``: SETUP, another process COPYs ``--heavy`` rows (100k) as the neighbour's,
   the statistics triggers on (an import that bypasses the service);
2b. ``kit_import``: another process imports ``--kit-import-rows`` facts into the neighbour with
   the kit's ``import_memories`` from a JSON-lines file, as ``adk-memory-kit import``
   runs it (a process of its own at low priority, ``run_as_batch_job``, holding a heavy-work
   slot; ``--import-priority normal`` for the comparison);
3. ``load``: another process (the neighbour's app server) writes ``--api-rows`` more through
   ``add_events_to_memory`` (20 events a call; stand-in vectors), which is where the current
   code starts the neighbour's index build (the code before issue 49 started it from the
   prober's first heavy search instead);
4. ``build``: until no index build runs on the server (``pg_stat_progress_create_index``)
   and the builders have finished;
5. ``after``: ``--quiet-searches`` more, nothing else running.

Per phase: light and heavy p50 / p95 and the ratios the issue sets as targets; ``--json``
keeps every sample; ``--plot`` draws latency over time (``--plot-from`` combines the JSON of
two runs, e.g. the code before and after, into one figure).

    ADK_MEMORY_KIT_HOME=/tmp/fair python benchmarks/fairness.py --json after.json
    python benchmarks/fairness.py --plot-from before.json after.json --plot docs/img/fairness.png

Wall times on a shared machine are noisy: repeat, compare medians, report the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import scale  # noqa: E402  (the corpus, the stand-in embedder, COPY helpers)

APP = scale.APP
LIGHT, HEAVY = "light-500", "neighbour"
PHASES = ("empty", "import", "kit_import", "load", "build", "after")


# ------------------------------------------------------------------------------ child processes
async def _child_copy(url: str, rows: int, seed: int) -> None:
    """SETUP: COPY ``rows`` neighbour rows (an import that bypasses the service)."""
    from sqlalchemy.ext.asyncio import create_async_engine

    from adk_memory_kit.core.scope import operator_scope

    turns, _ = scale.load_locomo(_locomo())
    engine = create_async_engine(url, pool_size=1)
    with operator_scope():
        await _copy(engine, scale.HashingEmbedder(), HEAVY, scale.make_rows(turns, rows, seed))
    await engine.dispose()


async def _copy(engine, embedder, user: str, texts: list[str], offset: int = 0) -> None:
    """``texts`` COPYed as ``user``'s rows after ``offset`` of theirs (``scale.copy_rows``)."""
    await scale.copy_rows(engine, embedder, user, texts, offset=offset, batch=5_000)


async def _child_api(url: str, rows: int, seed: int) -> None:
    """The neighbour's app server: ``rows`` rows through ``add_events_to_memory``, then it
    waits for any index build its writes started (the service's own background builder)."""
    from google.adk.events.event import Event
    from google.genai import types

    from adk_memory_kit import PgVectorMemoryService

    turns, _ = scale.load_locomo(_locomo())
    memory = PgVectorMemoryService.from_url(
        url, embedder=scale.HashingEmbedder(), write_policy="full_transcript"
    )
    texts = scale.make_rows(turns, rows, seed)
    base = time.time() - 86_400
    for lo in range(0, rows, 20):
        events = [
            Event(
                id=f"api-{seed}-{i}",
                author="user",
                invocation_id="inv",
                timestamp=base + i,
                content=types.Content(role="user", parts=[types.Part(text=texts[i])]),
            )
            for i in range(lo, min(rows, lo + 20))
        ]
        await memory.add_events_to_memory(
            app_name=APP, user_id=HEAVY, events=events, session_id=f"api-{lo // 200}"
        )
    print("WRITES_DONE", flush=True)  # the parent's 'build' phase starts here
    await memory.store.wait_for_index_builds()
    await memory.close()


async def _child_kit_import(url: str, rows: int, seed: int, priority: str) -> None:
    """The kit's bulk import of ``rows`` facts into the neighbour, in a process of its own."""
    import tempfile

    from adk_memory_kit import PgVectorMemoryService
    from adk_memory_kit.memory.backend_priority import run_as_batch_job

    turns, _ = scale.load_locomo(_locomo())
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "facts.jsonl"
        with source.open("w", encoding="utf-8") as out:
            for i, line in enumerate(scale.make_rows(turns, rows, seed)):
                out.write(json.dumps({"id": f"imp-{seed}-{i}", "text": line}) + "\n")
        memory = PgVectorMemoryService.from_url(
            url, embedder=scale.HashingEmbedder(), write_policy="full_transcript"
        )
        if priority == "low":
            run_as_batch_job(memory.engine)
        await memory.import_memories(
            source, app_name=APP, user_id=HEAVY, state_file=Path(tmp) / "state.json"
        )
        await memory.close()


def _locomo() -> str:
    return os.environ.get(
        "FAIRNESS_LOCOMO", str(Path(__file__).parents[2] / "shared/data/locomo_dev.json")
    )


def _spawn(
    kind: str, url: str, rows: int, seed: int, priority: str = "low"
) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, __file__, "--child", kind, "--url", url, "--rows", str(rows)]
        + ["--seed", str(seed), "--import-priority", priority],
        stdout=subprocess.PIPE,
        text=True,
    )


def _wait_for_line(proc: subprocess.Popen[str], line: str) -> None:
    """Block until ``proc`` prints ``line`` (or exits)."""
    assert proc.stdout is not None
    for got in proc.stdout:
        if got.strip() == line:
            return


# ------------------------------------------------------------------------------ measuring
class Prober:
    """One search at a time, light and neighbour in turn, each stamped with the phase."""

    def __init__(self, memory, queries: list[str], t0: float) -> None:
        self.memory, self.queries, self.t0 = memory, queries, t0
        self.samples: list[dict] = []
        self.phase = "empty"
        self.heavy = False
        self._stop = asyncio.Event()

    async def one(self, user: str, query: str) -> None:
        model = getattr(self.memory.store.embedder, "query_model", None)
        if model is not None:
            model.cache.clear()  # a new question each time: a real query embedding
        t = time.perf_counter()
        await self.memory.search_memory(app_name=APP, user_id=user, query=query)
        ms = (time.perf_counter() - t) * 1000
        self.samples.append({"t": t - self.t0, "user": user, "ms": ms, "phase": self.phase})

    async def run(self) -> None:
        """Searches one at a time, the light user's and (once it has rows) the neighbour's
        in turn, as the issue's measurement interleaved them."""
        i = 0
        while not self._stop.is_set():
            await self.one(LIGHT, self.queries[i % len(self.queries)])
            if self.heavy:
                await self.one(HEAVY, self.queries[(i + 7) % len(self.queries)])
            i += 1
            await asyncio.sleep(0.02)

    def stop(self) -> None:
        self._stop.set()


async def _builds_running(engine) -> int:
    from sqlalchemy import text

    async with engine.connect() as conn:
        return int(
            await conn.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_progress_create_index p"
                    " JOIN pg_database d ON d.oid = p.datid WHERE d.datname = current_database()"
                )
            )
            or 0
        )


async def _watch_builds(engine, t0: float, out: list[tuple[float, int]], stop: asyncio.Event):
    while not stop.is_set():
        out.append((time.perf_counter() - t0, await _builds_running(engine)))
        await asyncio.sleep(0.5)


def _p(values: list[float], pct: float) -> float:
    return scale._percentile(values, pct) if values else float("nan")


def summarise(samples: list[dict]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for phase in PHASES:
        row: dict[str, float] = {}
        for user, key in ((LIGHT, "light"), (HEAVY, "heavy")):
            ms = [s["ms"] for s in samples if s["phase"] == phase and s["user"] == user]
            row[f"{key}_n"] = len(ms)
            row[f"{key}_p50"] = statistics.median(ms) if ms else float("nan")
            row[f"{key}_p95"] = _p(ms, 95)
        out[phase] = row
    return out


async def _fresh_database(url: str) -> str:
    from sqlalchemy import make_url, text
    from sqlalchemy.ext.asyncio import create_async_engine

    name = f"fair_{uuid.uuid4().hex[:8]}"
    admin = create_async_engine(url, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f"CREATE DATABASE {name}"))
    await admin.dispose()
    return make_url(url).set(database=name).render_as_string(hide_password=False)


async def main(args: argparse.Namespace) -> None:
    from adk_memory_kit import PgVectorMemoryService
    from adk_memory_kit.core.scope import operator_scope
    from adk_memory_kit.db import embedded_db_url

    url = await _fresh_database(args.db_url or embedded_db_url())
    query_model = None
    if not args.no_minilm:
        from adk_memory_kit.embedders import LocalMiniLMEmbedder

        query_model = LocalMiniLMEmbedder()
    embedder = scale.HashingEmbedder(query_model)
    memory = PgVectorMemoryService.from_url(url, embedder=embedder, write_policy="full_transcript")
    await memory.ready()
    turns, questions = scale.load_locomo(_locomo())
    with operator_scope():
        await _copy(memory.engine, embedder, LIGHT, scale.make_rows(turns, args.light, seed=500))
        await scale.vacuum(memory.engine)
    queries = scale.make_queries(questions, 80, seed=7)
    for q in queries[:10]:  # warm the pool and caches
        await memory.search_memory(app_name=APP, user_id=LIGHT, query=q)
    t0 = time.perf_counter()
    prober = Prober(memory, queries, t0)
    builds: list[tuple[float, int]] = []
    stop_watch = asyncio.Event()
    watch = asyncio.ensure_future(_watch_builds(memory.engine, t0, builds, stop_watch))
    probe = asyncio.ensure_future(prober.run())
    marks: dict[str, float] = {"empty": 0.0}

    async def until(done) -> None:
        while not await done():
            await asyncio.sleep(0.2)

    await until(lambda: _count(prober, "empty", args.quiet_searches))
    prober.phase, marks["import"] = "import", time.perf_counter() - t0
    prober.heavy = True
    child = _spawn("copy", url, args.heavy, 1)
    await asyncio.to_thread(child.wait)
    if args.kit_import_rows:
        prober.phase, marks["kit_import"] = "kit_import", time.perf_counter() - t0
        child = _spawn("kitimport", url, args.kit_import_rows, 3, args.import_priority)
        await asyncio.to_thread(child.wait)
    prober.phase, marks["load"] = "load", time.perf_counter() - t0
    child = None
    if args.api_rows:
        child = _spawn("api", url, args.api_rows, 2)
        await asyncio.to_thread(_wait_for_line, child, "WRITES_DONE")
    prober.phase, marks["build"] = "build", time.perf_counter() - t0
    if child is not None:
        await asyncio.to_thread(child.wait)  # the neighbour's server waits for its builds
    await memory.store.wait_for_index_builds()  # builds this process started (old code)
    while await _builds_running(memory.engine):
        await asyncio.sleep(0.5)
    prober.phase, marks["after"] = "after", time.perf_counter() - t0
    await until(lambda: _count(prober, "after", args.quiet_searches))
    prober.stop()
    await probe
    stop_watch.set()
    await watch
    marks["end"] = time.perf_counter() - t0
    await memory.close()
    summary = summarise(prober.samples)
    load = os.getloadavg()
    print(f"\n{args.label}: load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")
    print("| phase | seconds | light n | light p50 / p95 ms | heavy p50 / p95 ms |")
    print("|---|---:|---:|---:|---:|")
    phases = [p for p in PHASES if p in marks]
    for i, phase in enumerate(phases):
        r = summary[phase]
        span = marks[phases[i + 1] if i + 1 < len(phases) else "end"] - marks[phase]
        print(
            f"| {phase} | {span:.0f} | {r['light_n']} | {r['light_p50']:.1f} / "
            f"{r['light_p95']:.1f} | {r['heavy_p50']:.1f} / {r['heavy_p95']:.1f} |"
        )
    empty = summary["empty"]["light_p95"]
    for phase in phases[1:]:
        print(f"light p95 {phase} / empty: {summary[phase]['light_p95'] / empty:.2f}x")
    after = summary["after"]
    print(f"heavy p95 after / light p95 after: {after['heavy_p95'] / after['light_p95']:.2f}x")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "label": args.label,
                    "samples": prober.samples,
                    "builds": builds,
                    "marks": marks,
                    "summary": summary,
                    "load": load,
                    "args": vars(args),
                },
                indent=1,
            )
        )
    if args.plot:
        plot(
            [{"label": args.label, "samples": prober.samples, "builds": builds, "marks": marks}],
            args.plot,
        )


async def _count(prober: Prober, phase: str, n: int) -> bool:
    return sum(s["phase"] == phase and s["user"] == LIGHT for s in prober.samples) >= n


def plot(runs: list[dict], path: str) -> None:
    """Latency over time, one panel per run: light (dots) and heavy (crosses) searches, the
    phases shaded, the time an index build ran marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(len(runs), 1, figsize=(11, 3.6 * len(runs)), squeeze=False)
    colours = {
        "empty": "#ffffff",
        "import": "#fde2c8",
        "kit_import": "#f6ecc2",
        "load": "#fbd0d0",
        "build": "#dde8fb",
        "after": "#e2f5e0",
    }
    top = max(s["ms"] for run in runs for s in run["samples"])
    for ax, run in zip(axes[:, 0], runs, strict=True):
        marks = run["marks"]
        order = [p for p in (*PHASES, "end") if p in marks]
        for k, (a, b) in enumerate(zip(order, order[1:], strict=False)):
            if a in marks and b in marks:
                ax.axvspan(marks[a], marks[b], color=colours[a], zorder=0)
                ax.text(marks[a] + 1, top * (0.5 if k % 2 else 0.2), a, fontsize=8)
        building = [t for t, n in run["builds"] if n]
        if building:
            ax.plot(
                building,
                [top * 0.97] * len(building),
                "|",
                color="navy",
                ms=6,
                label="index build running",
            )
        for user, style, name in (
            (LIGHT, "o", "light user (500 rows)"),
            (HEAVY, "x", "neighbour (100k rows)"),
        ):
            pts = [(s["t"], s["ms"]) for s in run["samples"] if s["user"] == user]
            if pts:
                ax.plot(*zip(*pts, strict=True), style, ms=2.5, alpha=0.6, label=name)
        ax.set_yscale("log")
        ax.set_ylabel("search_memory ms")
        ax.set_title(run["label"], fontsize=10)
        ax.legend(loc="upper right", fontsize=7)
    axes[-1, 0].set_xlabel("seconds since the first timed search")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--light", type=int, default=500)
    parser.add_argument("--heavy", type=int, default=100_000)
    parser.add_argument("--api-rows", type=int, default=1_000)
    parser.add_argument("--quiet-searches", type=int, default=60)
    parser.add_argument(
        "--kit-import-rows", type=int, default=2_000, help="facts the kit's import adds (0: none)"
    )
    parser.add_argument("--import-priority", choices=("low", "normal"), default="low")
    parser.add_argument("--no-minilm", action="store_true")
    parser.add_argument("--db-url", default=None)
    parser.add_argument("--label", default="this code")
    parser.add_argument("--json", default=None)
    parser.add_argument("--plot", default=None)
    parser.add_argument("--plot-from", nargs="+", default=None, help="JSON files of runs")
    parser.add_argument("--child", choices=("copy", "api", "kitimport"), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--rows", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    return parser.parse_args()


if __name__ == "__main__":
    args = _args()
    if args.child == "copy":
        asyncio.run(_child_copy(args.url, args.rows, args.seed))
    elif args.child == "api":
        asyncio.run(_child_api(args.url, args.rows, args.seed))
    elif args.child == "kitimport":
        asyncio.run(_child_kit_import(args.url, args.rows, args.seed, args.import_priority))
    elif args.plot_from:
        plot([json.loads(Path(p).read_text()) for p in args.plot_from], args.plot)
    else:
        asyncio.run(main(args))
