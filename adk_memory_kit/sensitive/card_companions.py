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

from adk_memory_kit.sensitive.base import BANK_ACCOUNT, IBAN, PAYMENT_CARD, Finding, ascii_digits
from adk_memory_kit.sensitive.public_numbers import public_label_before

DETECTOR = "card_companion"
#: How far after a card number its codes are looked for (characters, same sentence).
REACH = 120
_CODE = re.compile(
    r"(?<![\d/.,:$€£¥₹\-])\d{3,6}(?![\d/%]|[.,:]\d)"
    r"|(?<=,)\d{3,6}(?=,|[ \t]*$)",  # a cell of a CSV row: ",448,"
    re.MULTILINE,
)
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


PIN_ACCOUNT = "pin_account"
#: How far from a PIN the number it opens is looked for (characters, same sentence).
PIN_REACH = 80
#: A PIN's value: 4 to 8 digits of any script, nothing else.
_PIN_VALUE = re.compile(r"\d{4,8}")
#: A number a PIN may open: 7 to 16 digits, single spaces, hyphens or dots between groups,
#: a leading ``+`` allowed (a mobile-money wallet is a phone number).
_ACCOUNT = re.compile(r"(?<![\w.,/-])\+?\d(?:[ .-]?\d){6,15}(?![\w/]|[.,]\d)")
_PIN_DETECTORS = frozenset({"pin", "password", "short_code", "cue_value", "weak_cue_value"})


def pin_accounts(text: str, findings: Iterable[Finding]) -> set[Finding]:
    """The account a PIN opens: a number of 7-16 digits in the same sentence as a PIN
    finding, within ``PIN_REACH`` characters (a mobile-money wallet given as a phone
    number with its PIN: "M-Pesa 0712 448 903, PIN 2281"). Choosing by harm: a message that
    hands over a PIN makes the number it opens a secret, phone-shaped or not; a number
    labelled public (an order, a parcel, a ticket) is not one."""
    found: set[Finding] = set()
    pins = [
        (f.start, f.end)
        for f in findings
        if f.detector in _PIN_DETECTORS and _PIN_VALUE.fullmatch(text, f.start, f.end)
    ]
    if not pins:
        return found
    taken = [(f.start, f.end) for f in findings]
    for start, end in pins:
        lo, hi = max(0, start - PIN_REACH), min(len(text), end + PIN_REACH)
        for before in _SENTENCE_END.finditer(text, lo, start):
            lo = before.end()
        after = _SENTENCE_END.search(text, end, hi)
        if after is not None:
            hi = after.start()
        for m in _ACCOUNT.finditer(text, lo, hi):
            a, b = m.span()
            if any(x < b and a < y for x, y in taken) or public_label_before(text, a):
                continue  # inside another finding, or labelled public (an order number)
            found.add(Finding(BANK_ACCOUNT, PIN_ACCOUNT, a, b))
    return found


BANK_COMPANION = "bank_companion"
#: How far from a bank account its other numbers are looked for (characters, same sentence).
BANK_REACH = 80
#: A branch, transit, institution or clearing number: 3 to 8 digits, a check digit allowed
#: after a hyphen (``8327-9``, ``01029-7``).
_BRANCH = re.compile(r"(?<![\w/.,:$€£¥₹-])\d{3,8}(?:-\d)?(?![\w/%]|[.,:]\d)")


def bank_companions(text: str, findings: Iterable[Finding]) -> set[Finding]:
    """The other numbers of a bank account's sentence: once a message gives an account or
    an IBAN, the 3-8 digit numbers beside it in the same sentence (within ``BANK_REACH``
    characters) are its branch, transit, institution or clearing number ("Scotia account
    000406219, transit 50575"; "agência 3421 conta 01029-7"), in whatever language they are
    named. Not years, amounts, measures, numbers labelled public, or numbers inside another
    finding."""
    found: set[Finding] = set()
    banks = [(f.start, f.end) for f in findings if f.kind in (BANK_ACCOUNT, IBAN)]
    if not banks:
        return found
    taken = [(f.start, f.end) for f in findings]
    for start, end in banks:
        lo, hi = max(0, start - BANK_REACH), min(len(text), end + BANK_REACH)
        for before in _SENTENCE_END.finditer(text, lo, start):
            lo = before.end()
        after = _SENTENCE_END.search(text, end, hi)
        if after is not None:
            hi = after.start()
        for m in _BRANCH.finditer(text, lo, hi):
            a, b = m.span()
            if _YEAR.fullmatch(m.group(0)) or _UNIT.match(text, b):
                continue
            if any(x < b and a < y for x, y in taken) or public_label_before(text, a):
                continue
            found.add(Finding(BANK_ACCOUNT, BANK_COMPANION, a, b))
    return found
