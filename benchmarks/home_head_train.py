"""Train the router's home head (``adk_memory_kit/routing/home_head.py``) and write its
weights to ``adk_memory_kit/routing/data/home_head.npz``.

Data: the tune split of the kit's bank (``routing/data/bank.jsonl``; the held-out split stays
out, so ``benchmarks/routing.py --split heldout`` still reads rows no head saw) and the
first-read routing corpora already read (``benchmarks/data/routing_first_read_r*.jsonl`` up
to ``--last``, each by a writer who never read the kit). A corpus message with one home is
one row; a message with several homes is split into sentences, kept when it gives one
sentence per home (in order), else left out. Inputs: USE multilingual v3 and hashed
character n-grams (``meaning_data.meaning_matrix``); one multinomial logistic regression.

The table printed is leave-one-writer-out: each corpus is scored by a head fit on the bank
and every other corpus, message by message, as the router reads it (each sentence its home;
a message's homes are those of its sentences, "none" dropped beside any other), so it says
how the head reads a writer it never saw. The shipped weights are then fit on all of them.

Usage::

    python benchmarks/home_head_train.py [--last 18] [--C 10]
"""

from __future__ import annotations

import argparse
from collections import Counter

import numpy as np
from meaning_data import DATA, ROOT, jsonl, meaning_matrix
from sklearn.linear_model import LogisticRegression

from adk_memory_kit.routing.bank import load_bank
from adk_memory_kit.routing.home_head import HOMES, WINDOW, home_of
from adk_memory_kit.sensitive.ngrams import HASH_BITS
from adk_memory_kit.text.sentences import split_sentences

OUT = ROOT / "adk_memory_kit" / "routing" / "data" / "home_head.npz"


def sentences_of(text: str) -> list[str]:
    return [s for s in split_sentences(text) if s.strip()] or [text]


def corpus_rows(message: dict) -> list[tuple[str, str]]:
    """(text, home) rows a corpus message gives (module docstring)."""
    homes = message["homes"]
    if len(homes) == 1:
        return [(message["text"], homes[0])]
    parts = sentences_of(message["text"])
    return list(zip(parts, homes, strict=True)) if len(parts) == len(homes) else []


def predicted(model: LogisticRegression, cache: dict, text: str) -> set[str]:
    homes = {model.classes_[int(np.argmax(cache[s]))] for s in sentences_of(text)}
    return homes - {"none"} if len(homes) > 1 else homes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--last", type=int, default=18, help="the last first-read corpus used")
    parser.add_argument("--C", type=float, default=10.0)
    args = parser.parse_args(argv)
    bank = [(e.text, home_of(e.label)) for e in load_bank() if e.split == "tune"]
    corpora = {i: jsonl(DATA / f"routing_first_read_r{i}.jsonl") for i in range(1, args.last + 1)}
    texts = sorted(
        {t[:WINDOW] for t, _ in bank}
        | {t[:WINDOW] for rows in corpora.values() for m in rows for t, _ in corpus_rows(m)}
        | {s[:WINDOW] for rows in corpora.values() for m in rows for s in sentences_of(m["text"])}
    )
    index = {t: i for i, t in enumerate(texts)}
    X = meaning_matrix(texts)

    def fit(rows: list[tuple[str, str]]) -> LogisticRegression:
        picked = [index[t[:WINDOW]] for t, _ in rows]
        return LogisticRegression(C=args.C, max_iter=3000).fit(X[picked], [h for _, h in rows])

    print("| writer left out | messages | exact | per first home: exact / messages |")
    print("|---|---:|---:|---|")
    total = [0, 0]
    for left_out, messages in corpora.items():
        rows = bank + [
            r for i, ms in corpora.items() if i != left_out for m in ms for r in corpus_rows(m)
        ]
        model = fit(rows)
        parts = sorted({s[:WINDOW] for m in messages for s in sentences_of(m["text"])})
        probs = dict(zip(parts, model.predict_proba(X[[index[s] for s in parts]]), strict=True))
        cache = {s: probs[s[:WINDOW]] for m in messages for s in sentences_of(m["text"])}
        hits, firsts = 0, Counter()
        for m in messages:
            hit = predicted(model, cache, m["text"]) == set(m["homes"])
            hits += hit
            firsts[(m["homes"][0], hit)] += 1
        total[0] += hits
        total[1] += len(messages)
        per = ", ".join(
            f"{h} {firsts[(h, True)]} / {firsts[(h, True)] + firsts[(h, False)]}"
            for h in HOMES
            if firsts[(h, True)] + firsts[(h, False)]
        )
        print(f"| r{left_out} | {len(messages)} | {hits / len(messages):.3f} | {per} |")
    print(f"| **all, each left out** | {total[1]} | {total[0] / total[1]:.3f} | |")

    rows = bank + [r for ms in corpora.values() for m in ms for r in corpus_rows(m)]
    model = fit(rows)
    order = [list(model.classes_).index(h) for h in HOMES]
    coef = model.coef_[order].astype(np.float32)
    dim, grams = 512, 1 << HASH_BITS
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        OUT,
        homes=np.array(HOMES),
        use=coef[:, :dim],
        ngrams=coef[:, dim : dim + grams].astype(np.float16),
        bias=model.intercept_[order].astype(np.float32),
    )
    print(
        f"\nwrote {OUT.relative_to(ROOT)} ({len(rows)} rows: {dict(Counter(h for _, h in rows))})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
