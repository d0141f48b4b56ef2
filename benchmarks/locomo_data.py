"""Make ``locomo_dev.json``, the LoCoMo benchmark's data file, from the LoCoMo release.

The data is not in this repository (licence CC BY-NC 4.0: use it for evaluation, never ship
it). Get ``data/locomo10.json`` of https://github.com/snap-research/LoCoMo (checked against
commit 3eb6f2c), then::

    git clone --depth 1 https://github.com/snap-research/LoCoMo /tmp/LoCoMo
    python benchmarks/locomo_data.py /tmp/LoCoMo/data/locomo10.json locomo_dev.json

``locomo_dev.json`` holds the first 7 of its 10 conversations (``conv-26`` ... ``conv-47``)
with only ``sample_id``, ``conversation`` and ``qa``; the other three are left for a later
held-out split. Byte for byte the file ``benchmarks/locomo_retrieval.py`` was measured on.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

DEV_IDS = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43", "conv-44", "conv-47")
KEYS = ("sample_id", "conversation", "qa")


def reduce(records: list[dict]) -> list[dict]:
    """The dev conversations of ``records`` (LoCoMo's list), in their order, reduced to KEYS."""
    found = {r.get("sample_id"): r for r in records if isinstance(r, dict)}
    missing = [i for i in DEV_IDS if i not in found]
    if missing:
        raise ValueError(f"not LoCoMo's locomo10.json: no {', '.join(missing)}")
    return [{k: found[i][k] for k in KEYS} for i in DEV_IDS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("locomo10", type=Path, help="LoCoMo's data/locomo10.json")
    parser.add_argument("out", type=Path, help="where to write locomo_dev.json")
    args = parser.parse_args(argv)
    try:
        records = json.loads(args.locomo10.read_text(encoding="utf-8"))
        dev = reduce(records)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.write_text(json.dumps(dev, ensure_ascii=False), encoding="utf-8")
    questions = sum(len(r["qa"]) for r in dev)
    print(f"wrote {args.out}: {len(dev)} conversations, {questions} questions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
