"""Write ``adk_memory_kit/routing/data/bank_other_writers.jsonl``: the router's training rows
from the routing corpora other writers wrote for first reads, once they have been read.

Usage::

    python benchmarks/bank_other_writers_build.py [--through 14]

Each corpus ``benchmarks/data/routing_first_read_rN.jsonl`` (N up to ``--through``) was written
by a helper who never read the kit, in a style of its own (personas, dialects, 25+
languages), and read once before anything was tuned on it. After its first read it is an
old corpus, and its messages are the kind of text the router most lacks: its own bank is
English. A message with one expected home becomes a row (``long_term``, ``session`` ->
``session_state``, ``review``, ``drop``, ``none`` -> ``nothing``, ``forget``); a ``user_state``
message becomes ``user_state:<name>`` when ``benchmarks/data/routing_user_state_names.jsonl``
names one preference of the kit's vocabulary for it (labelled by a helper, by meaning), and is
left out otherwise (``standing_choices`` is labelled too, for a vocabulary that may one day
hold it); messages with two homes are left out. Each row's split is the bank's
(a quarter held out by a hash of its text), so ``benchmarks/routing.py`` scores the router on
other writers' sentences it was not trained on as well as on the kit's own.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from adk_memory_kit.profile.presets import DEFAULT_PREFERENCES
from adk_memory_kit.routing.bank import USER_STATE_PREFIX, split_of

HERE = Path(__file__).parent
OUT = HERE.parent / "adk_memory_kit" / "routing" / "data" / "bank_other_writers.jsonl"
#: The issue's own examples, which tests route and no training row may contain
#: (tests/routing/test_learned_router.py: ISSUE_EXAMPLES).
HELD_FOR_TESTS = (
    "everyone calls me sam",
    "for this trip i'm bringing my partner",
    "i'm vegetarian",
    "i always take an aisle seat",
    "stop asking me to confirm prices",
    "i'm travelling to lisbon",
    "which flight is cheaper?",
    "forget what i said",
)
#: Names the helper gave that the kit's vocabulary lacks (a wish about how replies are
#: written, standing choices of brands or times): such a message is left out, like one with
#: no name, until the vocabulary has a home for it.
UNNAMED = frozenset({"reply_style", "standing_choices"}) - set(DEFAULT_PREFERENCES)

LABELS = {
    "long_term": "long_term",
    "session": "session_state",
    "review": "review",
    "drop": "drop",
    "none": "nothing",
    "forget": "forget",
}


def rows(through: int) -> list[dict[str, str]]:
    names = {}
    for line in (HERE / "data" / "routing_user_state_names.jsonl").read_text("utf-8").splitlines():
        if line.strip():
            named = json.loads(line)
            names[named["text"]] = named["label"]
    out, seen = [], set()
    for n in range(1, through + 1):
        path = HERE / "data" / f"routing_first_read_r{n}.jsonl"
        for line in path.read_text("utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if len(row["homes"]) != 1 or row["text"] in seen:
                continue
            if any(quoted in row["text"].lower() for quoted in HELD_FOR_TESTS):
                continue
            home = row["homes"][0]
            label = names.get(row["text"], "none") if home == "user_state" else LABELS[home]
            if label == "none" or label.removeprefix(USER_STATE_PREFIX) in UNNAMED:
                continue
            seen.add(row["text"])
            out.append(
                {
                    "text": row["text"],
                    "label": label,
                    "split": split_of(row["text"]),
                    "from": f"r{n}",
                }
            )
    return out


#: The last first-read corpus read before the shipped rows were written.
LAST_READ = 14


def write_rows(description: str, build: Callable[[int], list[dict]], out: Path) -> int:
    """Parse ``--through``, write ``build(through)``'s rows to ``out`` as JSON lines, say how
    many; returns ``through``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--through", type=int, default=LAST_READ, help="the last corpus read")
    through = parser.parse_args().through
    built = build(through)
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in built), "utf-8")
    print(f"{out.name}: {len(built)} rows, first reads r1-r{through}")
    return through


def main() -> None:
    write_rows(__doc__.splitlines()[0], rows, OUT)


if __name__ == "__main__":
    main()
