"""What MCP adds to a memory search: p95 over streamable HTTP vs a direct call (goal: < 10 ms).

One user's memories are seeded (``--memories`` statements through ``add_memory``), then the same
queries are searched in alternating rounds, so drift on a busy machine hits both sides alike:

* **direct**: ``PgVectorMemoryService.search_memory`` in this process (the kit's own search);
* **direct + framing**: ``MemoryTools.search_memory`` in this process (the search and the recall
  frame the MCP tool returns, without any transport);
* **MCP over HTTP**: ``search_memory`` through the SDK's ``ClientSession`` on one open
  streamable HTTP connection to ``adk-memory-kit mcp --transport http`` running as its own
  process (bearer token checked on every request).

The MCP overhead is the p95 of the third minus the p95 of the first (and of the second: the
transport alone); on a busy machine the tails are noisy, so the p50 and p95 of the per-round
difference (MCP minus direct, same query, back to back) are printed too. Both processes use the
local MiniLM embedder and the same database (the embedded server by default, or ``--db-url``).

    python benchmarks/mcp_roundtrip.py --memories 200 --rounds 200
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx2
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.mcp import TokenFile
from adk_memory_kit.mcp.auth import Identity
from adk_memory_kit.mcp.tools import MemoryTools

SUBJECTS = ["sister", "dentist", "gym", "car", "tea", "cello", "airport", "bank", "dog", "flat"]
PLACES = ["Lisbon", "Porto", "Braga", "Faro", "Coimbra", "Evora", "Aveiro", "Sintra"]
QUERIES = [
    "where does my sister live",
    "my dentist",
    "which gym do I use",
    "what car do I drive",
    "favourite tea",
    "home airport",
    "my dog's name",
    "where is my flat",
]


def statements(n: int) -> list[str]:
    return [
        f"My {SUBJECTS[i % len(SUBJECTS)]} note {i}: it is in {PLACES[i % len(PLACES)]}, "
        f"since {2000 + i % 25}."
        for i in range(n)
    ]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def wait_until_up(url: str, process: subprocess.Popen, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    async with httpx2.AsyncClient() as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise SystemExit(f"the server exited ({process.returncode})")
            try:
                await client.post(url, json={})  # 401 without a token: it is up
                return
            except httpx2.TransportError:
                await asyncio.sleep(0.25)
    raise SystemExit("the server did not start in time")


async def main(args: argparse.Namespace) -> None:
    from adk_memory_kit.db import embedded_db_url

    db_url = args.db_url or os.environ.get("ADK_MEMORY_KIT_DB_URL") or embedded_db_url()
    app, user = "mcp_bench", f"u{uuid.uuid4().hex[:8]}"
    memory = PgVectorMemoryService(db_url)
    await memory.ready()
    entries = [
        MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=t)]), author="user")
        for t in statements(args.memories)
    ]
    for start in range(0, len(entries), 50):
        await memory.add_memory(app_name=app, user_id=user, memories=entries[start : start + 50])
    tools = MemoryTools(memory)
    who = Identity(app, user, "bench")

    folder = Path(tempfile.mkdtemp(prefix="mcp_bench_"))
    token = TokenFile(folder / "tokens.json").issue(app, user)[1]
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = [sys.executable, "-m", "adk_memory_kit.cli", "--db-url", db_url, "mcp"]
    command += ["--transport", "http", "--port", str(port), "--tokens", str(folder / "tokens.json")]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        await wait_until_up(url, server)
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as client:
            async with streamable_http_client(url, http_client=client) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    times: dict[str, list[float]] = {"direct": [], "framed": [], "mcp": []}

                    async def direct(q: str) -> None:
                        await memory.search_memory(app_name=app, user_id=user, query=q, limit=5)

                    async def framed(q: str) -> None:
                        await tools.search_memory(who, q, 5)

                    async def over_mcp(q: str) -> None:
                        result = await session.call_tool("search_memory", {"query": q, "limit": 5})
                        assert not result.is_error, result.content

                    calls = {"direct": direct, "framed": framed, "mcp": over_mcp}
                    for q in QUERIES:  # warm-up: embedder, plans, connections
                        for fn in calls.values():
                            await fn(q)
                    for i in range(args.rounds):
                        q = QUERIES[i % len(QUERIES)]
                        order = list(calls) if i % 2 == 0 else list(reversed(calls))
                        for name in order:
                            t0 = time.perf_counter()
                            await calls[name](q)
                            times[name].append((time.perf_counter() - t0) * 1000)
    finally:
        server.terminate()
        server.wait(timeout=30)
        await tools.close()
        await memory.delete_user_memories(app_name=app, user_id=user)
        await memory.close()

    print(f"{args.memories} memories, {args.rounds} rounds, same queries, alternating order")
    print(f"{'':28}{'p50 ms':>9}{'p95 ms':>9}{'mean ms':>9}")
    labels = {
        "direct": "direct search_memory",
        "framed": "direct + recall frame",
        "mcp": "MCP streamable HTTP",
    }
    for name, label in labels.items():
        v = times[name]
        print(
            f"{label:28}{percentile(v, 0.5):9.2f}{percentile(v, 0.95):9.2f}"
            f"{statistics.fmean(v):9.2f}"
        )
    paired = [m - d for m, d in zip(times["mcp"], times["direct"], strict=True)]
    print(
        f"per-round difference MCP - direct (same query, back to back): "
        f"p50 {percentile(paired, 0.5):.2f} ms, p95 {percentile(paired, 0.95):.2f} ms"
    )
    p95 = {k: percentile(v, 0.95) for k, v in times.items()}
    print(
        f"MCP adds {p95['mcp'] - p95['direct']:.2f} ms at p95 over the direct search "
        f"({p95['mcp'] - p95['framed']:.2f} ms over the framed search: the transport alone); "
        "goal < 10 ms"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--memories", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--db-url", default=None)
    asyncio.run(main(parser.parse_args()))
