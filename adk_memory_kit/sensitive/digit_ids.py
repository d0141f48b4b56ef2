"""Long digit runs are identifiers by default, in any language ("choose by harm when
unsure": redacting an order number costs little, storing an id number costs a lot).

Guarantees: a run of ``LEAST_DIGITS`` to ``MOST_DIGITS`` digits, single separators allowed
(space, ``-``, ``/``, ``.``: ``3-3380-05514-54-1``, ``855811/9504``, ``365 402 620``), not
glued to a letter, is a finding unless it is public by shape or label: a phone number
(:mod:`.public_numbers`), a date or a number starting with a year or a ``yyyymmdd`` date, a
time, an IP address, an amount (a currency sign or a unit next to it, or thousands
groups), a lottery draw (groups of one or two digits), one digit repeated or counted up,
or a number labelled public in its clause (an order, a parcel, an invoice, a ticket, a
product code ...). Linear: one pass, bounded windows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adk_memory_kit.sensitive.base import GOVERNMENT_ID, Finding
from adk_memory_kit.sensitive.public_numbers import phone_shaped, public_label_before

LEAST_DIGITS = 9
MOST_DIGITS = 18
_RUN = re.compile(r"\d(?<![\w.,/:-]\d)(?:[ \u00a0./-]?\d)*")
_GLUED_AFTER = re.compile(r"[^\W\d_]|[.,:]\d|-\w")
_CURRENCY = "$€£¥₹₩¢₦₱₪₺₽฿"
_UNIT_AFTER = re.compile(
    r"[ \t]?(?:%|円|元|원|kr\b|zł|lei|ft\b|eur|usd|gbp|dollars?|euros?|km|kg|mb|gb|mm|cm|"
    r"ms\b|people|users|rows|bytes)",
    re.IGNORECASE,
)
_DATE = re.compile(
    r"(?:\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2})|\d{4}[./-]\d{1,2}[./-]\d{1,2})(?!\d)"
)
_IP = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_THOUSANDS = re.compile(r"\d{1,3}(?:([., ])\d{3})(?:\1\d{3})+")
_YEAR_FIRST = re.compile(r"(?:19|20)\d\d[./-]")
_YMD = re.compile(r"(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])")
_SEPARATORS = re.compile(r"[ \u00a0./-]")


def public_shape(text: str, start: int, end: int) -> bool:
    """Whether the digit run ``text[start:end]`` is public by its shape or what stands
    around it (see the module docstring)."""
    run = text[start:end]
    digits = "".join(c for c in run if c.isdigit())
    if _GLUED_AFTER.match(text, end) or (start and text[start - 1] in _CURRENCY):
        return True
    if _UNIT_AFTER.match(text, end) or text[end : end + 1] == ":":
        return True
    if _DATE.match(run) or _IP.fullmatch(run) or _THOUSANDS.fullmatch(run):
        return True
    if _YEAR_FIRST.match(run) or _YMD.match(digits):
        return True
    groups = _SEPARATORS.split(run)
    if len(groups) >= 4 and all(len(g) <= 2 for g in groups):
        return True  # a lottery draw, coordinates, a spelled-out list
    if len(set(digits)) == 1 or digits in "01234567890123456789" or digits in "9876543210":
        return True
    return phone_shaped(text, start, end)


@dataclass(frozen=True)
class DigitIdDetector:
    """Long digit runs not public by shape or label (see the module docstring)."""

    name: str = "digit_id"

    def find(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        for m in _RUN.finditer(text):
            a, b = m.span()
            n = sum(c.isdigit() for c in m.group(0))
            if not LEAST_DIGITS <= n <= MOST_DIGITS:
                continue
            if public_shape(text, a, b) or public_label_before(text, a):
                continue
            found.append(Finding(GOVERNMENT_ID, self.name, a, b))
        return found
