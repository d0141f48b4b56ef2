"""The data-map table keeps its count column aligned whatever the home names' lengths."""

from __future__ import annotations

from adk_memory_kit.lifecycle.forget import DataLocation, DataMap


def test_summary_aligns_counts_for_long_home_names():
    kinds = ["sessions", "memory_term_stats", "episodic log", "a_much_longer_home_name_here"]
    data = DataMap(
        "app",
        "ann",
        [DataLocation(store=f"table_{i}", kind=k, count=i * 10) for i, k in enumerate(kinds)],
    )
    rows = data.summary().splitlines()[1:]
    assert len(rows) == len(kinds)
    # every count ends in the same column, and every name is separated from its count
    ends = {row.index(f"table_{i}") for i, row in enumerate(rows)}
    assert len(ends) == 1, data.summary()
    for kind, row in zip(kinds, rows, strict=True):
        assert row.startswith(f"  {kind} "), row
