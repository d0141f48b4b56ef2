"""Study: would a small learned scorer over MiniLM signals match forget requests better than
the hand-set bars of ``adk_memory_kit/routing/edits/conversation_edits.py``? (TUNE split only.)

Usage::

    python benchmarks/forget_scorer_study.py [--l2 1.0] [--show] [--cache /tmp/vectors.pkl]

Reads only the ``split: tune`` forget rows of ``tests/routing/data/edits.jsonl``. Each precise
or broad request is assessed against what the benchmark stores (its target, its neighbour and
three unrelated facts; and, for precise ones, the same without the target), with the real
MiniLM embedder and no database. Prints the rule-only and rule + scorer decisions on the tune
rows, leave-one-row-out (the scorer refitted without the row), and the fitted weights. The
scorer is a logistic regression over the signals of ``ConversationEdits.assess`` plus
word-level similarity (each naming word's closest word in the memory), the fit of the
memory's closest kind of detail to the subject, people named and leads over the runner-up;
it takes a memory the bars leave when its probability clears a threshold. Result and
reading: docs/routing.md ("A learned scorer, measured").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from google.adk.memory.memory_entry import MemoryEntry  # noqa: E402
from google.genai import types  # noqa: E402

from adk_memory_kit.embedders.base import checked_embed  # noqa: E402
from adk_memory_kit.embedders.local import LocalMiniLMEmbedder  # noqa: E402
from adk_memory_kit.routing.edits.conversation_edits import ConversationEdits  # noqa: E402
from adk_memory_kit.routing.edits.forget_requests import (  # noqa: E402
    VAGUE_WORDS,
    forget_subject,
    is_vague,
)
from adk_memory_kit.routing.edits.subject_words import GENERIC as _GENERIC  # noqa: E402
from adk_memory_kit.routing.edits.subject_words import possessor  # noqa: E402
from adk_memory_kit.routing.edits.subject_words import without_possessor as _head  # noqa: E402
from adk_memory_kit.routing.edits.update_subject import people  # noqa: E402
from adk_memory_kit.text.signals import content_stems, overlap, words  # noqa: E402

CORPUS = ROOT / "tests" / "routing" / "data" / "edits.jsonl"
FILLER = [
    "I collect old film cameras.",
    "My brother lives in Toronto.",
    "We have a vegetable patch behind the house.",
]


class DiskCachedEmbedder:
    """The MiniLM embedder with its vectors kept in a file between runs (tuning speed)."""

    def __init__(self, path: Path) -> None:
        import pickle

        self._inner = LocalMiniLMEmbedder()
        self._path = path
        self._store = pickle.loads(path.read_bytes()) if path.exists() else {}
        self.model_id, self.dim = self._inner.model_id, self._inner.dim

    async def embed(self, texts):
        missing = [t for t in dict.fromkeys(texts) if t not in self._store]
        if missing:
            self._store.update(zip(missing, await self._inner.embed(missing), strict=True))
        return [self._store[t] for t in texts]

    def save(self) -> None:
        import pickle

        self._path.write_bytes(pickle.dumps(self._store))


FEATURES = (
    "cosine",
    "score",
    "own",
    "kind_example",
    "kind_margin",
    "about_others",
    "lifted",
    "shared_words",
    "word_sim_mean",
    "word_sim_min",
    "same_people",
    "other_people",
    "cosine_lead",
    "word_sim_lead",
    "score_lead",
    "kind_fit",
    "best_kind",
)


def _unit(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    return array / np.clip(np.linalg.norm(array, axis=1, keepdims=True), 1e-12, None)


def _plain_words(text: str) -> list[str]:
    return sorted({w.split("'")[0] for w in words(text) if content_stems(w.split("'")[0])})


async def word_matches(
    embedder: Any, subject_words: Sequence[str], texts: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """For each text, the mean and the least, over the subject's naming words, of the cosine
    of that word to the text's closest content word ("dementia" / "Alzheimer's", "Portugal"
    / "Algarve"); zeros when either side has no content word."""
    per_text = [_plain_words(t) for t in texts]
    vocab = sorted({w for ws in per_text for w in ws} | set(subject_words))
    mean = np.zeros(len(texts))
    least = np.zeros(len(texts))
    if not subject_words or not vocab:
        return mean, least
    index = {w: i for i, w in enumerate(vocab)}
    vectors = _unit(await checked_embed(embedder, vocab))
    wanted = vectors[[index[w] for w in subject_words]]
    for i, ws in enumerate(per_text):
        if not ws:
            continue
        best = (wanted @ vectors[[index[w] for w in ws]].T).max(axis=1)
        mean[i], least[i] = float(best.mean()), float(best.min())
    return mean, least


def _lead(values: np.ndarray) -> np.ndarray:
    """Each value less the largest of the others (0 when it is alone)."""
    if len(values) < 2:
        return np.zeros(len(values))
    order = np.sort(values)
    runner_up, top = order[-2], order[-1]
    return values - np.where(values == top, runner_up, top)


def features(sig: dict) -> np.ndarray:
    """The model's inputs, one row per memory, columns as :data:`FEATURES`."""
    seen = sig["seen"]
    kind = seen.by_kind if seen.names_kind else np.zeros(len(seen.cosines))
    margin = seen.by_kind - seen.best_kind if seen.names_kind else np.zeros(len(seen.cosines))
    return np.column_stack(
        [
            seen.cosines,
            np.clip(seen.scores, 0.0, None),
            seen.own.astype(float),
            np.clip(kind, 0.0, None),
            margin,
            seen.about_others.astype(float),
            seen.lifted.astype(float),
            sig["shares"],
            sig["soft_mean"],
            sig["soft_min"],
            sig["same_people"].astype(float),
            (sig["people_named"] & ~sig["same_people"]).astype(float),
            _lead(seen.cosines),
            _lead(sig["soft_mean"]),
            _lead(np.clip(seen.scores, 0.0, None)),
            sig["kind_fit"],
            seen.best_kind,
        ]
    )


def fit(
    x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 3000
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """An L2-regularised logistic regression by gradient descent: (mean, scale, weights,
    bias) for standardised inputs."""
    mean = x.mean(axis=0)
    scale = np.where(x.std(axis=0) > 1e-9, x.std(axis=0), 1.0)
    z = (x - mean) / scale
    w = np.zeros(z.shape[1])
    b = 0.0
    rate = 0.5
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        grad_w = z.T @ (p - y) / len(y) + l2 * w / len(y)
        grad_b = float(np.mean(p - y))
        w -= rate * grad_w
        b -= rate * grad_b
    return mean, scale, w, b


async def kind_fit(self: ConversationEdits, embedder, head: str, vectors: np.ndarray) -> np.ndarray:
    """For each memory, how close the subject is to the label of the kind of detail the
    memory most resembles (its closest example's kind; the label's closest term): "my
    diagnosis" and a memory naming an illness, "my holiday" and one about a villa."""
    if not self.detail_kinds:
        return np.zeros(len(vectors))
    labels = list(self.detail_kinds)
    closest = np.full(len(vectors), -1.0)
    which = np.zeros(len(vectors), dtype=int)
    for i, kind in enumerate(labels):
        sims = (vectors @ (await self.kinds.examples(embedder, kind)).T).max(axis=1)
        which = np.where(sims > closest, i, which)
        closest = np.maximum(closest, sims)
    await self.kinds.named_by(embedder, head)  # fills the label and term vectors
    if self.kinds.label_vectors is None:
        return np.zeros(len(vectors))
    (subject_vector,) = _unit(await checked_embed(embedder, [head]))
    sims = self.kinds.label_vectors @ subject_vector
    per_kind = sims[: len(labels)].copy()
    for owner, sim in zip(self.kinds.term_owner, sims[len(labels) :], strict=True):
        per_kind[owner] = max(per_kind[owner], sim)
    return per_kind[which].astype(float)


async def signals(edits: ConversationEdits, embedder, subject: str, texts: list[str]) -> dict:
    """``ConversationEdits.assess`` and the extra signals the scorer weighs."""
    seen = await edits.assessor.assess(embedder, subject, texts)
    whose = possessor(subject)
    head = _head(subject, whose) if whose else subject
    naming = sorted(
        w
        for w in {x.split("'")[0] for x in words(head)}
        if content_stems(w) - VAGUE_WORDS - _GENERIC
    )
    soft_mean, soft_min = await word_matches(embedder, naming, texts)
    vectors = _unit(await checked_embed(embedder, texts))
    wanted = people(subject)
    named = content_stems(head) - VAGUE_WORDS
    return {
        "seen": seen,
        "shares": np.array([overlap(named, content_stems(t)) for t in texts]),
        "soft_mean": soft_mean,
        "soft_min": soft_min,
        "people_named": bool(wanted),
        "same_people": np.array([bool(wanted) and wanted <= people(t) for t in texts]),
        "kind_fit": await kind_fit(edits, embedder, head, vectors),
    }


def entry(text: str) -> MemoryEntry:
    return MemoryEntry(
        author="user", content=types.Content(role="user", parts=[types.Part(text=text)])
    )


async def cases(edits: ConversationEdits, embedder) -> list[dict]:
    rows = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
    rows = [
        r for r in rows if r["split"] == "tune" and r["kind"] in ("forget_precise", "forget_broad")
    ]
    out = []
    for i, row in enumerate(rows):
        subject = forget_subject(row["request"])
        if is_vague(subject):
            continue
        variants = [[row["target"], row["neighbour"], *FILLER]]
        if row["kind"] == "forget_precise":
            variants.append([row["neighbour"], *FILLER])
        for texts in variants:
            sig = await signals(edits, embedder, subject, texts)
            out.append(
                {
                    "row": i,
                    "request": row["request"],
                    "subject": subject,
                    "texts": texts,
                    "seen": sig["seen"],
                    "x": features(sig),
                    "y": np.array([t == row["target"] for t in texts], dtype=float),
                }
            )
    return out


def evaluate(edits: ConversationEdits, case: dict, p: np.ndarray, threshold: float = 1.1):
    """The bars' decision; when they take nothing, the memories the scorer gives at least
    ``threshold`` (none for the default)."""
    memories = [entry(t) for t in case["texts"]]
    seen = case["seen"]
    scored = list(zip(memories, seen.scores, seen.own, strict=True))
    chosen, ambiguous = edits.chooser.decide(case["subject"], scored)
    learned = [m for m, q in zip(memories, p, strict=True) if q >= threshold]
    if not chosen and learned:
        chosen, ambiguous = learned, 0
    return {m.content.parts[0].text for m in chosen}, ambiguous


def tally(edits, all_cases, probs, show: bool, threshold: float = 1.1):
    honoured = wrong = asked = present = absent_wrong = absent = 0
    for case, p in zip(all_cases, probs, strict=True):
        chosen, ambiguous = evaluate(edits, case, p, threshold)
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
    parser.add_argument("--cache", default=None, help="a file keeping the vectors between runs")
    args = parser.parse_args()
    edits = ConversationEdits()
    embedder = DiskCachedEmbedder(Path(args.cache)) if args.cache else LocalMiniLMEmbedder()
    all_cases = await cases(edits, embedder)
    if args.cache:
        embedder.save()
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

    full = fit(x, y, l2=args.l2)
    print("rules + scorer, fitted on all tune rows (in-sample):")
    tally(
        edits,
        all_cases,
        [masked(c, predict(full, c["x"])) for c in all_cases],
        args.show,
        args.threshold,
    )
    print("rules + scorer, leave one row out:")
    probs = []
    rows = sorted({c["row"] for c in all_cases})
    fits = {}
    for r in rows:
        keep = [c for c in all_cases if c["row"] != r]
        fits[r] = fit(
            np.vstack([c["x"] for c in keep]), np.concatenate([c["y"] for c in keep]), l2=args.l2
        )
    for c in all_cases:
        probs.append(masked(c, predict(fits[c["row"]], c["x"])))
    tally(edits, all_cases, probs, args.show, args.threshold)
    if args.show:
        print("asked by the rules: the scorer's best probability, and whether it is the target")
        for c, p in zip(all_cases, probs, strict=True):
            rule, asked = evaluate(edits, c, np.zeros(len(p)))
            if asked:
                i = int(np.argmax(p))
                print(f"  {p[i]:.2f} target={bool(c['y'][i])} {c['request']!r}")
    for threshold in (0.6, 0.7, 0.8, 0.9):
        print(f"rules + scorer, leave one row out, probability >= {threshold}:")
        tally(edits, all_cases, probs, False, threshold)
    mean, scale, w, b = full
    for name, weight in zip(FEATURES, w, strict=True):
        print(f"  {name:>14} {weight:+.3f}")
    print(f"  {'bias':>14} {b:+.3f}")


if __name__ == "__main__":
    asyncio.run(main())
