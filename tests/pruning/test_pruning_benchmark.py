"""The benchmark's targets, checked on its real Runner replay (no timing assertions)."""

from __future__ import annotations

import json

import pytest

from tests.support.pruning import load_benchmark

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it

bench = load_benchmark()


async def test_last_turn_is_at_least_60_percent_smaller() -> None:
    raw = await bench.replay("raw", turns=12)
    eager = await bench.replay("eager", turns=12)
    assert len(raw.stats) == len(eager.stats) == 11 + 11 * 12
    last_raw, last_pruned = raw.stats[-1].tokens, eager.stats[-1].tokens
    assert last_raw > 100_000
    assert last_pruned <= 0.4 * last_raw
    assert eager.raw_payload_stored and raw.raw_payload_stored


async def test_seed_case_fits_under_6000_tokens() -> None:
    raw = await bench.replay("raw", turns=1, searches=5, result_tokens=1650)
    pruned = await bench.replay("eager", turns=1, searches=5, result_tokens=1650)
    assert 8_500 <= max(s.tokens for s in raw.stats) <= 9_300
    assert max(s.tokens for s in pruned.stats) < 6_000


def test_cache_profile_counts_prefix_hits_and_rewrites() -> None:
    def stat(fingerprints, tokens):
        return bench.RequestStat(1, len(tokens), 10 + sum(tokens), 10, tokens, fingerprints)

    profile = bench.cache_profile(
        [
            stat(["a", "b"], [5, 5]),
            stat(["a", "b", "c"], [5, 5, 7]),  # appended: 20 cached
            stat(["a", "X", "c"], [5, 2, 7]),  # "b" rewritten: only overhead + "a" cached
        ]
    )
    assert profile == [(0, 20, False), (20, 7, False), (15, 9, True)]


def test_json_output(capsys) -> None:
    assert bench.main(["--json", "--turns", "2", "--searches", "2"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [row["turn"] for row in report["turns"]] == [1, 2]
    assert set(report["totals"]) == {"raw", "eager", "threshold"}
    assert report["seed_case"]["largest_request_pruned"] < 6_000
    assert report["callback_micro_ms"]["pruned_parts"] > 0
