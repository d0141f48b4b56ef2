"""Unique ids for test data that the redaction gate reads as plain words.

Random hex ("u-884f07cc") mixes letters and digits the way tokens do, and the secret
head reads a sentence holding two of them near its threshold, so a test storing them
in text flaked on about one run in ten. The same randomness spelled in sixteen letters
(no digit) is never a value the gate redacts, and stays unique across runs on one
database.
"""

from __future__ import annotations

import uuid

_LETTERS = str.maketrans("0123456789abcdef", "ghijklmnopqrstuv")


def unique(prefix: str, sep: str = "-", letters: int = 8) -> str:
    """``prefix`` joined by ``sep`` to ``letters`` random letters (four bits each, like
    ``hex[:letters]``)."""
    return f"{prefix}{sep}{uuid.uuid4().hex[:letters].translate(_LETTERS)}"
