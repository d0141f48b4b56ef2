"""Sensitive-data detectors on the labelled corpus: cases, recall and precision per class.

Usage::

    python benchmarks/detectors.py [--json OUT]

Needs the ``dev`` extra (``pip install -e ".[dev]"``): the corpus is a test module, which
imports pytest. The corpus is the table in ``tests/sensitive/test_detector_corpus.py``
(realistic positives and hard negatives: order ids, phone numbers, dates, prices, ISBNs,
UUIDs, commit hashes, tracking numbers, postcodes, flight numbers, prose about passwords).
Prints the README's detector table.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "sensitive" / "test_detector_corpus.py"


def _load_corpus():
    spec = importlib.util.spec_from_file_location("detector_corpus", CORPUS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    try:
        corpus = _load_corpus()
    except ModuleNotFoundError as exc:
        print(
            f"error: the corpus ({CORPUS.relative_to(CORPUS.parents[2])}) needs {exc.name}: "
            'pip install -e ".[dev]"',
            file=sys.stderr,
        )
        return 2
    table = corpus.score()
    positives = len(corpus.POSITIVES) + len(corpus.KNOWN_MISSES)
    print(f"corpus: {positives} positives, {len(corpus.NEGATIVES)} hard negatives")
    print("| class | cases | recall | precision |")
    print("|---|---:|---:|---:|")
    for kind, row in table.items():
        print(f"| `{kind}` | {row['cases']} | {row['recall']:.2f} | {row['precision']:.2f} |")
    if args.json:
        args.json.write_text(json.dumps(table, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
