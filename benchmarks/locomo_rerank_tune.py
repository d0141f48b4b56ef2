"""Tune the read-time re-orderings (memory/rerank.py) offline on a LoCoMo dump.

Usage::

    python benchmarks/locomo_retrieval.py locomo_dev.json --services pgvector_routed \
        --routed-cache routed.pkl --depth 50 --dump dump.json --split tune \
        --search-option session_weight=0 --search-option neighbour_weight=0
    python benchmarks/locomo_rerank_tune.py dump.json --sessions routed.pkl

Dump with both weights 0: a returned row's score is its re-ordered one, so a dump taken
with the re-orderings on would be re-ordered twice here. The dump holds every question's
top 50 fused rows (turn, session, event, fused score). Each grid point re-orders them with
:func:`adk_memory_kit.memory.rerank.rerank` itself, the rows rebuilt with the indexed text
and context ingestion gives them (the default ``IndexingOptions``, so the dump must come
from an ingestion with the default window, two turns either side; from the sessions as
stored: ``--sessions`` is the routed selection cache, or omit it for the full transcript),
and Recall@10 is reported on the tuning split (conversations 0-3) and the held-out one.
Choose on the tuning split only. Not replayed: the present-tense newest-first step (the
dump holds no question text); it moves few rows (on the routed tuning split the grid's
point at the defaults was within 0.001 of the service's R@10).
"""

from __future__ import annotations

import argparse
import itertools
import json
import pickle
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from locomo_retrieval import TUNE_CONVERSATIONS, Conversation, load, recall  # noqa: E402

from adk_memory_kit.memory.rerank import rerank  # noqa: E402


def texts_by_event(convs: list[Any], options: Any = None) -> dict[str, tuple[str, str]]:
    """event id -> (indexed text, context text) exactly as ingestion builds them
    (``documents_from_events`` with the default ``IndexingOptions``, or ``options``)."""
    from adk_memory_kit.memory.config import IndexingOptions
    from adk_memory_kit.memory.documents import documents_from_events

    options = options or IndexingOptions()
    out: dict[str, tuple[str, str]] = {}
    for conv in convs:
        for session in conv.sessions:
            docs = documents_from_events(
                "locomo", conv.user_id, session.id, list(session.events), options
            )
            for doc in docs:
                out[doc.event_id] = (doc.search_text, doc.context_text)
    return out


def _mean(values: list[float]) -> str:
    """The mean to 4 places; ``-`` for a split the dump does not hold."""
    return f"{statistics.fmean(values):.4f}" if values else "-"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dump")
    parser.add_argument("--data", default="/work/shared/data/locomo_dev.json")
    parser.add_argument("--sessions", default=None, help="routed selection cache (pickle)")
    parser.add_argument("--session-weights", default="0,0.05,0.1,0.2,0.3,0.5")
    parser.add_argument("--neighbour-weights", default="0,0.1,0.2,0.3,0.5")
    args = parser.parse_args()
    if args.sessions:
        # the cache was pickled by locomo_retrieval.py run as a script (__main__)
        sys.modules["__main__"].Conversation = Conversation  # type: ignore[attr-defined]
        with open(args.sessions, "rb") as fh:
            loaded = pickle.load(fh)
        convs = loaded["conversations"] if isinstance(loaded, dict) else loaded
    else:
        convs, _, _ = load(args.data, None)
    texts = texts_by_event(convs)
    dump = json.loads(Path(args.dump).read_text())
    grid = itertools.product(
        [float(x) for x in args.session_weights.split(",")],
        [float(x) for x in args.neighbour_weights.split(",")],
    )
    print("| session_weight | neighbour_weight | tune R@10 | held-out R@10 | tune R@5 |")
    print("|---:|---:|---:|---:|---:|")
    for sw, nw in grid:
        by_split: dict[str, list[float]] = {"tune": [], "heldout": [], "tune5": []}
        for q in dump:
            rows = []
            for g in q["got"]:
                own, context = texts.get(g["eid"], ("", ""))
                rows.append(
                    {
                        "dia": g["dia"],
                        "score": g["fused"],
                        "session_id": g["sid"],
                        "search_text": own,
                        "context_text": context,
                        "valid_to": None,
                    }
                )
            out = rerank(rows, session_weight=sw, neighbour_weight=nw, limit=10)
            ranked = list(dict.fromkeys(r["dia"] for r in out if r["dia"]))
            split = "tune" if q["conv"] < TUNE_CONVERSATIONS else "heldout"
            by_split[split].append(recall(ranked, q["evidence"], 10))
            if split == "tune":
                by_split["tune5"].append(recall(ranked, q["evidence"], 5))
        print(
            f"| {sw} | {nw} | {statistics.fmean(by_split['tune']):.4f}"
            f" | {_mean(by_split['heldout'])}"
            f" | {statistics.fmean(by_split['tune5']):.4f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
