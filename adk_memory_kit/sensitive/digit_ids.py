"""Long digit runs are identifiers by default, in any language ("choose by harm when unsure":
redacting an order number costs little, storing an id number costs a lot).

Guarantees: a run of ``LEAST_DIGITS`` to ``MOST_DIGITS`` digits, single separators allowed
(space, ``-``, ``/``, ``.``: ``3-3380-05514-54-1``, ``855811/9504``, ``365 402 620``), not
glued to a letter, is a finding (so is one to three capitals, then 7+ digits, hyphens
allowed, and a check character: ``P051298374K``, ``K4172-38906-51204``) unless it is public
by shape or label: a phone number (:mod:`.public_numbers`), a date or a number starting with
a year or a ``yyyymmdd`` date, a time, an IP address, an amount (a currency sign or a unit
next to it, or thousands groups beside a currency or a count word, a round number), a
lottery draw (rising groups of one or two digits), a dummy (one digit three quarters of it)
or counting digits, or a number labelled public in its clause (an order, a parcel, an
invoice, a ticket, a product code ...) or after a phone word. After an IBAN's head (``DE46
``) a run of 10+ digits is a bank account with the head, whatever its checksum. A message
that says its number is public gives none. Linear: one pass, bounded windows.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import ClassVar

from adk_memory_kit.sensitive.base import (
    BANK_ACCOUNT,
    GOVERNMENT_ID,
    PAYMENT_CARD,
    Finding,
    ascii_digits,
)
from adk_memory_kit.sensitive.numbers import card_network
from adk_memory_kit.sensitive.public_numbers import (
    phone_shaped,
    phone_word_before,
    public_label_before,
    says_public,
)

LEAST_DIGITS = 9
MOST_DIGITS = 20
#: Digits with single separators (two spaces allowed: a pasted PDF); not inside a word, a
#: decimal or a thousands group (a comma before counts only after a non-digit: a CSV cell).
_RUN = re.compile(
    rf"\d(?<![\w./:-]\d)(?<!\d,\d)(?:(?:[ \u00a0]{{1,2}}|[./-])?\d){{{LEAST_DIGITS - 1},}}"
)
#: An IBAN's country and check digits just before the run (a checksum that fails is still
#: a bank account by harm).
_IBAN_HEAD = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{2} $")
_GLUED_AFTER = re.compile(r"[^\W\d_]|[.:]\d|,\d{3}(?!\d)|-\w")
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
_THOUSANDS = re.compile(r"\d{1,3}(?:([.,])\d{3})(?:\1\d{3})+")
_AMOUNT_NEAR = re.compile(
    r"[$€£¥₹₩¢₦₱₪₺₽฿]|(?<![^\W\d_])(?:usd|eur|gbp|inr|brl|cop|ars|mxn|jpy|cny|rs|rp|kr|zł|"
    r"dollars?|euros?|pesos?|reais|rupees?|yen|yuan|won|lira|rand|naira|shillings?|"
    r"population|visitors|people|inhabitants|habitantes|einwohner)(?![^\W\d_])|[.,]\d\d(?!\d)",
    re.IGNORECASE,
)
_YEAR_FIRST = re.compile(r"(?:19|20)\d\d[./-]")
_YMD = re.compile(r"(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])")
#: An id with letters around its digits: ``GHA-941707467-0``, ``P051298374K``, ``MI5183274X``.
_LETTERED = re.compile(
    r"[A-Z](?<![\w-][A-Z])[A-Z]{0,2}-?(\d{4,12}(?:-\d{3,12}){0,3})(?:-?[A-Z0-9])?"
    r"(?![\w-]|[.,]\w)"
)
#: A Portuguese Cartão de Cidadão's layout: 8 digits, a check digit, two letters, a digit
#: (``14882371 2ZX7``, ``14829375 1 ZX9``): an id whatever its checksum.
_CC_LAYOUT = re.compile(r"\d(?<![\w-]\d)\d{7}[ -]?\d[ -]?[A-Z]{2}\d(?![\w-])")
#: Letters that start a ticket, order or invoice reference (``INC0089341``), not an id.
_REFERENCE_PREFIXES = frozenset(
    "INC REQ CHG PRB RITM TKT REF ORD INV PO SO SR CR RC TX TRX TXN ID NO BK KB".split()
)
_SEPARATORS = re.compile(r"[ \u00a0./-]+")
#: Deletes the separators of a ``_RUN`` match, which leaves its digits.
_NO_SEPARATORS = str.maketrans("", "", " \u00a0./-")


def card_shaped(run: str) -> bool:
    """Whether a digit run is written the way cards are, whatever its checksum (choose by
    harm: a mistyped card is still a card): a card network's prefix and length, or sixteen
    digits in four groups of four (how every card prints its number, national networks
    such as Shetab or RuPay included)."""
    digits = ascii_digits("".join(c for c in run if c.isdigit()))
    if card_network(digits) is not None:
        return True
    groups = _SEPARATORS.split(run)
    return len(groups) == 4 and all(len(g) == 4 for g in groups)


def public_shape(text: str, start: int, end: int) -> bool:
    """Whether the digit run ``text[start:end]`` (a ``_RUN`` match) is public by its shape
    or what stands around it (see the module docstring)."""
    run = text[start:end]
    digits = run.translate(_NO_SEPARATORS)
    if _GLUED_AFTER.match(text, end) or (start and text[start - 1] in _CURRENCY):
        return True
    if _UNIT_AFTER.match(text, end) or text[end : end + 1] == ":":
        return True
    if _DATE.fullmatch(run):
        return True
    if _IP.fullmatch(run) and all(int(g) <= 255 for g in run.split(".")):
        return True
    if _THOUSANDS.fullmatch(run) and _AMOUNT_NEAR.search(text, max(0, start - 16), end + 16):
        return True  # "12.500.000 Euro", "USD 1,250,000"; thousands alone may be an id
    if _YEAR_FIRST.match(run) or _YMD.match(digits):
        return True
    groups = _SEPARATORS.split(run)
    if len(groups) >= 4 and all(len(g) <= 2 for g in groups):
        values = [int(g) for g in groups]
        if all(a < b for a, b in itertools.pairwise(values)):
            return True  # a lottery draw
    if digits in "01234567890123456789" or digits in "9876543210":
        return True
    if max(map(digits.count, set(digits))) * 4 >= len(digits) * 3:
        return True  # a dummy ("4111 1111 1111 1112", "000-000000-0"): one digit dominates
    stripped = digits.rstrip("0")
    if len(digits) - len(stripped) >= 4 and len(stripped) <= 3:
        return True  # a round number ("100 000 000"): a count or an amount
    return phone_shaped(text, start, end)


def _grouped_account(run: str, n: int) -> bool:
    """A bank account of 21-24 digits in groups of 8 (``11773016-01234567-00000000``)."""
    return (
        n <= 24 and len(groups := _SEPARATORS.split(run)) >= 3 and all(len(g) == 8 for g in groups)
    )


@dataclass(frozen=True)
class DigitIdDetector:
    """Long digit runs not public by shape or label (see the module docstring)."""

    least_digits: ClassVar[int] = 7  # a lettered id; a run has LEAST_DIGITS
    name: str = "digit_id"

    def find(self, text: str) -> list[Finding]:
        found = self._found(text)
        return [] if found and says_public(text) else found

    def _found(self, text: str) -> list[Finding]:
        """:meth:`find`'s findings in a message that does not say its number is public."""
        found: list[Finding] = []
        memo: dict[tuple[int, str], bool] = {}  # a flood repeats one context: read it once
        for m in _RUN.finditer(text):
            a, b = m.span()
            n = len(m.group(0).translate(_NO_SEPARATORS))  # its digits
            iban = _IBAN_HEAD.search(text, max(0, a - 5), a)
            if iban is not None and n >= 10:
                found.append(Finding(BANK_ACCOUNT, self.name, iban.start(), b))
                continue
            if not LEAST_DIGITS <= n <= MOST_DIGITS and not _grouped_account(m.group(0), n):
                continue
            key = (min(a, 48), text[max(0, a - 48) : b + 12])
            public = memo.get(key)
            if public is None:
                public = (
                    public_shape(text, a, b)
                    or public_label_before(text, a)
                    or (n <= 15 and phone_word_before(text, a))
                )
                if len(memo) < 4096:
                    memo[key] = public
            if not public:
                kind = PAYMENT_CARD if 13 <= n <= 19 and card_shaped(m.group(0)) else GOVERNMENT_ID
                found.append(Finding(kind, self.name, a, b))
        for m in _CC_LAYOUT.finditer(text):
            if not public_label_before(text, m.start()):
                found.append(Finding(GOVERNMENT_ID, self.name, *m.span()))
        for m in _LETTERED.finditer(text):
            digits = m.group(1)
            if sum(c.isdigit() for c in digits) < 7 or _YEAR_FIRST.match(digits):
                continue
            prefix = m.group(0).split("-")[0].rstrip("0123456789")
            if prefix not in _REFERENCE_PREFIXES and not public_label_before(text, m.start()):
                found.append(Finding(GOVERNMENT_ID, self.name, *m.span()))
        return found
