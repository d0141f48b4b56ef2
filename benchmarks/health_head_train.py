"""Train the health head of ``adk_memory_kit.sensitive`` (``health_model.py``) and write its
weights to ``adk_memory_kit/sensitive/data/health_head.npz``.

Data:
* ``benchmarks/data/health_training_{A..F}.jsonl`` (and G with ``--writers``): labelled
  sentences of independent writers who never read the kit (``{"text", "health", "lang",
  "writer"}``; A and B in seven languages, C in 21, D in 23, E in 20, F in 30 and G in 30
  others (stops 60 and 61: the languages whose health the first reads missed); about half
  of each writer's negatives are hard: negated
  conditions, general advice, someone's job, pharmacy logistics, idioms, words that collide
  with medical ones);
* the first-read privacy corpora already read once (``privacy_first_read_w*.jsonl`` up to
  ``--last``): a health row is positive, every other row (other secrets, look-alikes) negative;
* the kit's own corpus (``privacy_corpus.jsonl``), the same way;
* ordinary messages (``meaning_data.ordinary_messages``: the routing corpora and the router's
  bank, less what is sensitive or names a health word), negative.

Inputs: USE multilingual v3 of the sentence and its hashed character n-grams; a logistic
regression. The figures printed are leave-one-writer-out (each writer, and each first-read
corpus, scored by a head trained on all the others); the ``strict`` threshold is the one
that keeps recall ``STRICT_RECALL`` over the first-read corpora's held-out scores,
``balanced`` is 0.5. The
shipped weights are then fit on everything.

Usage::

    python benchmarks/health_head_train.py [--last 28] [--C 10] [--writers ABCDEF] [--out PATH]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from meaning_data import ROOT, jsonl, meaning_matrix, ordinary_by_source, privacy_rows
from scipy.sparse import csr_matrix
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from adk_memory_kit.sensitive.health_model import WINDOW

DATA = ROOT / "benchmarks" / "data"
OUT = ROOT / "adk_memory_kit" / "sensitive" / "data" / "health_head.npz"
#: Recall the strict threshold keeps on the first-read corpora's health rows, each scored by
#: a head that never saw its writer (the writers of A-D write sentences; the corpora's writers
#: write what a gate meets: messages, notes and logs).
STRICT_RECALL = 0.95
#: The writers of labelled sentences (``health_training_<W>.jsonl``).
#: The training writers the shipped weights learned from (G, written at stop 61, is there to be
#: tried with ``--writers ABCDEFG``: docs/privacy.md, stop 61).
WRITERS = "ABCDEF"


def load(last: int, writers: str = WRITERS) -> list[dict]:
    rows = []
    for w in writers:
        for r in jsonl(DATA / f"health_training_{w}.jsonl"):
            rows.append({"text": r["text"], "health": bool(r["health"]), "source": w})
    for r, name in privacy_rows(last):
        health = r["label"] == "positive" and r["kind"] == "health"
        rows.append({"text": r["text"], "health": health, "source": name,
                     "lookalike": r["label"] == "negative"})  # fmt: skip
    for t, source in ordinary_by_source().items():  # four folds of routing writers
        fold = 0 if source == "bank" else int(source[1:]) % 4
        rows.append({"text": t, "health": False, "source": f"ordinary {fold}"})
    return rows


def matrix(rows: list[dict]) -> csr_matrix:
    return meaning_matrix([r["text"][:WINDOW] for r in rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--last", type=int, default=28, help="the last first-read corpus used")
    parser.add_argument("--out", default=str(OUT), help="where the weights go")
    parser.add_argument("--C", type=float, default=10.0)
    parser.add_argument("--writers", default=WRITERS, help="the training writers' letters")
    args = parser.parse_args(argv)
    rows = load(args.last, args.writers)
    X = matrix(rows)
    y = np.array([r["health"] for r in rows])
    sources = np.array([r["source"] for r in rows])
    held = sources != "kit"
    p = np.zeros(len(rows))
    for s in sorted(set(sources[held])):
        test = sources == s
        model = LogisticRegression(C=args.C, max_iter=5000).fit(X[~test], y[~test])
        p[test] = model.predict_proba(X[test])[:, 1]
    lookalike = np.array([bool(r.get("lookalike")) for r in rows]) & held
    corpus = np.array([s.startswith("w") for s in sources])
    pos = np.sort(p[corpus & y])
    strict = float(pos[int(np.floor((1 - STRICT_RECALL) * len(pos)))])
    print(f"leave-one-writer-out AUC {roc_auc_score(y[held], p[held]):.3f}; strict threshold "
          f"{strict:.3f} (first-read corpora's held-out recall {STRICT_RECALL})\n")  # fmt: skip
    print("| held out | health rows | recall strict / balanced | negatives flagged strict / "
          "balanced |\n|---|---:|---:|---:|")  # fmt: skip
    groups = [(w, sources == w) for w in args.writers]
    groups += [("ordinary messages", np.char.startswith(sources.astype(str), "ordinary"))]
    groups += [(f"first-read corpora w1-w{args.last} (look-alikes only)", corpus)]
    for name, k in groups:
        neg = k & (lookalike if name.startswith("first") else ~y)
        cells = [f"{np.mean(p[k & y] >= t):.2f}" for t in (strict, 0.5)]
        flags = [f"{int((p[neg] >= t).sum())} / {int(neg.sum())}" for t in (strict, 0.5)]
        print(f"| {name} | {int((k & y).sum())} | {' / '.join(cells)} | {' / '.join(flags)} |")
    model = LogisticRegression(C=args.C, max_iter=5000).fit(X, y)
    coef = model.coef_[0].astype(np.float32)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        out,
        use=coef[:512],
        ngrams=coef[512:],
        bias=np.float32(model.intercept_[0]),
        strict=np.float32(strict),
        balanced=np.float32(0.5),
    )
    print(f"\nwrote {out} ({len(rows)} rows, {int(y.sum())} health)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
