"""Payment cards, IBANs and national ids: candidate spans found by tokenising, then validated
by ``python-stdnum`` (Luhn, ISO 7064 mod 97-10, each country's own id checksum).

A candidate is a run of digits with single separators between them (space, no-break space,
thin space, ``.``, ``/``, ``-``), or an alphanumeric token, so a finding never takes in a
neighbouring word. Each run is cut where its separator changes and only a few spans per run
are validated, so the cost stays linear in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from stdnum import iban as stdnum_iban
from stdnum import luhn
from stdnum.br import cpf
from stdnum.ca import sin
from stdnum.de import idnr
from stdnum.es import dni, nie
from stdnum.fr import nir
from stdnum.gb import nhs
from stdnum.in_ import aadhaar, pan
from stdnum.it import codicefiscale
from stdnum.nl import bsn
from stdnum.pl import pesel
from stdnum.us import ein, ssn

from adk_memory_kit.sensitive.base import (
    GOVERNMENT_ID,
    IBAN,
    PAYMENT_CARD,
    Finding,
    LiteralHeads,
    window_before,
)
from adk_memory_kit.sensitive.scan import TextScan, keyword_matches, register_heads

#: A run of digits, single separators allowed between them. It cannot start inside a word.
_DIGIT_RUN = re.compile(r"\d(?<![\w.,/-]\d)(?:[ \u00a0\u202f\u2009./-]?\d)*")
_GROUP = re.compile(r"\d+")
_RUN_SEPARATORS = " \u00a0\u202f\u2009./-"

#: Words that make a nearby number a payment card whatever its prefix (several languages).
CARD_CONTEXT = re.compile(
    r"(?<![a-z])(?:cards?|credit|debit|visa|master ?card|amex|american express|discover|"
    r"maestro|jcb|diners|union ?pay|cc|cvv2?|cvc2?|exp(?:iry|ires|iration)?|pay|paying|paid|"
    r"payment|charge|charged|billing|karte|kreditkarte|carte|tarjeta|cartão|carta)(?![a-z])"
)
#: A label right before a number that says it is something else ("order number 4000 ...").
NOT_A_CARD_LABEL = re.compile(
    r"(?<![a-z])(?:order|booking|reference|ref|confirmation|tracking|invoice|ticket|"
    r"reservation|pnr|parcel|shipment|package|customer|member(?:ship)?|loyalty|"
    r"frequent flyer|serial|imei|isbn|issn|ean|upc|barcode|transaction|account|case|claim|"
    r"policy|bestell\w*|sendung\w*|commande|pedido|seguimiento)"
    r"(?:\s*(?:number|no\.?|num|nr|#|id|code|nummer|numéro|número))?\s*"
    r"(?:(?:is|was|[:=])\s*)?(?:#\s*)?$"
)


def card_network(digits: str) -> str | None:
    """The card network whose prefix and length ``digits`` match, else ``None``.

    Visa 4 (13, 16 or 19 digits); Mastercard 51-55 or 2221-2720 (16); Amex 34/37 (15);
    Discover 6011, 644-649, 65 (16-19); JCB 3528-3589 (16-19); Diners 300-305, 36, 38, 39
    (14-19); UnionPay 62 (16-19).
    """
    if not digits.isdigit() or len(digits) < 13:
        return None
    n, p2, p3, p4 = len(digits), int(digits[:2]), int(digits[:3]), int(digits[:4])
    if digits[0] == "4" and n in (13, 16, 19):
        return "visa"
    if n == 16 and (51 <= p2 <= 55 or 2221 <= p4 <= 2720):
        return "mastercard"
    if n == 15 and p2 in (34, 37):
        return "amex"
    if 16 <= n <= 19 and (p4 == 6011 or 644 <= p3 <= 649 or p2 == 65):
        return "discover"
    if 16 <= n <= 19 and 3528 <= p4 <= 3589:
        return "jcb"
    if 14 <= n <= 19 and (300 <= p3 <= 305 or p2 in (36, 38, 39)):
        return "diners"
    if 16 <= n <= 19 and p2 == 62:
        return "unionpay"
    return None


def luhn_valid(number: str) -> bool:
    """The Luhn checksum of the digits in ``number`` (``stdnum.luhn``)."""
    digits = "".join(c for c in number if c.isdigit())
    return len(digits) >= 2 and luhn.is_valid(digits)


def iban_valid(candidate: str) -> bool:
    """Whether ``candidate`` is a valid IBAN (``stdnum.iban``: country format and mod 97)."""
    return stdnum_iban.is_valid(candidate)


class _Segment(NamedTuple):
    """Consecutive digit groups of one run joined by one and the same separator: the first
    ``_HEAD_GROUPS`` of them (a span never takes more) and how many there are."""

    groups: list[tuple[int, int]]  # (start, end) of each leading group in the text
    n_groups: int


#: Spans are at most 7 groups, and the group after them is read: only 8 groups are needed.
_HEAD_GROUPS = 8
_STRETCH: dict[str, re.Pattern[str]] = {}


def _stretch(sep: str) -> re.Pattern[str]:
    """More groups joined by ``sep`` (one pattern per separator, kept)."""
    pattern = _STRETCH.get(sep)
    if pattern is None:
        pattern = _STRETCH[sep] = re.compile(rf"(?:{re.escape(sep)}\d+)*")
    return pattern


def _segments(text: str, start: int, end: int) -> list[_Segment]:
    """The run ``text[start:end]`` cut where its separator changes; neighbouring segments
    share their boundary group. Each stretch of one separator is measured by one regex
    match, so a run of many groups costs no Python step per group."""
    segments: list[_Segment] = []
    first = _GROUP.match(text, start, end)
    if first is None:
        return segments
    a, b = first.span()
    while True:
        nxt = _GROUP.search(text, b, end)
        if nxt is None:
            segments.append(_Segment([(a, b)], 1))
            return segments
        sep = text[b : nxt.start()]
        stretch = _stretch(sep).match(text, b, end)  # a starred group: always matches
        stop = b if stretch is None else stretch.end()  # the end of the last group
        groups = [(a, b)]
        for g in _GROUP.finditer(text, b, stop):
            groups.append(g.span())
            if len(groups) >= _HEAD_GROUPS:
                break
        count = 1 + text.count(sep, b, stop) if len(sep) > 0 else len(groups)
        segments.append(_Segment(groups, count))
        if stop >= end:
            return segments
        # the next segment starts with this one's last group
        a = text.rfind(sep, b, stop) + len(sep)
        b = stop


#: Ids that are digits: (detector name, validator, digit count, context cue or None when the
#: grouped layout alone is enough, the layouts (group sizes) that count without a cue).
class _SsnShape:
    """US SSN: ``stdnum.us.ssn``'s area, group and serial rules, but the advertising numbers
    it rejects (078-05-1120 ...) still count: they are what people type into forms."""

    @staticmethod
    def is_valid(digits: str) -> bool:
        if ssn.is_valid(digits):
            return True
        area, group, serial = digits[:3], digits[3:5], digits[5:]
        ok_area = area not in ("000", "666") and area[0] != "9"
        return len(digits) == 9 and ok_area and group != "00" and serial != "0000"


_ID_RULES: tuple[tuple[str, object, int, re.Pattern[str], tuple[tuple[int, ...], ...]], ...] = (
    ("us_ssn", _SsnShape, 9, re.compile(r"ssn|social security|soc\.? sec"), ((3, 2, 4),)),
    ("ca_sin", sin, 9, re.compile(r"(?<![a-z])(?:sin|nas)(?![a-z])|social insurance|"
                                  r"assurance sociale"), ()),
    ("aadhaar", aadhaar, 12, re.compile(r"aadhaa?r|uidai|(?<![a-z])uid(?![a-z])"), ((4, 4, 4),)),
    ("nhs_number", nhs, 10, re.compile(r"(?<![a-z])nhs(?![a-z])"), ()),
    ("fr_nir", nir, 15, re.compile(r"sécu|secu|nir(?![a-z])|carte vitale|sécurité sociale|"
                                   r"securite sociale|social security"),
     ((1, 2, 2, 2, 3, 3, 2),)),
    ("nl_bsn", bsn, 9, re.compile(r"bsn|burgerservice"), ()),
    ("br_cpf", cpf, 11, re.compile(r"(?<![a-z])cpf(?![a-z])"), ((3, 3, 3, 2),)),
    ("de_idnr", idnr, 11, re.compile(r"steuer-?id|steueridentifikation|idnr|"
                                     r"identifikationsnummer|tax id"), ()),
    ("pl_pesel", pesel, 11, re.compile(r"pesel"), ()),
    ("us_ein", ein, 9, re.compile(r"(?<![a-z])(?:ein|tax id|employer id\w*|fein|tin)(?![a-z])"),
     ()),
)  # fmt: skip


#: The rules of each digit count, in ``_ID_RULES`` order.
_IdRule = tuple[str, object, re.Pattern[str], tuple[tuple[int, ...], ...]]
_ID_RULES_BY_LENGTH: dict[int, list[_IdRule]] = {}
for _name, _module, _length, _cue, _layouts in _ID_RULES:
    _ID_RULES_BY_LENGTH.setdefault(_length, []).append((_name, _module, _cue, _layouts))
#: Digit counts a card (13-19) or an id can have: a span of any other count is not tried.
_SPAN_LENGTHS = frozenset(range(13, 20)) | frozenset(_ID_RULES_BY_LENGTH)

_CPF_LAYOUT = re.compile(r"\d{3}\.\d{3}\.\d{3}-\d{2}")


def _expiry_tail(text: str, groups: list[tuple[int, int]], left: int) -> bool:
    """Whether the groups after a span are a card's expiry and security code as people paste
    them on one line: ``MMYY`` (or ``MMYYYY``) with a real month, then at most one group of
    3-4 digits ("4111 1111 1111 1111 0526 657")."""
    if left > 2 or not groups:
        return False
    expiry = text[groups[0][0] : groups[0][1]]
    if len(expiry) not in (4, 6) or not 1 <= int(expiry[:2]) <= 12:
        return False
    return left == 1 or 3 <= groups[1][1] - groups[1][0] <= 4


@dataclass(frozen=True)
class NumberDetector:
    """Cards, digit-only national ids, found in digit runs and validated with ``stdnum``.

    A card is a Luhn-valid 13-19 digit span whose groups (if any) are 3+ digits joined by one
    separator, that is the whole run segment (or ends before a 1-2 digit group such as an
    expiry); it counts when a card word is near, or when it has a card network's prefix and
    length and no label says it is an order, tracking or other number. An id counts when its
    checksum holds and either an id word precedes it or it is written in the id's own layout.
    """

    least_digits: ClassVar[int] = 9  # a run of fewer digits is skipped (no card or id)
    name: str = "numbers"
    window: int = 48

    def find(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        for run in _DIGIT_RUN.finditer(text):
            if run.end() - run.start() < 9:
                continue
            chars = run.group(0)
            if len(chars) - sum(map(chars.count, _RUN_SEPARATORS)) < 9:
                continue  # under 9 digits (a date, a version): no card or id is that short
            if _CPF_LAYOUT.fullmatch(chars) and cpf.is_valid(chars):
                found.append(Finding(GOVERNMENT_ID, "br_cpf", run.start(), run.end()))
                continue
            for seg in _segments(text, run.start(), run.end()):
                found.extend(self._segment(text, seg))
        return found

    def _segment(self, text: str, seg: _Segment) -> list[Finding]:
        groups = seg.groups
        n = seg.n_groups
        sizes_all = tuple([b - a for a, b in groups])
        all_digits = "".join([text[a:b] for a, b in groups])
        # a span is groups[0:k]; it must end the segment, or be followed by a short group
        for k in range(min(n, 7), 0, -1):
            if k < n and sizes_all[k] > 2 and not _expiry_tail(text, groups[k:], n - k):
                continue
            count = sum(sizes_all[:k])
            if count not in _SPAN_LENGTHS:  # no card or id has that many digits
                continue
            start, end = groups[0][0], groups[k - 1][1]
            digits = all_digits[:count]
            sizes = sizes_all[:k]
            hit = self._card(text, start, end, digits, sizes) or self._id(
                text, start, end, digits, sizes
            )
            if hit is not None:
                return [hit]
        return []

    def _card(
        self, text: str, start: int, end: int, digits: str, sizes: tuple[int, ...]
    ) -> Finding | None:
        if not 13 <= len(digits) <= 19 or (len(sizes) > 1 and min(sizes[:-1]) < 3):
            return None
        if len(sizes) > 6 or not luhn.is_valid(digits):
            return None
        before = window_before(text, start, self.window)
        after = text[end : end + self.window // 2].lower()
        if not CARD_CONTEXT.search(before + " " + after):
            if card_network(digits) is None or NOT_A_CARD_LABEL.search(before):
                return None
        return Finding(PAYMENT_CARD, "payment_card", start, end)

    def _id(
        self, text: str, start: int, end: int, digits: str, sizes: tuple[int, ...]
    ) -> Finding | None:
        before: str | None = None
        around = ""
        for name, module, cue, layouts in _ID_RULES_BY_LENGTH.get(len(digits), ()):
            if before is None:
                before = window_before(text, start, self.window)
                around = before + " " + text[end : end + self.window].lower()  # "... is the SIN"
            # the context first (a short regex), the checksum (slower) only where it counts
            if not (
                cue.search(around) or (sizes in layouts and not NOT_A_CARD_LABEL.search(before))
            ):
                continue
            if module.is_valid(digits):  # type: ignore[attr-defined]
                return Finding(GOVERNMENT_ID, name, start, end)
        return None


#: An IBAN's start: a country code and check digits, not inside a word; the tail is read by
#: code, group by group, up to 34 characters.
_IBAN_START = re.compile(r"[A-Za-z](?<![A-Za-z0-9][A-Za-z])[A-Za-z]\d{2}")
_IBAN_TAIL = re.compile(r"(?:[ \u00a0\u202f-]?[A-Za-z0-9]){10,40}")
_ALNUM = re.compile(r"[A-Za-z0-9]+")


def _iban_lengths() -> dict[str, int]:
    """Each country's IBAN length, read from ``python-stdnum``'s registry file (``iban.dat``)."""
    from importlib.resources import files

    lengths: dict[str, int] = {}
    for line in files("stdnum").joinpath("iban.dat").read_text(encoding="utf-8").splitlines():
        m = re.match(r'([A-Z]{2}) .*bban="([^"]+)"', line)
        if m:
            lengths[m.group(1)] = 4 + sum(int(n) for n in re.findall(r"(\d+)!", m.group(2)))
    return lengths


_IBAN_LENGTHS = _iban_lengths()


#: The rest of an IBAN of a given length: that many characters, single separators between.
_IBAN_BODY = {n: re.compile(rf"(?:[ \u00a0\u202f-]?[A-Za-z0-9]){{{n}}}") for n in range(11, 31)}
_NO_SEPARATORS = str.maketrans("", "", " \u00a0\u202f-")


#: Each letter as its base-36 value (A=10 ... Z=35), for the mod 97 check.
_BASE36 = str.maketrans({c: str(int(c, 36)) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"})


def _mod97(compact: str) -> bool:
    """ISO 7064 mod 97-10 of an upper-case alphanumeric IBAN (a cheap test before
    ``stdnum``'s full one)."""
    rearranged = (compact[4:] + compact[:4]).translate(_BASE36)
    if not (rearranged.isascii() and rearranged.isdigit()):
        return False
    return int(rearranged) % 97 == 1


@dataclass(frozen=True)
class IbanDetector:
    """IBANs in either case, compact or grouped, validated by ``stdnum.iban``.

    The span grows group by group and ends at the longest prefix that validates, so the
    word after a grouped IBAN ("... 2874 is my account") is never taken in.
    """

    least_digits: ClassVar[int] = 2  # the check digits
    name: str = "iban"
    kind: str = IBAN

    def find(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        memo: dict[str, int | None] = {}
        pos = 0
        while True:
            head = _IBAN_START.search(text, pos)
            if head is None:
                return found
            expected = _IBAN_LENGTHS.get(head.group(0)[:2].upper())
            best = None
            # the outcome depends only on the next 90 characters: a flood is read once
            key = text[head.start() : head.start() + 90]
            if expected and key in memo:
                rel = memo[key]
                best = None if rel is None else head.start() + rel
                expected = None
            tail = _IBAN_TAIL.match(text, head.end()) if expected else None
            if tail is not None and expected is not None and 15 <= expected <= 34:
                # exactly the country's length, ending where a group ends
                body = _IBAN_BODY[expected - 4].match(text, head.end(), tail.end())
                if body is not None and not text[body.end() : body.end() + 1].isalnum():
                    compact = (head.group(0) + body.group(0)).translate(_NO_SEPARATORS).upper()
                    if _mod97(compact) and stdnum_iban.is_valid(compact):
                        best = body.end()
            if expected and len(memo) < 4096:
                memo[key] = None if best is None else best - head.start()
            if best is not None:
                found.append(Finding(self.kind, self.name, head.start(), best))
                pos = best
            else:
                pos = head.start() + 1


#: Alphanumeric ids: a shape that is cheap to test, then the library's checksum (PAN and the
#: UK National Insurance number have none: their shape and a cue are what there is).
#: Only runs with a digit are ids (a run without one is all letters, or has ``-``/``_`` and is
#: no id either); the run's first character is the only place it is tried, so the lookahead
#: reads each run once.
_ALNUM_ID = re.compile(r"(?<![A-Za-z0-9_-])(?=[A-Za-z_-]*\d)[A-Za-z0-9_-]{8,}")
_NINO = re.compile(
    r"(?<![\w-])(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
    r"[ ]?\d{2}[ ]?\d{2}[ ]?\d{2}[ ]?[A-D](?![\w-])"
)
_NINO_HINT = re.compile(r"[A-Z]{2} ?\d\d")
_NINO_HINTS_TRIED = 32
_PAN_SHAPE = re.compile(r"[A-Z]{3}[PCHFATBLJG][A-Z]\d{4}[A-Z]")
_DNI_SHAPE = re.compile(r"\d{8}[A-Za-z]")
_NIE_SHAPE = re.compile(r"[XYZxyz]\d{7}[A-Za-z]")
_CF_SHAPE = re.compile(r"[A-Za-z]{6}\d{2}[A-Za-z]\d{2}[A-Za-z]\d{3}[A-Za-z]")
_DNI_CUE = re.compile(r"(?<![a-z])(?:dni|nie|nif|documento|identidad|ausweis|id)(?![a-z])")


@dataclass(frozen=True)
class AlnumIdDetector:
    """India PAN, Spanish DNI/NIE, Italian codice fiscale (stdnum) and UK NINO (shape)."""

    least_digits: ClassVar[int] = 4  # a PAN's (the fewest of these ids)
    name: str = "alnum_ids"

    def find(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        for m in _ALNUM_ID.finditer(text):
            token = m.group(0)
            if len(token) > 16 or not token.isalnum() or token.isalpha():
                continue
            if m.start() and text[m.start() - 1] in "-_":
                continue
            name = None
            if len(token) == 10 and _PAN_SHAPE.fullmatch(token) and pan.is_valid(token):
                name = "india_pan"
            elif len(token) == 9 and _DNI_SHAPE.fullmatch(token) and dni.is_valid(token):
                name = "es_dni"
            elif len(token) == 9 and _NIE_SHAPE.fullmatch(token) and nie.is_valid(token):
                name = "es_nie"
            elif len(token) == 16 and _CF_SHAPE.fullmatch(token):
                if codicefiscale.is_valid(token):
                    name = "it_codice_fiscale"
            if name == "es_dni" and not token[-1].isupper():
                if not _DNI_CUE.search(window_before(text, m.start(), 40)):
                    name = None
            if name is not None:
                found.append(Finding(GOVERNMENT_ID, name, m.start(), m.end()))
        # a NINO starts where its hint (two capitals, then two digits) starts, and no NINO
        # starts inside a hint: the pattern is tried at the hints only (same matches); past
        # a few dozen hints (a flood) the pattern's own scan from there is cheaper
        pos, tried = 0, 0
        for hint in _NINO_HINT.finditer(text):
            if hint.start() < pos:
                continue
            tried += 1
            if tried > _NINO_HINTS_TRIED:
                for rest in _NINO.finditer(text, pos):
                    found.append(Finding(GOVERNMENT_ID, "uk_nino", rest.start(), rest.end()))
                break
            nino = _NINO.match(text, hint.start())
            if nino is not None:
                found.append(Finding(GOVERNMENT_ID, "uk_nino", nino.start(), nino.end()))
                pos = nino.end()
        return found


#: A document's name ("passport number", "Reisepassnummer", "numéro de passeport").
ID_DOCUMENT = re.compile(
    r"(?<![A-Za-z])(?:passport|reisepass\w*|passeport|pasaporte|national id(?:entity)?(?: card)?|"
    r"identity card|id card|personalausweis\w*|carte d'identité|driver'?s? licen[cs]e|"
    r"driving licen[cs]e|führerschein\w*|permis de conduire|licencia de conducir|"
    r"personnummer)(?![A-Za-z])",
    re.IGNORECASE,
)
_DOC_HEADS = LiteralHeads(
    r"passport|reisepass|passeport|pasaporte|national|identity|id card|personalausweis|"
    r"carte d|driv|führerschein|permis|licencia|personnummer"
)
_DOC_SET = register_heads("id_document", _DOC_HEADS)
_DOC_NEEDLES = ("pass", "ausweis", "identit", "id card", "national id", "licen", "führerschein",
                "permis", "personnummer")  # fmt: skip
#: A document number: capitals and digits (one hyphen allowed), not inside a word; 5+
#: digits, or 4+ among 8+ characters (an id card's letters and digits: ``LK7R3N9T2``).
_DOC_NUMBER = re.compile(
    r"(?<![\w-])(?=(?:[A-Z-]{0,18}\d){5}|(?=[A-Z0-9-]{8})(?:[A-Z-]{0,18}\d){4})"
    r"[A-Z0-9]{4,18}(?:-[A-Z0-9]{2,8})?(?![\w-])"
)


_ABBREV = re.compile(r"(?i)\b(?:no|nr|num)\.")
_SENTENCE_BREAK = re.compile(r"[.!?;\n]\s")


@dataclass(frozen=True)
class IdDocumentDetector:
    """A passport, licence or id-card number near its name (within ``window`` characters
    either side, same sentence); the number is the span."""

    least_digits: ClassVar[int] = 4  # a document number's
    name: str = "id_document"
    window: int = 60

    def find(self, text: str) -> list[Finding]:
        return self.find_in(TextScan(text))

    def find_in(self, scan: TextScan) -> list[Finding]:
        """:meth:`find` on a text read once for every detector."""
        text = scan.text
        found: list[Finding] = []
        last = 0
        for kw in keyword_matches(scan, _DOC_SET, ID_DOCUMENT, _DOC_HEADS, _DOC_NEEDLES):
            lo = max(last, kw.start() - self.window)
            hi = min(len(text), kw.end() + self.window)
            for m in _DOC_NUMBER.finditer(text, lo, hi):
                between = text[min(m.end(), kw.end()) : max(m.start(), kw.start())]
                between = _ABBREV.sub("no", between)  # "passport no. X"
                if _SENTENCE_BREAK.search(between):
                    continue
                found.append(Finding(GOVERNMENT_ID, "id_document", m.start(), m.end()))
            last = hi
        return found
