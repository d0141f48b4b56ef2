"""Phone numbers, e-mail and street addresses that the message asks to keep private.

An ordinary phone number or address is a lasting fact worth remembering, so no other layer
flags one. Guarantee: in a message that asks for secrecy (:mod:`.secrecy`: "don't give it
to anyone", "nicht weitergeben", "unlisted", "ex-directory") or calls a number private or
secret, every phone number (:func:`~.public_numbers.phone_spans`, or 7+ digits after a
number word), every e-mail address and every street-address shape (a house number beside
capitalised words) is a ``private_contact`` finding. Linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adk_memory_kit.sensitive.base import PRIVATE_CONTACT, Finding
from adk_memory_kit.sensitive.public_numbers import phone_spans
from adk_memory_kit.sensitive.scan import TextScan
from adk_memory_kit.sensitive.secrecy import asks_secrecy
from adk_memory_kit.sensitive.vocab import Vocabulary

_PRIVATE = Vocabulary(
    "private|privat|privé|privée|privado|privada|privato|privata|secret|secreto|secreta|"
    "geheim|geheime|hemmelig|hemmeligt|pribadi|unlisted|ex-directory"
)
_CAP = r"[A-ZÀ-ÖØ-ÞĀ-Ž][^\W\d_]*\.?"
_JOIN = r"(?:[ \t]+(?:de|des|del|la|le|di|da|do|dos|van|von|der|du|the)[ \t]+|[ \t]+)"
_HOUSE = r"\d{1,5}[A-Za-z]?(?:/\d{1,4})?"
#: A street address: a house number then capitalised words ("14 Rue des Lilas", "22 Mercer
#: Row"), or capitalised words then a house number ("Calle Hidalgo 44", "Lindenweg 9").
_ADDRESS = re.compile(
    rf"\d(?<![\w/.-]\d)\d{{0,4}}[A-Za-z]?(?:/\d{{1,4}})?,?[ \t]+{_CAP}(?:{_JOIN}{_CAP}){{0,3}}"
    rf"|(?<![\w'’.-]){_CAP}(?:{_JOIN}{_CAP}){{0,2}}[ \t]+{_HOUSE}(?![\w/.:-])"
)
_EMAIL = re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
#: Digits in groups after a number word: "handphone 9147 2856", "numéro : 06 ...".
_DIGITS = re.compile(r"\d(?<![\w+]\d)(?:[ .-]?\d){6,14}(?!\d)")
_NUMBER_WORD = re.compile(
    r"(?:phone|number|nummer|numéro|número|numero|mobile|cell|line|handy|cellulaire|"
    r"celular|cellulare|번호|番号)[^\d\n]{0,12}$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class PrivateContactDetector:
    """Phone numbers, e-mail and street addresses in a message that asks to keep them
    private."""

    name: str = "private_contact"

    def find(self, text: str) -> list[Finding]:
        return self.find_in(TextScan(text))

    def find_in(self, scan: TextScan) -> list[Finding]:
        """:meth:`find` on a text read once for every detector."""
        text = scan.text
        if not scan.digits and "@" not in text:
            return []  # every phone number and address holds a digit, every e-mail an "@"
        if not _PRIVATE.found_in(text) and not asks_secrecy(text):
            return []
        spans = set(phone_spans(text))
        spans.update(
            m.span()
            for m in _DIGITS.finditer(text)
            if _NUMBER_WORD.search(text[max(0, m.start() - 32) : m.start()])
        )
        if "@" in text:
            spans.update(m.span() for m in _EMAIL.finditer(text))
        spans.update(m.span() for m in _ADDRESS.finditer(text))
        return [Finding(PRIVATE_CONTACT, self.name, a, b) for a, b in sorted(spans)]
