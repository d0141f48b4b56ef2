"""Train the secret head of ``adk_memory_kit.sensitive`` (``secret_model.py``) and write its
weights to ``adk_memory_kit/sensitive/data/secret_head.npz``.

Data: the first-read corpora already read once (``benchmarks/data/privacy_first_read_w*.jsonl``
up to ``--last``: each written by a different writer who never read the kit), the kit's own
labelled corpus (``privacy_corpus.jsonl``) and ordinary messages (``meaning_data``: the
routing corpora and the router's bank, less what is sensitive), negative. A row is
positive when it gives a secret other than health (health has its own head); the
look-alikes are the negatives. Inputs: USE
multilingual v3 of the message, hashed character n-grams and a few value shapes
(``secret_model``, ``ngrams``); a logistic regression (``C``).

The figures printed are leave-one-writer-out: for each first-read corpus, a head trained on
every other corpus scores it, so they say how the head reads a writer it never saw. The
shipped weights are then fit on all of them.

Usage::

    python benchmarks/secret_head_train.py [--last 28] [--C 10] [--out PATH]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from meaning_data import ROOT, meaning_matrix, ordinary_messages, privacy_rows
from scipy.sparse import csr_matrix
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from adk_memory_kit.sensitive import secret_model
from adk_memory_kit.sensitive.ngrams import HASH_BITS

OUT = ROOT / "adk_memory_kit" / "sensitive" / "data" / "secret_head.npz"


def load(last: int) -> list[dict]:
    rows = [{**r, "source": source} for r, source in privacy_rows(last)]
    rows = [r for r in rows if r["kind"] != "health"]  # health: its own head
    ordinary = [{"text": t, "label": "negative", "source": "ordinary"} for t in ordinary_messages()]
    return rows + ordinary


def matrix(rows: list[dict]) -> csr_matrix:
    texts = [r["text"][: secret_model.WINDOW] for r in rows]
    return meaning_matrix(texts, np.stack([secret_model.shape_features(t) for t in texts]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--last", type=int, default=28, help="the last first-read corpus used")
    parser.add_argument("--out", default=str(OUT), help="where the weights go")
    parser.add_argument("--C", type=float, default=10.0)
    args = parser.parse_args(argv)
    rows = load(args.last)
    X = matrix(rows)
    y = np.array([r["label"] == "positive" for r in rows])
    sources = np.array([r["source"] for r in rows])
    p = np.zeros(len(rows))
    writers = sorted({s for s in sources if s[1:].isdigit()}, key=lambda s: int(s[1:]))
    print("| writer left out | rows | AUC |\n|---|---:|---:|")
    for w in writers:
        test = sources == w
        model = LogisticRegression(C=args.C, max_iter=5000).fit(X[~test], y[~test])
        p[test] = model.predict_proba(X[test])[:, 1]
        print(f"| {w} | {int(test.sum())} | {roc_auc_score(y[test], p[test]):.3f} |")
    held = np.isin(sources, writers)
    print(f"| **all, each left out** | {int(held.sum())} | "
          f"{roc_auc_score(y[held], p[held]):.3f} |")  # fmt: skip
    test = sources == "ordinary"
    model = LogisticRegression(C=args.C, max_iter=5000).fit(X[~test], y[~test])
    ordinary = model.predict_proba(X[test])[:, 1]
    print("\n| threshold | positives at or above | look-alikes at or above | ordinary messages "
          "at or above (held out) |\n|---:|---:|---:|---:|")  # fmt: skip
    pos, neg = p[held & y], p[held & ~y]
    for t in (0.1, 0.2, 0.5, 0.7, 0.8, 0.9):
        print(f"| {t} | {np.mean(pos >= t):.3f} | {np.mean(neg >= t):.3f} | "
              f"{np.mean(ordinary >= t):.3f} |")  # fmt: skip
    model = LogisticRegression(C=args.C, max_iter=5000).fit(X, y)
    coef = model.coef_[0].astype(np.float32)
    dim, grams = 512, 1 << HASH_BITS
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        out,
        use=coef[:dim],
        ngrams=coef[dim : dim + grams],
        shapes=coef[dim + grams :],
        bias=np.float32(model.intercept_[0]),
    )
    print(f"\nwrote {out} ({len(rows)} rows, {int(y.sum())} positive)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
