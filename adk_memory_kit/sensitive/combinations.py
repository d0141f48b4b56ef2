"""Combinations and sort codes: three groups of digits joined by hyphens (``17-42-08``).

The shape ``d(d)-dd-dd`` is how people write a padlock, locker or safe combination and a UK
or Irish sort code, in any language, with or without a word naming it. Across the kit's
corpora (about 14,000 routing, edit and privacy messages written by independent writers, and
LoCoMo), every such token outside a placeholder was one of those; a date written that way
(``31-07-22``) is the rare case, and redacting it costs less than storing a combination.

Guarantees: a token of that shape standing alone (not part of a longer number, date, version,
range or identifier) is a credential, unless every digit is the same (``00-00-00``, a form's
placeholder) or the message talks about a format or an example ("the format is 12-34-56").
Linear: one pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adk_memory_kit.sensitive.base import CREDENTIAL, Finding

_SHAPE = re.compile(r"(?<![\w.,/:+#-])\d{1,2}[-‐‑–]\d\d[-‐‑–]\d\d(?![\w/%]|[.,:/–-]\d)")
#: A message about how a value is written, not a value: "format", "e.g.", "example".
_ABOUT_THE_FORM = re.compile(
    r"\b(?:formats?|formato|formaat|formatu?|e\.g\.|example|exemple|ejemplo|esempio|beispiel|"
    r"template|placeholder)\b|формат|形式|格式|형식",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class CombinationDetector:
    """``d(d)-dd-dd`` tokens: a combination or a sort code (see the module docstring)."""

    name: str = "combination"

    def find(self, text: str) -> list[Finding]:
        found = [
            Finding(CREDENTIAL, self.name, m.start(), m.end())
            for m in _SHAPE.finditer(text)
            if len(set(c for c in m.group(0) if c.isdigit())) > 1
        ]
        if found and _ABOUT_THE_FORM.search(text):
            return []
        return found
