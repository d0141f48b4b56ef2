"""benchmarks/bad_input.py against the real store: no input gives a raw error."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "bad_input.py"


def _load():
    spec = importlib.util.spec_from_file_location("bad_input_bench", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


async def test_every_bad_input_gets_a_clear_kit_error_or_a_sane_result(db_url):
    import logging

    bench = _load()
    root, kit = logging.getLogger(), logging.getLogger("adk_memory_kit")
    level = kit.level
    root.addHandler(bench.LOGS)
    kit.setLevel(logging.DEBUG)
    try:
        tallies = await bench.run(db_url)
    finally:
        root.removeHandler(bench.LOGS)
        kit.setLevel(level)
    assert bench.LOGS.records > 0 and bench.LOGS.leaks == []  # no log record with user text
    total = sum(t.tried for t in tallies.values())
    assert total >= 900
    for area in ("curation", "constructors", "episodic log calls", "tools"):
        assert any(name.startswith(area) for name in tallies), area
    raw = {name: t.raw_examples for name, t in tallies.items() if t.raw}
    assert raw == {}, raw
    assert all(t.clear + t.sane == t.tried for t in tallies.values())
    assert "| **all** |" in bench.table(tallies)
