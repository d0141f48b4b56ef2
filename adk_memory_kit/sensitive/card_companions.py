"""The short codes said with a card: once a message holds a card number, the 3-4 digit
numbers that follow it in the same sentence are its security code or PIN.

Choosing by harm: a message that gives a card rarely holds another short number worth more
than the secret it may be ("the three digits on the back are 650", "cryptogramme 561",
"セキュリティコード 205"), in whatever language the code is named. Only what follows a card
finding counts, within ``REACH`` characters of its sentence.

Guarantees: a companion is a standalone run of 3 to 6 digits of any script (a security code,
a PIN, an online "second password"; or 3-4 digits spelled in English words), not a year
(19xx, 20xx), not part of a date, an amount, a decimal or a longer number, and not followed
by a unit; or the card's expiry (``11/27``, ``06/2028``, ``2028/05``). Each is reported as a
``payment_card`` finding of the ``card_companion`` detector. Linear in the text after each
card.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from adk_memory_kit.sensitive.base import PAYMENT_CARD, Finding, ascii_digits

DETECTOR = "card_companion"
#: How far after a card number its codes are looked for (characters, same sentence).
REACH = 120
_CODE = re.compile(r"(?<![\d/.,:$€£¥₹\-])\d{3,6}(?![\d/%]|[.,:]\d)")
#: A card's expiry: month and year, either order (any script's digits).
_EXPIRY = re.compile(
    r"(?<![\d/.-])(?:(?:0?[1-9]|1[0-2])\s?[/-]\s?(?:20)?\d\d|20\d\d\s?[/-]\s?(?:0?[1-9]|1[0-2]))"
    r"(?![\d/.-])"
)
_DIGIT_WORD = r"(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)"
_SPELLED = re.compile(rf"\b{_DIGIT_WORD}(?:[ -]{_DIGIT_WORD}){{2,3}}\b", re.IGNORECASE)
_YEAR = re.compile(r"(?:19|20)\d\d")
_UNIT = re.compile(
    r"[ \t]?(?:%|€|\$|£|usd|eur|gbp|km|kg|mg|ml|mm|cm|m\b|h\b|min|euros?|dollars?|pesos?|"
    r"reais|yen|円|元|원)",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?。！？](?:\s|$)|\n\s*\n")


def card_companions(text: str, findings: Iterable[Finding]) -> set[Finding]:
    """The short codes that follow each card finding of ``findings`` in ``text``."""
    found: set[Finding] = set()
    cards = sorted({(f.start, f.end) for f in findings if f.kind == PAYMENT_CARD})
    if not cards:
        return found
    taken = [(f.start, f.end) for f in findings]
    text = ascii_digits(text)  # same length: spans carry over
    for _, end in cards:
        stop = min(len(text), end + REACH)
        closing = _SENTENCE_END.search(text, end, stop)
        if closing is not None:
            stop = closing.start() + 1
        for m in _EXPIRY.finditer(text, end, stop):
            if not any(x < m.end() and m.start() < y for x, y in taken):
                found.add(Finding(PAYMENT_CARD, DETECTOR, *m.span()))
        for m in (*_CODE.finditer(text, end, stop), *_SPELLED.finditer(text, end, stop)):
            a, b = m.span()
            if _YEAR.fullmatch(m.group(0)) or _UNIT.match(text, b):
                continue
            if any(x < b and a < y for x, y in taken):
                continue  # inside another finding (another card, an account)
            found.add(Finding(PAYMENT_CARD, DETECTOR, a, b))
    return found
