"""What the gate's meaning heads learn from, and how a text becomes their input.

Ordinary messages, to learn "not a secret, not health" from:
The routing corpora (``routing_first_read_r*.jsonl``: messages by seventeen writers who never
read the kit, in many languages, labelled with the homes their facts belong in) and the
router's own bank (``adk_memory_kit/routing/data/bank.jsonl``). A message routed anywhere
but ``drop`` gives no secret and no health fact; allergies kept as a ``user:`` preference
and any message holding a word of the health vocabularies are left out (the heads learn
those from the privacy and health corpora, which label them). The first-read privacy corpora
(``privacy_first_read_w*.jsonl``) and the kit's own (``privacy_corpus.jsonl``), each row
with its source. :func:`meaning_matrix`: USE multilingual v3, then the hashed character
n-grams, then any extra columns: the order ``secret_model`` and ``health_model`` read.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy.sparse import csr_matrix, hstack

from adk_memory_kit.embedders.multilingual import MultilingualEncoder
from adk_memory_kit.sensitive.health_vocab import health_terms
from adk_memory_kit.sensitive.ngrams import HASH_BITS, ngram_buckets

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
BANK = ROOT / "adk_memory_kit" / "routing" / "data" / "bank.jsonl"


def jsonl(path: Path) -> list[dict]:
    """The rows of a JSON-lines file."""
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def privacy_rows(last: int) -> list[tuple[dict, str]]:
    """Every row of the first-read corpora w1..w``last`` and of the kit corpus, with its
    source (``w3`` ..., ``kit``)."""
    paths = [(f"w{i}", DATA / f"privacy_first_read_w{i}.jsonl") for i in range(1, last + 1)]
    paths.append(("kit", DATA / "privacy_corpus.jsonl"))
    return [(row, name) for name, path in paths for row in jsonl(path)]


def meaning_matrix(texts: Sequence[str], extra: np.ndarray | None = None) -> csr_matrix:
    """The heads' input for ``texts``: encoder columns, n-gram buckets, then ``extra``."""
    use = MultilingualEncoder().embed_array(list(texts))
    indptr, indices, values = [0], [], []
    for buckets in map(ngram_buckets, texts):
        indices.extend(buckets)
        values.extend(buckets.values())
        indptr.append(len(indices))
    grams = csr_matrix((values, indices, indptr), shape=(len(texts), 1 << HASH_BITS))
    blocks = [csr_matrix(use), grams] + ([csr_matrix(extra)] if extra is not None else [])
    return hstack(blocks).tocsr()


def ordinary_messages() -> list[str]:
    """Messages that give neither a secret nor health (see the module docstring)."""
    return list(ordinary_by_source())


def ordinary_by_source() -> dict[str, str]:
    """:func:`ordinary_messages`, each with its source (``r1`` ... a routing corpus, ``bank``)."""
    found: dict[str, str] = {}
    for path in sorted(DATA.glob("routing_first_read_r*.jsonl")):
        source = path.stem.rsplit("_", 1)[1]
        for r in jsonl(path):
            if "drop" not in r["homes"]:
                found.setdefault(r["text"], source)
    for r in jsonl(BANK):
        if not r["label"].startswith("drop") and "allerg" not in r["label"]:
            found.setdefault(r["text"], "bank")
    return {t: s for t, s in found.items() if not health_terms(t)}
