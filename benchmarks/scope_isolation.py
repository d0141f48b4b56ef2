"""Scope isolation probe (issue 47): searches across apps, users, agents and groups, counting
every result the caller is not entitled to (goal: 0).

The world: ``--apps`` apps, each with ``--users`` users, ``--agents`` agents and ``--groups``
groups. Every owner holds rows whose text is deliberately near-identical to every other
owner's (same sentence, another owner's name and number), so a search that leaked would rank
the other owner's rows high:

* each user: their own rows (scope ``user``) and, per agent, rows private to that agent
  (``agent:<name>``);
* each app: shared rows (``app``), written by the operator path (``add_shared_memory``);
* each group: shared rows (``group:<name>``), granted to about half of the app's users.

Every search (each app x user x calling agent, ``None`` included, x query) is checked row by
row against the truth recorded at write time (the row id's app, owner and scope): a result is
a violation unless it is the caller's own ``user`` row, the calling agent's private row of the
caller, the caller's app's shared row, or a shared row of a group granted to the caller, and
its reported scope is its stored one. The same check runs through the MCP server (``--mcp``):
a real MCP client over streamable HTTP, one bearer token per user, the ``search_memory`` tool.

    python benchmarks/scope_isolation.py            # 528 direct searches
    python benchmarks/scope_isolation.py --mcp      # and 144 over MCP HTTP
    python benchmarks/scope_isolation.py --rls      # the same with row-level security on
    python benchmarks/scope_isolation.py --overhead 200   # what scopes add to a plain search
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.memory_scopes import agent_scope, group_scope

TOPICS = [
    ("travel budget", "The {who} travel budget for the Pune trip is {n} euros"),
    ("office days", "{who} works from the Pune office on {day}s"),
    ("invoice email", "Invoices for {who} go by email to the billing desk {n}"),
    ("meeting room", "The {who} meeting room booking code is R-{n}"),
]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
QUERIES = [
    "travel budget Pune trip",
    "which day in the Pune office",
    "where do invoices go",
    "meeting room booking code",
    "budget euros",
    "office Friday",
    "billing desk email",
    "room code",
    "Pune",
    "what is my booking code",
    "how much is the travel budget",
]


@dataclass
class World:
    """The truth: every written row's (app, owner user or None, scope)."""

    apps: list[str]
    users: list[str]
    agents: list[str]
    groups: list[str]
    grants: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    rows: dict[str, tuple[str, str | None, str]] = field(default_factory=dict)


def _texts(who: str, seed: int) -> list[str]:
    return [
        template.format(who=who, n=100 + (seed * 7 + i) % 900, day=DAYS[(seed + i) % len(DAYS)])
        for i, (_, template) in enumerate(TOPICS)
    ]


def _ids(report) -> list[str]:
    return [o.memory_id for o in report.outcomes if o.memory_id]


async def build(memory: PgVectorMemoryService, args: argparse.Namespace) -> World:
    tag = uuid.uuid4().hex[:6]
    world = World(
        apps=[f"iso{tag}_app{a}" for a in range(args.apps)],
        users=[f"user{u}" for u in range(args.users)],
        agents=[f"agent{g}" for g in range(args.agents)],
        groups=[f"team{g}" for g in range(args.groups)],
    )
    seed = 0
    for app in world.apps:
        for ui, user in enumerate(world.users):
            seed += 1
            report = await memory.add_memory(
                app_name=app, user_id=user, memories=_entries(_texts(user, seed))
            )
            world.rows.update({i: (app, user, "user") for i in _ids(report)})
            for agent in world.agents:
                seed += 1
                report = await memory.add_agent_memory(
                    app_name=app,
                    user_id=user,
                    agent_name=agent,
                    memories=_texts(f"{user} ({agent})", seed),
                )
                world.rows.update({i: (app, user, agent_scope(agent)) for i in _ids(report)})
            granted = {g for gi, g in enumerate(world.groups) if (ui + gi) % 2 == 0}
            for group in granted:
                await memory.grant_group(app_name=app, user_id=user, group=group)
            world.grants[(app, user)] = granted
        seed += 1
        report = await memory.add_shared_memory(app_name=app, memories=_texts("the team", seed))
        world.rows.update({i: (app, None, "app") for i in _ids(report)})
        for group in world.groups:
            seed += 1
            report = await memory.add_shared_memory(
                app_name=app, memories=_texts(f"{group} team", seed), scope=f"group:{group}"
            )
            world.rows.update({i: (app, None, group_scope(group)) for i in _ids(report)})
    return world


def _entries(texts: list[str]):
    from google.adk.memory.memory_entry import MemoryEntry
    from google.genai import types

    return [
        MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=t)])) for t in texts
    ]


def entitled(world: World, app: str, user: str, agent: str | None, row_id: str) -> bool:
    """Whether the caller (app, user, calling agent) may read row ``row_id``."""
    if row_id not in world.rows:
        return False  # not a row of this world: never entitled
    row_app, owner, scope = world.rows[row_id]
    if row_app != app:
        return False
    if scope == "user":
        return owner == user
    if scope.startswith("agent:"):
        return owner == user and agent is not None and scope == agent_scope(agent)
    if scope == "app":
        return True
    return scope.startswith("group:") and scope[len("group:") :] in world.grants[(app, user)]


@dataclass
class Tally:
    searches: int = 0
    results: int = 0
    violations: int = 0
    wrong_scope: int = 0
    by_scope: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def line(self, label: str) -> str:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(self.by_scope.items()))
        return (
            f"{label}: {self.searches} searches, {self.results} results ({kinds}); "
            f"not entitled: {self.violations}; scope mislabelled: {self.wrong_scope}; "
            f"{self.seconds / max(self.searches, 1) * 1000:.1f} ms a search"
        )


async def probe_direct(memory: PgVectorMemoryService, world: World) -> Tally:
    tally = Tally()
    started = time.perf_counter()
    for app in world.apps:
        for user in world.users:
            for agent in [None, *world.agents]:
                for query in QUERIES:
                    found = await memory.search(
                        app_name=app,
                        user_id=user,
                        query=query,
                        limit=20,
                        agent_name=agent,
                        record_access=False,
                    )
                    tally.searches += 1
                    for m in found.memories:
                        tally.results += 1
                        scope = (m.custom_metadata or {}).get("scope", "?")
                        tally.by_scope[scope.split(":")[0]] += 1
                        if not entitled(world, app, user, agent, str(m.id)):
                            tally.violations += 1
                        elif world.rows[str(m.id)][2] != scope:
                            tally.wrong_scope += 1
    tally.seconds = time.perf_counter() - started
    return tally


async def probe_mcp(db_url: str, world: World, queries_per_user: int) -> Tally:
    """The same check through ``adk-memory-kit mcp --transport http`` and a real client."""
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from mcp_roundtrip import free_port, wait_until_up

    from adk_memory_kit.mcp import TokenFile

    folder = Path(tempfile.mkdtemp(prefix="scope_iso_"))
    tokens = TokenFile(folder / "tokens.json")
    issued = {(a, u): tokens.issue(a, u)[1] for a in world.apps for u in world.users}
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = [sys.executable, "-m", "adk_memory_kit.cli", "--db-url", db_url, "mcp"]
    command += ["--transport", "http", "--port", str(port), "--tokens", str(folder / "tokens.json")]
    import subprocess

    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tally = Tally()
    started = time.perf_counter()
    try:
        await wait_until_up(url, server)
        for (app, user), token in issued.items():
            headers = {"Authorization": f"Bearer {token}"}
            async with httpx2.AsyncClient(headers=headers, timeout=120) as client:
                async with streamable_http_client(url, http_client=client) as (read, write):
                    async with ClientSession(read, write) as session:
                        await session.initialize()
                        for query in QUERIES[:queries_per_user]:
                            # a forged user id in the arguments is ignored by the server
                            result = await session.call_tool(
                                "search_memory",
                                {"query": query, "limit": 20, "user_id": "user0"},
                            )
                            tally.searches += 1
                            assert not result.is_error, result.content
                            data = result.structured_content
                            if not isinstance(data, dict) or "ids" not in data:
                                data = _json_of(result)
                            for row_id in data.get("ids") or []:
                                tally.results += 1
                                truth = world.rows.get(str(row_id), ("", None, "unknown"))
                                tally.by_scope[truth[2].split(":")[0]] += 1
                                if not entitled(world, app, user, None, str(row_id)):
                                    tally.violations += 1
    finally:
        server.terminate()
        server.wait(timeout=30)
    tally.seconds = time.perf_counter() - started
    return tally


def _json_of(result) -> dict:
    import json

    for part in result.content or []:
        try:
            value = json.loads(getattr(part, "text", "") or "")
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return {}


async def overhead(memory: PgVectorMemoryService, rounds: int) -> str:
    """What scopes add to a plain search: one user of an app with no shared rows, searched
    by ``service.search`` (the entitled-owners probe, then the user's search) and by the
    store's one-owner search, alternating, same queries; p50 / p95 in ms."""
    from adk_memory_kit.memory.entries import search_filters

    app, user = f"iso_overhead_{uuid.uuid4().hex[:6]}", "solo"
    texts = [t for i in range(40) for t in _texts(f"solo{i}", i)]
    for start in range(0, len(texts), 40):
        await memory.add_memory(
            app_name=app, user_id=user, memories=_entries(texts[start : start + 40])
        )
    filters = search_filters(None, None, None, False)
    times: dict[str, list[float]] = {"scoped": [], "one owner": []}
    try:
        for i in range(rounds + len(QUERIES)):
            query = QUERIES[i % len(QUERIES)]
            order = ["scoped", "one owner"] if i % 2 == 0 else ["one owner", "scoped"]
            for name in order:
                t0 = time.perf_counter()
                if name == "scoped":
                    await memory.search(
                        app_name=app, user_id=user, query=query, limit=10, record_access=False
                    )
                else:
                    await memory.store.search_rows(
                        app_name=app, user_id=user, query=query, limit=10, filters=filters
                    )
                if i >= len(QUERIES):  # the first round of queries warms up
                    times[name].append((time.perf_counter() - t0) * 1000)
    finally:
        await memory.delete_user_memories(app_name=app, user_id=user)

    def pct(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]

    return (
        "; ".join(
            f"{name}: p50 {pct(v, 0.5):.2f} ms, p95 {pct(v, 0.95):.2f} ms"
            for name, v in times.items()
        )
        + f" ({len(texts)} rows, {rounds} searches each, no shared rows in the app)"
    )


async def cleanup(memory: PgVectorMemoryService, world: World) -> None:
    for app in world.apps:
        for user in world.users:
            await memory.delete_user_memories(app_name=app, user_id=user)
            for group in world.grants[(app, user)]:
                await memory.revoke_group(app_name=app, user_id=user, group=group)
    for row_id, (app, owner, scope) in world.rows.items():
        if owner is None:
            await memory.delete_shared_memory(app_name=app, scope=scope, memory_id=row_id)


async def main(args: argparse.Namespace) -> int:
    from adk_memory_kit.db import embedded_db_url
    from adk_memory_kit.db.engine import make_engine

    db_url = args.db_url or os.environ.get("ADK_MEMORY_KIT_DB_URL") or embedded_db_url()
    engine = make_engine(db_url, rls_enabled=True) if args.rls else None
    memory = PgVectorMemoryService(db_url, engine=engine)
    await memory.ready()
    world = await build(memory, args)
    try:
        direct = await probe_direct(memory, world)
        mcp = await probe_mcp(db_url, world, args.mcp_queries) if args.mcp else None
        cost = await overhead(memory, args.overhead) if args.overhead else None
    finally:
        await cleanup(memory, world)
        await memory.close()
        if engine is not None:
            await engine.dispose()
    print(
        f"world: {len(world.apps)} apps x {len(world.users)} users x {len(world.agents)} "
        f"agents, {len(world.groups)} groups; {len(world.rows)} rows of near-identical text "
        f"(row-level security {'on' if args.rls else 'off'})"
    )
    print(direct.line("direct search (ADK search + agents)"))
    total = direct.violations + direct.wrong_scope
    if mcp is not None:
        print(mcp.line("MCP search_memory over HTTP"))
        total += mcp.violations
    print(f"cross-scope or cross-user reads: {total} (goal: 0)")
    if cost is not None:
        print(f"default search with scopes vs the one-owner search: {cost}")
    return 0 if total == 0 else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--apps", type=int, default=3)
    parser.add_argument("--users", type=int, default=4)
    parser.add_argument("--agents", type=int, default=3)
    parser.add_argument("--groups", type=int, default=2)
    parser.add_argument("--mcp", action="store_true", help="also probe through the MCP server")
    parser.add_argument("--mcp-queries", type=int, default=len(QUERIES))
    parser.add_argument("--rls", action="store_true", help="row-level security on")
    parser.add_argument(
        "--overhead",
        type=int,
        default=0,
        help="also time N default searches against the one-owner search (no shared rows)",
    )
    parser.add_argument("--db-url", default=None)
    sys.exit(asyncio.run(main(parser.parse_args())))
