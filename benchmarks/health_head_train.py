"""Train the health classifiers of ``adk_memory_kit.sensitive`` and write their weights to
``adk_memory_kit/sensitive/health_model_data.py`` (a few thousand numbers, no pickle).

Data: the labelled sentences of two independent writers, ``health_A.jsonl`` and
``health_B.jsonl`` (``{"text", "health", "lang", "writer"}``; English, Spanish, French,
German, Portuguese, Italian, Japanese). Two logistic regressions:

- a lexical one (words and their 5-letter prefixes; CJK character pairs), cheap enough to
  run on every sentence: the pre-filter, with a threshold set for recall;
- a head on the bundled MiniLM embedder (``LocalMiniLMEmbedder``), run only on sentences the
  pre-filter passes: it decides.

Each threshold is chosen on the *other* writer (train on A, test on B and the reverse), so
the figures printed are cross-writer, not fit; the shipped weights are then fit on both.

Usage::

    python benchmarks/health_head_train.py [--data DIR]   # default /work/corpora/train
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adk_memory_kit.embedders import LocalMiniLMEmbedder  # noqa: E402
from adk_memory_kit.sensitive.health_features import lexical_features  # noqa: E402

OUT = ROOT / "adk_memory_kit" / "sensitive" / "health_model_data.py"
#: Recall the pre-filter must keep on the other writer, and the decision's at ``strict``.
PREFILTER_RECALL = 0.98
STRICT_RECALL = 0.95


def load(data: Path) -> dict[str, list[dict]]:
    out = {}
    for w in ("A", "B"):
        lines = (data / f"health_{w}.jsonl").read_text(encoding="utf-8").splitlines()
        out[w] = [json.loads(x) for x in lines if x.strip()]
    return out


def lexical_matrix(rows: list[dict], vocab: dict[str, int]) -> np.ndarray:
    x = np.zeros((len(rows), len(vocab)), dtype=np.float32)
    for i, r in enumerate(rows):
        for f in lexical_features(r["text"]):
            j = vocab.get(f)
            if j is not None:
                x[i, j] = 1.0
    return x


def fit_lexical(rows: list[dict]) -> tuple[dict[str, float], float]:
    vocab: dict[str, int] = {}
    for r in rows:
        for f in lexical_features(r["text"]):
            vocab.setdefault(f, len(vocab))
    x, y = lexical_matrix(rows, vocab), np.array([r["health"] for r in rows])
    model = LogisticRegression(C=2.0, max_iter=2000, class_weight="balanced").fit(x, y)
    weights = {f: float(model.coef_[0][j]) for f, j in vocab.items()}
    return {f: round(w, 4) for f, w in weights.items() if abs(w) >= 0.02}, float(
        model.intercept_[0]
    )


def lexical_score(text: str, weights: dict[str, float], bias: float) -> float:
    return bias + sum(weights.get(f, 0.0) for f in lexical_features(text))


def recall_threshold(scores: np.ndarray, labels: np.ndarray, recall: float) -> float:
    pos = np.sort(scores[labels])
    return float(pos[max(0, int(np.floor((1 - recall) * len(pos))) - 1)])


def report(name: str, scores: np.ndarray, labels: np.ndarray, t: float) -> None:
    flagged = scores >= t
    tp = int((flagged & labels).sum())
    print(
        f"  {name}: threshold {t:.3f}  recall {tp / max(1, labels.sum()):.3f}  "
        f"precision {tp / max(1, flagged.sum()):.3f}  passed {flagged.mean():.2f}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("/work/corpora/train"))
    args = parser.parse_args(argv)
    sets = load(args.data)
    embedder = LocalMiniLMEmbedder(cache=False)
    emb = {w: np.array(embedder.embed_sync([r["text"] for r in rows])) for w, rows in sets.items()}
    lab = {w: np.array([bool(r["health"]) for r in rows]) for w, rows in sets.items()}
    lex_t, head_strict, head_bal = [], [], []
    for train, test in (("A", "B"), ("B", "A")):
        print(f"train on writer {train}, test on writer {test}:")
        weights, bias = fit_lexical(sets[train])
        s = np.array([lexical_score(r["text"], weights, bias) for r in sets[test]])
        t = recall_threshold(s, lab[test], PREFILTER_RECALL)
        report("lexical pre-filter", s, lab[test], t)
        lex_t.append(t)
        head = LogisticRegression(C=4.0, max_iter=4000, class_weight="balanced")
        head.fit(emb[train], lab[train])
        p = head.predict_proba(emb[test])[:, 1]
        ts = recall_threshold(p, lab[test], STRICT_RECALL)
        report("MiniLM head, strict", p, lab[test], ts)
        report("MiniLM head, balanced (0.5)", p, lab[test], 0.5)
        head_strict.append(ts)
        head_bal.append(0.5)
    rows = sets["A"] + sets["B"]
    weights, bias = fit_lexical(rows)
    head = LogisticRegression(C=4.0, max_iter=4000, class_weight="balanced")
    head.fit(np.vstack([emb["A"], emb["B"]]), np.concatenate([lab["A"], lab["B"]]))
    entries = ",\n".join(f"    {k!r}: {v}" for k, v in sorted(weights.items()))
    coef = ", ".join(f"{c:.5f}" for c in head.coef_[0])
    OUT.write_text(
        '"""Generated by ``benchmarks/health_head_train.py`` (do not edit): the health\n'
        "classifiers' weights, fit on the sentences of two independent writers; thresholds\n"
        'chosen across writers (see the script)."""\n\n'
        f"LEXICAL_BIAS = {bias:.5f}\n"
        f"LEXICAL_THRESHOLD = {min(lex_t):.5f}\n"
        f"LEXICAL_WEIGHTS: dict[str, float] = {{\n{entries},\n}}\n\n"
        f"HEAD_BIAS = {float(head.intercept_[0]):.5f}\n"
        f"HEAD_THRESHOLD_STRICT = {min(head_strict):.5f}\n"
        f"HEAD_THRESHOLD_BALANCED = {max(head_bal):.5f}\n"
        f"HEAD_COEF = (\n    {coef},\n)\n",
        encoding="utf-8",
    )
    print(f"{len(weights)} lexical weights, {head.coef_.shape[1]} head weights -> {OUT.name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
