"""Ingestion cost per turn with and without the write policy asking the offline router.

Usage::

    python benchmarks/routing_ingest_cost.py [--sessions 20]

Each session is 5 user turns (bank sentences, held-out split) with an agent reply each,
ingested with ``add_session_to_memory`` under the default ROUTED policy on the embedded
PostgreSQL and the real MiniLM embedder: once with ``sentence_router=None`` (the policy
before issue #24/#29) and once with the default (the offline router asked about every user
sentence no router gave a home). Prints the median and p95 milliseconds per turn of each,
interleaved session by session so machine load hits both alike, in wall time and in this
process's CPU time (the database server's CPU is the same for both and not counted). Every
timed ingestion starts with the embedder's vector cache empty, so the store's vectors of the
"after" row come from the model unless the router embedded the same text in that very call
(``user: <sentence>``: what the cache is for). A third row ingests the same turns after the
offline router classified them in this process, as the routing plugin does during the
conversation (its decisions, and the vectors, are then cached by text).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from google.adk.sessions.session import Session  # noqa: E402

from adk_memory_kit import PgVectorMemoryService  # noqa: E402
from adk_memory_kit.db import embedded_db_url  # noqa: E402
from adk_memory_kit.embedders.local import shared_cache  # noqa: E402
from adk_memory_kit.routing.bank import load_bank  # noqa: E402
from adk_memory_kit.routing.offline import shared_learned_extractor  # noqa: E402
from adk_memory_kit.routing.write_policy import RoutedOptions  # noqa: E402
from tests.support.routing import model_event, user_event  # noqa: E402

TURNS = 5


def session(texts: list[str]) -> Session:
    events = []
    for i, text in enumerate(texts):
        invocation = f"inv-{i}"
        events.append(user_event(text, invocation_id=invocation))
        events.append(model_event("Sure, I can help with that.", invocation_id=invocation))
    return Session(
        id=uuid.uuid4().hex, app_name="cost", user_id=uuid.uuid4().hex[:8], events=events
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=20)
    args = parser.parse_args()
    url = embedded_db_url()
    before = PgVectorMemoryService.from_url(url, routed_options=RoutedOptions(sentence_router=None))
    after = PgVectorMemoryService(url)
    texts = [e.text for e in load_bank() if e.split == "heldout"]
    warm = session(texts[:TURNS])
    await before.add_session_to_memory(warm)
    await after.add_session_to_memory(session(texts[:TURNS]))
    router = shared_learned_extractor()
    cache = shared_cache(256)  # the default embedders' vectors (the store's and the router's)
    names = ("before", "after", "after, turns routed first")
    wall: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}

    async def timed(name: str, service: PgVectorMemoryService, chunk: list[str]) -> None:
        started, cpu_started = time.perf_counter(), time.process_time()
        await service.add_session_to_memory(session(chunk))
        wall[name].append((time.perf_counter() - started) * 1000 / TURNS)
        cpu[name].append((time.process_time() - cpu_started) * 1000 / TURNS)

    for n in range(args.sessions):
        chunk = [texts[(n * TURNS + k) % len(texts)] for k in range(TURNS)]
        order = (("before", before), ("after", after))
        for name, service in order if n % 2 == 0 else order[::-1]:
            router.router._cache.clear()  # cold: no decision and no vector remembered
            cache.clear()
            await timed(name, service, chunk)
        # the default stack: the routing plugin classified these turns in this process first
        router.router._cache.clear()
        cache.clear()
        await router.route_sentences([(t, None) for t in chunk])
        await timed("after, turns routed first", after, chunk)
    await before.close()
    await after.close()
    print("| ingestion, ms per turn | wall median | wall p95 | CPU median | CPU p95 |")
    print("|---|---|---|---|---|")
    for name in names:
        w, c = wall[name], cpu[name]
        print(
            f"| {name} | {statistics.median(w):.1f} | {statistics.quantiles(w, n=20)[-1]:.1f} "
            f"| {statistics.median(c):.1f} | {statistics.quantiles(c, n=20)[-1]:.1f} |"
        )
        change_w = 100 * (statistics.median(w) / statistics.median(wall["before"]) - 1)
        change_c = 100 * (statistics.median(c) / statistics.median(cpu["before"]) - 1)
        print(f"|   change of the median | {change_w:+.0f}% | | {change_c:+.0f}% | |")


if __name__ == "__main__":
    asyncio.run(main())
