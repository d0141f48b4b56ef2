"""The detectors on the kit's own labelled corpus (``benchmarks/data/privacy_corpus.jsonl``).

The corpus is split by phrasing into tune and held-out halves; both must reach recall and
precision of 0.97 overall (``python benchmarks/detectors.py`` prints the per-kind table).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from adk_memory_kit.sensitive import detect_sensitive, redact_for_store, redact_value

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "detectors.py"


def _bench():
    spec = importlib.util.spec_from_file_location("detectors_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def table():
    bench = _bench()
    rows = bench.load()
    assert sum(r["label"] == "positive" for r in rows) >= 400
    assert sum(r["label"] == "negative" for r in rows) >= 400
    assert len({r["kind"] for r in rows if r["label"] == "positive"}) >= 20
    return bench.score(rows)


@pytest.mark.parametrize("split", ["tune", "heldout"])
def test_recall_and_precision_reach_097(table, split):
    overall = table[split]["overall"]
    assert overall["recall"] >= 0.97, overall
    assert overall["precision"] >= 0.97, overall


def test_granular_redaction_keeps_the_sentence_and_ids():
    text = "order A-19283746 shipped; my IBAN is PL61 1090 1014 0000 0712 1981 2874 is that ok"
    out = redact_for_store(text)
    assert "order A-19283746 shipped" in out
    assert out.endswith("[REDACTED:iban] is that ok")


def test_pem_body_is_redacted_whole():
    body = "MIIEowIBAAKCAQEAx1y2z3" * 3
    text = f"key:\n-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\nbye"
    out = redact_for_store(text)
    assert body not in out and "BEGIN" not in out and out.endswith("\nbye")


def test_redact_value_reaches_keys_and_nested_values():
    secret = "glpat-" + "Ab3dEf6hIj9kLm2nOp5q"
    out = redact_value({secret: ["x", {"note": f"token {secret}"}], "n": 3})
    assert secret not in repr(out)
    assert out["n"] == 3


def test_health_needs_a_person():
    assert detect_sensitive("I was diagnosed with asthma last year")
    assert not detect_sensitive("I'm a Gemini, and my friend is a Cancer, born in July")
    assert not detect_sensitive("she bought prescription sunglasses for the trip")
