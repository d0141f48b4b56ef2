"""Fit the forget scorer (``adk_memory_kit/lifecycle/forget_scorer.py``) on the TUNE split.

Usage::

    python benchmarks/forget_scorer_fit.py [--l2 1.0] [--write]

Reads only the ``split: tune`` forget rows of ``tests/routing/data/edits.jsonl``. Each precise
or broad request is assessed against what the benchmark stores (its target, its neighbour and
three unrelated facts; and, for precise ones, the same without the target), with the real
MiniLM embedder and no database. Prints the rule-only and rule + scorer decisions on the tune
rows, leave-one-row-out (the scorer refitted without the row), and the fitted weights;
``--write`` puts them into the module.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from google.adk.memory.memory_entry import MemoryEntry  # noqa: E402
from google.genai import types  # noqa: E402

from adk_memory_kit.embedders.local import LocalMiniLMEmbedder  # noqa: E402
from adk_memory_kit.lifecycle import forget_scorer  # noqa: E402
from adk_memory_kit.lifecycle.conversation_edits import (  # noqa: E402
    ConversationEdits,
    forget_subject,
    is_vague,
)

CORPUS = ROOT / "tests" / "routing" / "data" / "edits.jsonl"
MODULE = ROOT / "adk_memory_kit" / "lifecycle" / "forget_scorer.py"
FILLER = [
    "I collect old film cameras.",
    "My brother lives in Toronto.",
    "We have a vegetable patch behind the house.",
]


def entry(text: str) -> MemoryEntry:
    return MemoryEntry(author="user", content=types.Content(role="user", parts=[types.Part(text=text)]))


async def cases(edits: ConversationEdits, embedder) -> list[dict]:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
    rows = [r for r in rows if r["split"] == "tune" and r["kind"] in ("forget_precise", "forget_broad")]
    out = []
    for i, row in enumerate(rows):
        subject = forget_subject(row["request"])
        if is_vague(subject):
            continue
        variants = [[row["target"], row["neighbour"], *FILLER]]
        if row["kind"] == "forget_precise":
            variants.append([row["neighbour"], *FILLER])
        for texts in variants:
            seen = await edits.assess(embedder, subject, texts)
            out.append(
                {
                    "row": i,
                    "request": row["request"],
                    "subject": subject,
                    "texts": texts,
                    "seen": seen,
                    "x": forget_scorer.features(seen),
                    "y": np.array([t == row["target"] for t in texts], dtype=float),
                }
            )
    return out


def evaluate(edits: ConversationEdits, case: dict, p: np.ndarray) -> tuple[set[str], int]:
    memories = [entry(t) for t in case["texts"]]
    seen = case["seen"]
    scored = list(zip(memories, seen.scores, seen.own, p, strict=True))
    chosen, ambiguous = edits.decide(case["subject"], scored)
    return {m.content.parts[0].text for m in chosen}, ambiguous


def tally(edits: ConversationEdits, all_cases: list[dict], probs: list[np.ndarray], show: bool):
    honoured = wrong = asked = present = absent_wrong = absent = 0
    for case, p in zip(all_cases, probs, strict=True):
        chosen, ambiguous = evaluate(edits, case, p)
        targets = {t for t, y in zip(case["texts"], case["y"], strict=True) if y}
        if targets:
            present += 1
            ok = chosen == targets
            honoured += ok
            wrong += bool(chosen - targets)
            asked += bool(ambiguous)
            miss = not ok
        else:
            absent += 1
            absent_wrong += bool(chosen)
            miss = bool(chosen)
        if show and miss:
            print(f"  miss: {case['request']!r} chose {sorted(chosen)} asked={ambiguous}"
                  f" p={np.round(p, 2).tolist()}")  # fmt: skip
    print(
        f"  present: honoured {honoured}/{present}, a neighbour taken {wrong}, asked {asked}; "
        f"target never stored: something taken {absent_wrong}/{absent}"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--threshold", type=float, default=0.5)
    parser.add_argument("--show", action="store_true")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    edits = ConversationEdits(learned_min_probability=args.threshold)
    embedder = LocalMiniLMEmbedder()
    all_cases = await cases(edits, embedder)
    x = np.vstack([c["x"] for c in all_cases])
    y = np.concatenate([c["y"] for c in all_cases])
    print(f"{len(all_cases)} cases, {len(y)} memories, {int(y.sum())} targets")
    print("rules only:")
    tally(edits, all_cases, [np.zeros(len(c["texts"])) for c in all_cases], args.show)

    def predict(params, xs):
        mean, scale, w, b = params
        return 1.0 / (1.0 + np.exp(-(((xs - mean) / scale) @ w + b)))

    def masked(case, p):
        return np.where(case["seen"].about_others, 0.0, p)

    full = forget_scorer.fit(x, y, l2=args.l2)
    print("rules + scorer, fitted on all tune rows (in-sample):")
    tally(edits, all_cases, [masked(c, predict(full, c["x"])) for c in all_cases], args.show)
    print("rules + scorer, leave one row out:")
    probs = []
    rows = sorted({c["row"] for c in all_cases})
    fits = {}
    for r in rows:
        keep = [c for c in all_cases if c["row"] != r]
        fits[r] = forget_scorer.fit(
            np.vstack([c["x"] for c in keep]), np.concatenate([c["y"] for c in keep]), l2=args.l2
        )
    for c in all_cases:
        probs.append(masked(c, predict(fits[c["row"]], c["x"])))
    tally(edits, all_cases, probs, args.show)
    mean, scale, w, b = full
    for name, weight in zip(forget_scorer.FEATURES, w, strict=True):
        print(f"  {name:>14} {weight:+.3f}")
    print(f"  {'bias':>14} {b:+.3f}")
    if args.write:

        def arr(v):
            return "np.array([" + ", ".join(f"{float(t):.4f}" for t in v) + "])"

        text = MODULE.read_text(encoding="utf-8")
        text = re.sub(r"MEAN = .*\n", f"MEAN = {arr(mean)}\n", text)
        text = re.sub(r"SCALE = .*\n", f"SCALE = {arr(scale)}\n", text)
        text = re.sub(r"WEIGHTS = .*\n", f"WEIGHTS = {arr(w)}\n", text)
        text = re.sub(r"BIAS = .*\n", f"BIAS = {b:.4f}\n", text)
        MODULE.write_text(text, encoding="utf-8")
        print(f"written to {MODULE.relative_to(ROOT)} (run ruff format)")


if __name__ == "__main__":
    asyncio.run(main())
