"""First reads of routing corpora written by people who never read the kit.

Usage::

    python benchmarks/routing_first_read.py --corpus benchmarks/data/routing_first_read_r1.jsonl
        [--show-misses] [--json OUT]

Each row is one user message with the homes its writer expects, in order
(``{"text": ..., "homes": ["long_term", "session"], "why": ...}``; homes from ``user_state``,
``long_term``, ``session``, ``review``, ``drop``, ``none``, ``forget``). The message goes
through the default extractor of ``MemoryRoutingPlugin()`` (the offline router) and the
applier's checks (``MemoryApplier.classify``: detectors, instruction guard, the rule). The
homes it yields are compared with the expected ones; ``temp:`` scratch counts as nothing kept.

Reported: exact (the message's set of homes equals the expected set), per first expected home
(that home among the predicted ones, and exact), two-home messages, and the harms: a message
with sensitive data that reached a store (long-term, ``user:`` or session state; of those,
the ones dropped with only a part stored in which the detectors find nothing, such as the
task beside a secret), and a
``user:`` value written by a message that states no lasting preference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from google.adk.events.event import Event
from google.genai import types

from adk_memory_kit.routing import MemoryApplier, MemoryHome, detect_sensitive
from adk_memory_kit.routing.offline import shared_learned_extractor

H = MemoryHome
LABEL = {
    H.USER_STATE: "user_state",
    H.LONG_TERM: "long_term",
    H.SESSION_STATE: "session",
    H.PROCEDURAL_REVIEW: "review",
    H.DROP: "drop",
    H.FORGET: "forget",
}
HOMES = ("user_state", "long_term", "session", "review", "drop", "none", "forget")
STORES = {"user_state", "long_term", "session"}


def event(text: str) -> Event:
    return Event(
        author="user",
        invocation_id="first-read",
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        timestamp=datetime(2026, 12, 6, tzinfo=timezone.utc).timestamp(),
    )


async def predicted_homes(text: str, applier: MemoryApplier) -> set[str]:
    """The homes the default router gives ``text`` (temp: scratch and nothing: empty)."""
    return (await _routed(text, applier))[0]


async def _routed(text: str, applier: MemoryApplier) -> tuple[set[str], bool]:
    """The homes, and whether the message was dropped with only parts of it stored, each a
    strict part of it in which the detectors find nothing (a task beside a secret)."""
    candidates = await shared_learned_extractor().extract([event(text)])
    homes = set()
    stored = []
    for candidate in candidates:
        home = applier.classify(candidate)[1]
        if home in LABEL:
            homes.add(LABEL[home])
            if LABEL[home] in STORES:
                stored.append(candidate.text)
    parts_only = (
        "drop" in homes
        and bool(stored)
        and all(t.strip() != text.strip() and not detect_sensitive(t) for t in stored)
    )
    return homes, parts_only


def load(path: Path) -> list[dict]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        bad = [h for h in row["homes"] if h not in HOMES]
        if bad or not row["homes"]:
            raise SystemExit(f"{path}:{number}: unknown or missing homes {bad}")
        rows.append(row)
    return rows


async def score(rows: list[dict], show_misses: bool) -> dict:
    applier = MemoryApplier(review_queue=None)
    by_first: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # reached, exact, n
    exact = two = two_exact = leaks = parts = user_writes = 0
    misses = []
    for row in rows:
        expected = {h for h in row["homes"] if h != "none"}
        got, parts_only = await _routed(row["text"], applier)
        first = row["homes"][0]
        hit = got == expected
        exact += hit
        counts = by_first[first]
        counts[0] += (first in got) if first != "none" else not got
        counts[1] += hit
        counts[2] += 1
        if len(expected) >= 2:
            two += 1
            two_exact += hit
        if "drop" in expected and got & STORES and not (expected & STORES):
            leaks += 1
            parts += parts_only
        if "user_state" in got and "user_state" not in expected:
            user_writes += 1
        if not hit:
            misses.append((row["homes"], sorted(got), row["text"]))
    if show_misses:
        for want, got, text in misses:
            print(f"want {want} got {got}: {text}")
    return {
        "rows": len(rows),
        "exact": exact,
        "by_first_home": {h: tuple(by_first[h]) for h in HOMES if h in by_first},
        "two_home": (two_exact, two),
        "sensitive_to_a_store": leaks,
        "of_which_only_a_part_without_findings": parts,
        "user_state_written_without_a_preference": user_writes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", required=True, type=Path)
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--json", default=None, help="write the figures here")
    args = parser.parse_args()
    figures = asyncio.run(score(load(args.corpus), args.show_misses))
    n = figures["rows"]
    print(f"{args.corpus.name}: exact {figures['exact']} / {n} ({figures['exact'] / n:.3f})")
    print("first expected home: reached / exact / messages")
    for home, (reached, hit, total) in figures["by_first_home"].items():
        print(f"  {home:<11} {reached:>3} / {hit:>3} / {total}")
    two_exact, two = figures["two_home"]
    print(f"two-home messages exact: {two_exact} / {two}")
    print(f"sensitive messages that reached a store: {figures['sensitive_to_a_store']}")
    print(
        "  of which the message was dropped and only a part without findings was stored: "
        f"{figures['of_which_only_a_part_without_findings']}"
    )
    spurious = figures["user_state_written_without_a_preference"]
    print(f"user: written without a stated preference: {spurious}")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
