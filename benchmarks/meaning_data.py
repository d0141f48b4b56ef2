"""Ordinary messages for the gate's meaning heads to learn "not a secret, not health" from.

The routing corpora (``routing_first_read_r*.jsonl``: messages by seventeen writers who never
read the kit, in many languages, labelled with the homes their facts belong in) and the
router's own bank (``adk_memory_kit/routing/data/bank.jsonl``). A message routed anywhere
but ``drop`` gives no secret and no health fact; allergies kept as a ``user:`` preference
and any message holding a word of the health vocabularies are left out (the heads learn
those from the privacy and health corpora, which label them).
"""

from __future__ import annotations

import json
from pathlib import Path

from adk_memory_kit.sensitive.health_vocab import health_terms

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
BANK = ROOT / "adk_memory_kit" / "routing" / "data" / "bank.jsonl"


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def ordinary_messages() -> list[str]:
    """Messages that give neither a secret nor health (see the module docstring)."""
    return list(ordinary_by_source())


def ordinary_by_source() -> dict[str, str]:
    """:func:`ordinary_messages`, each with its source (``r1`` ... a routing corpus, ``bank``)."""
    found: dict[str, str] = {}
    for path in sorted(DATA.glob("routing_first_read_r*.jsonl")):
        source = path.stem.rsplit("_", 1)[1]
        for r in _jsonl(path):
            if "drop" not in r["homes"]:
                found.setdefault(r["text"], source)
    for r in _jsonl(BANK):
        if not r["label"].startswith("drop") and "allerg" not in r["label"]:
            found.setdefault(r["text"], "bank")
    return {t: s for t, s in found.items() if not health_terms(t)}
