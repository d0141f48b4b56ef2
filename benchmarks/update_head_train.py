"""Grow the update bank and retrain the shipped update head (tune data only).

Usage::

    python benchmarks/update_head_train.py [NEW_ROWS.tsv [GUARD_CORPUS.jsonl ...]]

``NEW_ROWS.tsv``: ``label<TAB>text`` lines (``update`` or ``long_term``). Each row within
:data:`GUARD` cosine (MiniLM, as the router embeds it) of any held-out text is dropped: the
held-out rows of ``tests/routing/data/edits.jsonl`` (every text field), of each
``GUARD_CORPUS`` (a corpus in the same format, such as one written for a later check) and of
the routing bank.
Only a count is printed, never a held-out text. The rows kept are appended to
``adk_memory_kit/routing/data/update_bank.jsonl`` with ``split: tune``; then the update head
alone is retrained (the routing head, the bank and its shipped embeddings are unchanged) and
``update_head.npz`` and the update head's entry of ``bank_embeddings.json`` are rewritten.
Without an argument, only the retraining runs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adk_memory_kit.routing import learned  # noqa: E402
from adk_memory_kit.routing.bank import load_bank  # noqa: E402

GUARD = 0.8
EDITS = ROOT / "tests" / "routing" / "data" / "edits.jsonl"
DATA = ROOT / "adk_memory_kit" / "routing" / "data"
TEXT_FIELDS = ("old", "new", "question", "neighbour", "request", "target")
LABELS = ("update", "long_term")


def heldout_texts(corpora: list[Path]) -> list[str]:
    rows = [
        json.loads(line)
        for corpus in [EDITS, *corpora]
        for line in corpus.read_text("utf-8").splitlines()
        if line.strip()
    ]
    texts = [r[f] for r in rows if r["split"] == "heldout" for f in TEXT_FIELDS if r.get(f)]
    return texts + [e.text for e in load_bank() if e.split == "heldout"]


def unit(vectors: np.ndarray) -> np.ndarray:
    return vectors / np.clip(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12, None)


def grow(router: learned.LearnedRouter, path: Path, corpora: list[Path]) -> None:
    rows = []
    for line in path.read_text("utf-8").splitlines():
        if line.strip():
            label, text = line.split("\t", 1)
            if label not in LABELS:
                raise SystemExit(f"unknown label in {path}: {label}")
            rows.append((label, text.strip()))
    bank_file = DATA / "update_bank.jsonl"
    have = {json.loads(line)["text"] for line in bank_file.read_text("utf-8").splitlines() if line}
    rows = [(label, text) for label, text in rows if text not in have]
    held = unit(router._embed_sync(heldout_texts(corpora)))
    new = unit(router._embed_sync([t for _, t in rows]))
    closest = (new @ held.T).max(axis=1) if len(rows) else np.zeros(0)
    kept = [row for row, c in zip(rows, closest.tolist(), strict=True) if c < GUARD]
    print(f"{len(rows)} new rows, {len(rows) - len(kept)} dropped (>= {GUARD} to held-out text)")
    with bank_file.open("a", encoding="utf-8") as out:
        for label, text in kept:
            out.write(json.dumps({"text": text, "label": label, "split": "tune"}) + "\n")


def retrain(router: learned.LearnedRouter) -> None:
    texts = [e.text for e in router.examples]
    vectors = learned._cached_bank_embeddings(router.embedder.model_id, len(texts))
    if vectors is None:
        raise SystemExit("the shipped bank embeddings do not match the bank: rebuild them first")
    router.update_examples = learned.load_update_bank()
    router._fit_update_head(router.examples, router.features(texts, vectors))
    head = router.update_head
    np.savez(
        DATA / "update_head.npz",
        weights=head.weights,
        bias=head.bias,
        labels=np.array(head.labels),
    )
    meta_file = DATA / "bank_embeddings.json"
    meta = json.loads(meta_file.read_text("utf-8"))
    meta["update_head"] = {
        **router.head_params,
        "backoff": learned.UPDATE_BACKOFF,
        "digest": learned.update_bank_digest(),
    }
    meta_file.write_text(json.dumps(meta) + "\n", encoding="utf-8")
    print(f"update head retrained on {len(router.update_examples)} update-bank rows")


def main() -> None:
    router = learned.LearnedRouter()
    if len(sys.argv) > 1:
        grow(router, Path(sys.argv[1]), [Path(p) for p in sys.argv[2:]])
    retrain(router)


if __name__ == "__main__":
    main()
