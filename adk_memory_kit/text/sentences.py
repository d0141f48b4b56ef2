"""Sentences: where one ends, and how records of an older splitter map onto today's."""

from __future__ import annotations

import re

# a full stop that ends an abbreviation or an initial, not a sentence ("Dr. Lindqvist",
# "J. K. Rowling", "e.g. Spanish")
_NOT_AN_END = re.compile(
    r"(?:\b(?:Dr|Mr|Mrs|Ms|Mx|Prof|Rev|St|Mt|Jr|Sr|Capt|Lt|Col|Gen|Sgt|vs|approx)|"
    r"\b[A-Z]|\be\.g|\bi\.e)\.$"
)


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``: split after . ! ? and at line breaks, but not after a title,
    an initial or "e.g." / "i.e." (the name or example that follows stays in the sentence)."""
    sentences: list[str] = []
    for line in re.split(r"\n+", text):
        glued = ""
        for piece in re.split(r"(?<=[.!?])\s+", line):
            glued = f"{glued} {piece}" if glued else piece
            if not _NOT_AN_END.search(glued):
                sentences.append(glued)
                glued = ""
        if glued:
            sentences.append(glued)
    return [p.strip() for p in sentences if p and p.strip()]


def legacy_sentence_index(text: str) -> dict[int, int]:
    """Each sentence index of the splitter of routing records version 1 (a split after every
    . ! ?, "Dr." included) -> the index of the :func:`split_sentences` sentence holding it, so
    a record written before still names the same sentence."""
    legacy = [p.strip() for p in re.split(r"(?<=[.!?])\s+|\n+", text) if p and p.strip()]
    current = split_sentences(text)
    mapping: dict[int, int] = {}
    at, buffer = 0, ""
    for i, piece in enumerate(legacy):
        if at >= len(current):
            break
        mapping[i] = at
        buffer = f"{buffer} {piece}" if buffer else piece
        if " ".join(buffer.split()) == " ".join(current[at].split()):
            at, buffer = at + 1, ""
    if len(mapping) != len(legacy) or at != len(current):
        return {i: i for i in range(len(legacy))}  # not aligned: as it was read before
    return mapping
