"""Card numbers the digit-run reader misses: glued to a word (``Visa4111...``, ``card#4111``)
or split over lines (``4111 1111\\n1111 1111``).

Guarantee: a span of 2-6 digit groups joined by spaces, hyphens or one line break, or
digits glued to letters, is a finding when some run of its groups has 13-19 digits that
pass Luhn and match a card network's prefix and length (:func:`numbers.card_network`).
Linear: each group is read a bounded number of times.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar

from adk_memory_kit.sensitive.base import PAYMENT_CARD, Finding
from adk_memory_kit.sensitive.numbers import card_network, luhn_valid

#: Digit groups, joined by spaces, hyphens, dots or a line break, possibly glued to letters.
_GROUPS = re.compile(r"\d{1,19}(?:[ \t.-]{0,3}(?:\r?\n[ \t]*)?\d{1,19}){0,7}")
_MAX_GROUPS = 8
_MAYBE = re.compile(r"[A-Za-z][:#]?\d{4}|\d[ \t.-]{0,3}\r?\n[ \t]*\d")


@dataclass(frozen=True)
class SplitCardDetector:
    """Card numbers glued to a word or split over a line break (see the module docstring)."""

    least_digits: ClassVar[int] = 13  # the shortest card number
    name: str = "card_split"

    def find(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        if _MAYBE.search(text) is None:  # nothing glued or split: the number detector's text
            return found
        for m in _GROUPS.finditer(text):
            run = m.group(0)
            if len(run) < 13:
                continue  # fewer than 13 digits: no card
            if "\n" not in run and not (
                (m.start() > 0 and text[m.start() - 1].isalpha())
                or (m.start() > 1 and text[m.start() - 1] in ":#" and text[m.start() - 2].isalpha())
            ):
                continue  # a plain run: the number detector reads those
            groups = [(g.start(), g.end()) for g in re.finditer(r"\d+", run)][:_MAX_GROUPS]
            best = self._card(run, groups)
            if best is not None:
                found.append(
                    Finding(PAYMENT_CARD, self.name, m.start() + best[0], m.start() + best[1])
                )
        return found

    @staticmethod
    def _card(run: str, groups: list[tuple[int, int]]) -> tuple[int, int] | None:
        for i in range(len(groups)):
            digits = ""
            for j in range(i, len(groups)):
                digits += run[groups[j][0] : groups[j][1]]
                if len(digits) > 19:
                    break
                if len(digits) >= 13 and card_network(digits) and luhn_valid(digits):
                    return groups[i][0], groups[j][1]
        return None
