"""Write noise: how many stored long-term rows are requests to the agent or its own echoes.

Usage::

    ADK_MEMORY_KIT_HOME=$(mktemp -d) python benchmarks/write_noise.py [--json OUT] [--rows]

The conversations: the sample agents' own (``agents/*/*.evalset.json``: the concierge, the
rebooker, the research assistant, each with its scripted offline model), and the conversation
of issue 46 ("flights please", "flights again", "show me cheaper ones", written here with a
scripted flight agent). Each runs through the real ``Runner`` on ``DatabaseSessionService`` and
``PgVectorMemoryService`` (default, routed write policy) with the kit's default plugins:
``MemoryRoutingPlugin`` (offline router, a review queue on the same database) and
``MemoryCheckpointPlugin`` (every 3 turns); then the session is closed into memory as the
closer does (``add_session_to_memory``).

Every stored row of the user (turn rows written by the session write and the router's own
facts) is labelled by :data:`LABELS`, a hand-made list of (row fragment, label):

* ``command``: a request or command to the agent ("flights please", "Summarize my findings");
* ``echo``: the agent restating a tool's output or recalled memory, or reporting what a tool
  did ("Saved finding 1");
* ``fact``: something said about the user or their world ("My Friday flight was cancelled");
* ``outcome``: the result of an action the user asked for (a confirmed booking);
* ``filler``: a pleasantry ("Safe travels!").

Noise is the share of rows labelled ``command`` or ``echo``; it is given for all rows and for
the session write's own rows (``kind = 'event'``; the router's facts are ``kind = 'fact'``).
A row no
fragment matches is ``unlabelled`` and listed, so the list must be extended when a
conversation changes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import uuid
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.agents.base_agent import BaseAgent
from google.adk.apps.app import App
from google.adk.cli.utils.agent_loader import AgentLoader
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import Runner
from google.adk.sessions import DatabaseSessionService
from google.genai import types
from sqlalchemy import text

from adk_memory_kit import (
    MemoryApplier,
    MemoryCheckpointPlugin,
    MemoryRoutingPlugin,
    PgVectorMemoryService,
    embedded_db_url,
)
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.memory.tables import TABLE
from adk_memory_kit.routing import ReviewQueue
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses, last_user_text

ROOT = Path(__file__).resolve().parent.parent
AGENTS_DIR = ROOT / "agents"
SAMPLES = ("concierge", "rebooker", "research_assistant")
USER = "noise-user"

#: The conversation of issue 46: a user's own flight agent, built from the README.
ISSUE_TURNS = (
    "I live in London and my sister lives in Lisbon.",
    "flights please",
    "show me cheaper ones",
    "flights again",
    "Book the second one.",
    "Thanks, bye!",
)
_FLIGHTS = (
    ("TP1351", "06:10", "09:45", 189),
    ("BA500", "11:25", "15:00", 142),
    ("U27613", "19:40", "23:15", 96),
)


def search_flights(origin: str, destination: str, max_fare: int = 0) -> dict[str, Any]:
    """Flights from origin to destination (an offline stand-in).

    Args:
        origin: departure city.
        destination: arrival city.
        max_fare: the highest fare in euros (0: any).
    """
    flights = [
        {"flight": f, "departs": d, "arrives": a, "fare_eur": p}
        for f, d, a, p in _FLIGHTS
        if not max_fare or p <= max_fare
    ]
    return {"origin": origin, "destination": destination, "flights": flights}


def book_flight(flight: str) -> dict[str, Any]:
    """Book one flight.

    Args:
        flight: the flight number search_flights returned.
    """
    return {"status": "booked", "flight": flight, "booking_ref": "QX7K2P"}


def _listing(flights: Sequence[dict[str, Any]]) -> str:
    return " ".join(
        f"{f['flight']} departs {f['departs']}, arrives {f['arrives']}, {f['fare_eur']} euros."
        for f in flights
    )


def flight_responder(request: LlmRequest) -> list[types.Part] | str:
    """The scripted flight agent: search, list what the tool returned, book."""
    responses = last_function_responses(request)
    if responses:
        name, payload = responses[0].name, responses[0].response or {}
        if name == "search_flights":
            return f"Flights {payload['origin']} to {payload['destination']}: " + _listing(
                payload["flights"]
            )
        return f"Booked {payload['flight']}, booking reference {payload['booking_ref']}."
    said = last_user_text(request).lower()
    if "cheaper" in said:
        return [call("search_flights", origin="London", destination="Lisbon", max_fare=150)]
    if "flights" in said:
        return [call("search_flights", origin="London", destination="Lisbon")]
    if "book" in said:
        return [call("book_flight", flight="BA500")]
    if "bye" in said:
        return "Goodbye!"
    return "Noted."


#: Hand-labelled fragments of every row the conversations store, before and after issue 46.
LABELS: tuple[tuple[str, str], ...] = (
    # concierge
    ("deliver to the pune office reception", "fact"),  # the router's fact (a standing wish)
    ("diet = vegetarian", "echo"),
    ("your profile says", "echo"),
    ("shall i order", "echo"),
    ("can you order lunch", "command"),
    ("session closed", "echo"),
    # rebooker
    ("flight sfo to jfk was cancelled", "fact"),
    ("please rebook me", "command"),
    ("no red-eye; aisle seat", "echo"),
    ("best fit for your constraints", "echo"),
    ("departs thursday", "echo"),
    ("hold it", "command"),
    ("holding ", "echo"),
    ("confirm it", "command"),
    ("you are rebooked", "outcome"),
    ("safe travels", "filler"),
    # research assistant (the agent's rows first: they quote the user's topics)
    ("saved finding", "echo"),
    ("source 1 on", "echo"),
    ("ev charging market in europe", "command"),
    ("heat pump adoption in germany", "command"),
    ("solar panel pricing trends", "command"),
    ("summarize my findings", "command"),
    # issue 46
    ("i live in london", "fact"),
    ("my sister lives in lisbon", "fact"),  # the clause beside "I live in London"
    ("flights please", "command"),
    ("flights again", "command"),
    ("cheaper ones", "command"),
    ("book the second one", "command"),
    ("flights london to lisbon", "echo"),
    ("departs 06:10", "echo"),
    ("departs 11:25", "echo"),
    ("booked ba500", "outcome"),
)
NOISE = frozenset({"command", "echo"})


def label_of(row: str) -> str:
    """The label of the first fragment found in ``row`` (lower-cased), else ``unlabelled``."""
    lowered = row.lower()
    for fragment, label in LABELS:
        if fragment in lowered:
            return label
    return "unlabelled"


def load_agent(name: str) -> tuple[BaseAgent, list[str]]:
    """A sample agent (as ``adk web`` loads it, offline model) and its eval set's user turns."""
    if str(AGENTS_DIR) not in sys.path:
        sys.path.insert(0, str(AGENTS_DIR))
    loaded = AgentLoader(str(AGENTS_DIR)).load_agent(name)
    agent = loaded.root_agent if isinstance(loaded, App) else loaded
    if not isinstance(agent, BaseAgent):
        raise TypeError(f"{name} has no root agent")
    evalset = json.loads((AGENTS_DIR / name / f"{name}.evalset.json").read_text())
    turns = [
        " ".join(p.get("text") or "" for p in inv["user_content"]["parts"])
        for case in evalset["eval_cases"]
        for inv in case["conversation"]
    ]
    return agent, turns


def issue_agent() -> BaseAgent:
    return LlmAgent(
        name="flights",
        model=ScriptedLlm(responder=flight_responder),
        instruction="You find and book flights.",
        tools=[search_flights, book_flight],
    )


async def stored_rows(memory: PgVectorMemoryService, app: str) -> list[tuple[str, str]]:
    """(kind, text) of every row of the user in ``app``."""
    async with operator_connect(memory.engine) as conn:
        rows = await conn.execute(
            text(f"SELECT kind, text FROM {TABLE} WHERE app_name = :app AND user_id = :user"),
            {"app": app, "user": USER},
        )
        return [(str(r.kind), str(r.text)) for r in rows]


async def run_conversation(
    name: str,
    agent: BaseAgent,
    turns: Sequence[str],
    sessions: DatabaseSessionService,
    memory: PgVectorMemoryService,
    queue: ReviewQueue,
) -> list[tuple[str, str]]:
    """Run ``turns`` in one session with the default plugins, close it into memory, and
    return the user's stored rows."""
    app_name = f"noise_{name}_{uuid.uuid4().hex[:8]}"
    routing = MemoryRoutingPlugin(applier=MemoryApplier(review_queue=queue))
    app = App(
        name=app_name,
        root_agent=agent,
        plugins=[routing, MemoryCheckpointPlugin(every_n_invocations=3)],
    )
    runner = Runner(app=app, session_service=sessions, memory_service=memory)
    try:
        session = await sessions.create_session(app_name=app_name, user_id=USER)
        for said in turns:
            message = types.Content(role="user", parts=[types.Part(text=said)])
            async for _ in runner.run_async(
                user_id=USER, session_id=session.id, new_message=message
            ):
                pass
        full = await sessions.get_session(app_name=app_name, user_id=USER, session_id=session.id)
        assert full is not None
        await memory.add_session_to_memory(full)  # what the closer and the idle job do
        return await stored_rows(memory, app_name)
    finally:
        await runner.close()


async def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", dest="json_out", default=None, help="write results here")
    parser.add_argument("--rows", action="store_true", help="print every stored row")
    args = parser.parse_args(argv)

    conversations: list[tuple[str, BaseAgent, list[str]]] = [
        (name, *load_agent(name)) for name in SAMPLES
    ]
    conversations.append(("issue46_flights", issue_agent(), list(ISSUE_TURNS)))
    db_url = embedded_db_url()
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService()
    queue = ReviewQueue()
    results: dict[str, Any] = {}
    try:
        for name, agent, turns in conversations:
            rows = await run_conversation(name, agent, turns, sessions, memory, queue)
            labelled = [(label_of(t), kind, t) for kind, t in rows]
            counts = Counter(label for label, _, _ in labelled)
            results[name] = {
                "rows": len(rows),
                "labels": dict(counts),
                "noise": sum(counts[n] for n in NOISE),
                "session_rows": sum(1 for _, kind, _ in labelled if kind == "event"),
                "session_noise": sum(
                    1 for label, kind, _ in labelled if kind == "event" and label in NOISE
                ),
                "stored": [{"label": lb, "kind": k, "text": t} for lb, k, t in labelled],
            }
            for label, kind, row in labelled:
                if args.rows or label == "unlabelled":
                    print(f"  [{name}] {label:10} {kind:6} {row[:110]}", file=sys.stderr)
    finally:
        await queue.close()
        await memory.close()
        await sessions.close()

    def line(title: str, names: Sequence[str]) -> str:
        def total(key: str) -> int:
            return sum(results[n][key] for n in names)

        labels: Counter[str] = Counter()
        for n in names:
            labels.update(results[n]["labels"])
        rows, noise = total("rows"), total("noise")
        s_rows, s_noise = total("session_rows"), total("session_noise")
        parts = ", ".join(f"{k} {v}" for k, v in sorted(labels.items()))
        return (
            f"| {title} | {noise}/{rows} ({noise / max(rows, 1):.0%}) | "
            f"{s_noise}/{s_rows} ({s_noise / max(s_rows, 1):.0%}) | {parts} |"
        )

    print(
        "| conversations | commands + echoes / rows stored | of which the session write's "
        "| labels (all rows) |"
    )
    print("|---|---:|---:|---|")
    for name in results:
        print(line(name, [name]))
    print(line("the three samples", list(SAMPLES)))
    print(line("all four", list(results)))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(results, indent=2))
    unlabelled = sum(r["labels"].get("unlabelled", 0) for r in results.values())
    return 1 if unlabelled else 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
