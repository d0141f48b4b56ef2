"""Ingestion cost per turn with and without the write policy asking the offline router.

Usage::

    python benchmarks/routing_ingest_cost.py [--sessions 20]

Each session is 5 user turns (bank sentences, held-out split) with an agent reply each,
ingested with ``add_session_to_memory`` under the default ROUTED policy on the embedded
PostgreSQL and the real MiniLM embedder: once with ``sentence_router=None`` (the policy
before issue #24/#29) and once with the default (the offline router asked about every user
sentence no router gave a home). Prints the median and p95 milliseconds per turn of each,
interleaved session by session so machine load hits both alike. A third row ingests the
same turns after the offline router classified them in this process, as the routing plugin
does during the conversation (its decisions are cached by text).
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
from adk_memory_kit.routing.bank import load_bank  # noqa: E402
from adk_memory_kit.routing.offline import shared_learned_extractor  # noqa: E402
from adk_memory_kit.write_policy import RoutedOptions  # noqa: E402
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
    before = PgVectorMemoryService(url, routed_options=RoutedOptions(sentence_router=None))
    after = PgVectorMemoryService(url)
    texts = [e.text for e in load_bank() if e.split == "heldout"]
    warm = session(texts[:TURNS])
    await before.add_session_to_memory(warm)
    await after.add_session_to_memory(session(texts[:TURNS]))
    times: dict[str, list[float]] = {"before": [], "after": []}
    for n in range(args.sessions):
        chunk = [texts[(n * TURNS + k) % len(texts)] for k in range(TURNS)]
        for name, service in (("before", before), ("after", after)):
            started = time.perf_counter()
            await service.add_session_to_memory(session(chunk))
            times[name].append((time.perf_counter() - started) * 1000 / TURNS)
        # the default stack: the routing plugin classified these turns in this process first
        router = shared_learned_extractor()
        await router.route_sentences([(t, None) for t in chunk])
        started = time.perf_counter()
        await after.add_session_to_memory(session(chunk))
        times.setdefault("after, turns routed first", []).append(
            (time.perf_counter() - started) * 1000 / TURNS
        )
    await before.close()
    await after.close()
    med = {k: statistics.median(v) for k, v in times.items()}
    p95 = {k: statistics.quantiles(v, n=20)[-1] for k, v in times.items()}
    print("| ingestion, ms per turn | median | p95 |")
    print("|---|---|---|")
    for name in times:
        print(f"| {name} | {med[name]:.1f} | {p95[name]:.1f} |")
        print(f"|   change of the median | {100 * (med[name] / med['before'] - 1):+.0f}% | |")


if __name__ == "__main__":
    asyncio.run(main())
