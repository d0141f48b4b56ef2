"""The fail-closed layer: a value-shaped token near a cue word is a secret.

Checksums (python-stdnum) and vendor formats (detect-secrets) are the high-confidence
layers; this one catches what has no format: a door code, a locker combination, an account
number, a passport number of a country no library knows, a password given in Japanese.

Guarantees:

- A *value-shaped* token is a digit run of 4 or more (groups joined by a space or a hyphen
  count together: ``20-00-00``, ``123 456``), a token of 5+ characters mixing letters and
  digits, or, after a strong cue, a quoted or colon-introduced string.
- It counts when it follows a cue (:mod:`~adk_memory_kit.sensitive.cues`) within
  ``WINDOW`` characters on the same line and sentence, or stands just before one as
  ``<value> is the <cue>``. The value alone is the finding.
- Not values: years after an id, bank or weak cue, dates, amounts (a currency sign or a
  unit after), versions, cues used as another noun (``zip code``, ``public key``,
  ``order id``, ``source code``), and values a public label names (an order, a parcel, a
  booking: :mod:`.public_numbers`, from ``LABEL_REACH`` characters before the cue) unless
  the cue is a strong credential or recovery cue. Weak cues count only at ``strict``.
- Linear: one pass for cues (a prefix tree), a bounded window after each.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adk_memory_kit.sensitive.base import (
    BANK_ACCOUNT,
    CREDENTIAL,
    GOVERNMENT_ID,
    PAYMENT_CARD,
    RECOVERY,
    Finding,
)
from adk_memory_kit.sensitive.cues import SHORT_VALUE_CUES, Cue
from adk_memory_kit.sensitive.passwords import PROSE_WORDS
from adk_memory_kit.sensitive.public import placeholder_value
from adk_memory_kit.sensitive.public_numbers import public_label_before
from adk_memory_kit.sensitive.scan import TextScan
from adk_memory_kit.sensitive.settings import is_strict

CUE_VALUE = "cue_value"  # the detector name of this layer's findings after a strong cue
WEAK_CUE_VALUE = "weak_cue_value"  # ... after a weak cue (code, key, id, account ...)
CUE_VALUES = frozenset({CUE_VALUE, WEAK_CUE_VALUE})
WINDOW = 56
#: How far before its cue a public label ("order", "rastreio", "予約") still names a value.
LABEL_REACH = 24
#: A strong credential cue reads further ("password is the dog's name + the year, so X").
STRONG_WINDOW = 100
#: A recovery cue reads further: a list of codes may follow on the next lines.
RECOVERY_WINDOW = 400
_TOKEN = re.compile(r"[!-~\u00a1-\u024f]+")
_DIGIT_RUN = re.compile(r"\d(?:[ -]?\d)*")
_LETTER = re.compile(r"[A-Za-z\u00c0-\u024f]")
_DIGIT = re.compile(r"\d")
_STRIP = ".,;:!?)]}>\"'`\u201d\u2019\u00bb*"
_OPEN = "([{<\"'`\u201c\u2018\u00ab*"
_QUOTES = {'"': '"', "'": "'", "`": "`", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb",
           "\u300c": "\u300d"}  # fmt: skip
#: A cue used as another noun: the word before it (lower case) or after it.
_NOT_BEFORE = {
    "code": "zip postal post area country source error status exit return http promo discount "
    "coupon referral qr bar colour color dress iso airport currency language product sku "
    "tracking style morse machine byte op station the_source sample example fragment dead "
    "legacy confirmation booking reservation gift voucher",
    "codes": "zip postal area country source error status exit return http promo discount "
    "coupon qr bar colour color dress iso airport currency language sample",
    "key": "public primary foreign sort house car hot music major minor low high ssh gpg pgp "
    "dictionary hash map lookup partition cache shift escape enter space composite unique "
    "row index",
    "keys": "public primary foreign house car hot music dictionary hash map ssh arrow",
    "id": "order ticket issue bug pr commit build job request transaction invoice tracking "
    "product part item row record process thread event message video channel playlist post "
    "comment column table primary foreign object task run trace span correlation device "
    "session container image node pod cluster instance workspace project app client "
    "vendor sku model serial batch lot shipment package parcel booking reservation "
    "confirmation flight seat room git hash document doc file page meeting zoom webex "
    "tenant subscription resource group region zone",
    "number": "order ticket issue bug part model serial item invoice tracking phone page "
    "version build room flight seat table house street lot batch reference confirmation "
    "booking reservation shipment",
    "account": "twitter instagram github gitlab google apple microsoft email e-mail the_new "
    "service guest demo test admin root",
    "user": "power end super new the_other",
    "license": "mit apache bsd gpl software creative open-source open",
    "licence": "mit apache bsd gpl software creative open",
    "pass": "boarding bus day season ski hall gym park rail travel museum train metro week "
    "weekly monthly annual festival backstage press visitor guest free first second "
    "mountain transit ferry car parking fast vip mountain hall",
    "token": "jwt_format",
    "seed": "random rng",
    "combination": "color colour",
}
_NOT_AFTER = {
    "code": "review reviews base bases block blocks smell smells snippet sample path editor",
    "key": "takeaway takeaways point points factor factors findings metric metrics "
    "moment part player role insight insights idea ideas board fingerprint id",
    "id": "card",  # "id card" is its own cue
    "account": "manager managers executive",
    "user": "story stories interface experience research",
    "token": "limit limits count counts budget",
    "seed": "round funding investor investors",
}
_BEFORE = {k: frozenset(v.replace("_", " ").split()) for k, v in _NOT_BEFORE.items()}
_AFTER = {k: frozenset(v.split()) for k, v in _NOT_AFTER.items()}
_PREV_WORD = re.compile(r"([\w'-]+)[ \t]*$")
_NEXT_WORD = re.compile(r"[ \t]*([\w'-]+)")

_CURRENCY = "$€£¥₹₩¢"
_UNIT_AFTER = re.compile(
    r"[ \t]?(?:%|k\b|m\b|usd|eur|gbp|dollars?|euros?|pounds?|yen|rupees?|bucks|mg|ml|kg|g\b|"
    r"km|mi\b|miles?|ft|feet|meters?|metres?|days?|weeks?|months?|years?|hours?|hrs?|"
    r"minutes?|mins?|seconds?|secs?|ms\b|steps|calories|kcal|people|users|rows|items|times|"
    r"words|characters|chars|digits|pages|gb|mb|kb|tb|px|dpi|rpm|mph|kph|°)",
    re.IGNORECASE,
)
#: A number after one of these words is a label's number, not a secret ("port 8080").
_NUMBER_LABELS = frozenset(
    "port ext extension line room floor suite apt unit page step row col column chapter "
    "section version build release issue ticket order invoice flight gate platform bus route "
    "item part model serial sku lot batch table figure episode season level".split()
)
_PHONE = re.compile(r"(?:1-)?\d{3}-\d{3}-\d{4}|\d{3} \d{3} \d{4}")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_MASKED = re.compile(r"(?:[*•]|(?<![A-Za-z])[xX]{2,})[- ]?$")
_YEAR = re.compile(r"(?:19|20)\d\d")
_DATE = re.compile(r"(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}-\d{1,2}-\d{4})")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+")
_SENTENCE_END = re.compile(r"[.!?。！？](?:\s|$)|\n\s*\n")
#: ``<value> is the <cue>``: the value before the cue, joined by a verb.
_VALUE_BEFORE = re.compile(
    r"([A-Za-z0-9][A-Za-z0-9_./+-]{3,63})[\"'\u201d\u2019]?[ \t]+"
    r"(?:is|was|=|es|est|ist|era|é|è|sind|are)[ \t]+(?:[\w'-]+[ \t]+){0,3}$",
    re.IGNORECASE,
)
_VERB = re.compile(r"[ \t](?:is|was|=|es|est|ist|era|é|è|sind|are)[ \t]", re.IGNORECASE)
_CONNECT = re.compile(r"[ \t]*(?:[:=：]|->|=>|は|が|を)[ \t]*")
#: What a ``_PUBLIC_VALUE`` match can start with (the long s matches "s" ignoring case).
_PUBLIC_HEADS = frozenset("sehwSEHW\u017f")
_PUBLIC_VALUE = re.compile(
    r"(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2|sha(?:1|256|384|512)-|sk-ssh|https?://|www\.)",
    re.IGNORECASE,
)
#: Fewest digits of a value by the cue's kind: bank numbers have 6 or more (sort code, BSB,
#: routing, accounts), a card 12 or more (a mistyped one has no Luhn to pass).
_LEAST_DIGITS = {BANK_ACCOUNT: 6, PAYMENT_CARD: 12}
_TALK_AFTER_STRONG = PROSE_WORDS | frozenset(
    "same here there what which your my our this that please reset expired".split()
)


def _mixed(token: str) -> bool:
    return (
        len(token) >= 5
        and "\\" not in token
        and "{" not in token
        and _UUID.fullmatch(token) is None
        and _LETTER.search(token) is not None
        and _DIGIT.search(token) is not None
        and _VERSION.fullmatch(token) is None
    )


def _digit_value(
    text: str, start: int, end: int, cue: Cue, least: int = 4
) -> tuple[int, int] | None:
    """The first digit run of ``least``+ digits in ``text[start:end]`` that is not a year,
    date or amount (for this cue), as a span."""
    for m in _DIGIT_RUN.finditer(text, start, end):
        run = m.group(0)
        digits = sum(c.isdigit() for c in run)
        if digits < least:
            continue
        if m.start() > 0 and text[m.start() - 1] in _CURRENCY + ".*•":
            continue  # an amount, a decimal, a masked number (***-4417)
        if _MASKED.search(text, max(0, m.start() - 6), m.start()):
            continue
        label = _PREV_WORD.search(text, max(0, m.start() - 16), m.start())
        if label is not None and label.group(1).lower().rstrip(".#:") in _NUMBER_LABELS:
            continue
        if cue.kind != CREDENTIAL and _PHONE.fullmatch(run):
            continue
        if m.end() < len(text) and text[m.end()] in ".,":
            nxt = text[m.end() + 1 : m.end() + 2]
            if nxt.isdigit():  # 1,200 or 3.14: an amount or a measure
                continue
        if _UNIT_AFTER.match(text, m.end()):
            continue
        soft = cue.kind != CREDENTIAL or not cue.strong
        if soft and _YEAR.fullmatch(run):
            continue
        if cue.kind != BANK_ACCOUNT and _DATE.fullmatch(run):
            continue
        return m.start(), m.end()
    return None


def _excluded(lower: str, start: int, end: int, word: str) -> bool:
    before = _BEFORE.get(word)
    if before:
        m = _PREV_WORD.search(lower, max(0, start - 24), start)
        if m and m.group(1) in before:
            return True
        m2 = re.search(r"([\w'-]+[ \t]+[\w'-]+)[ \t]*$", lower[max(0, start - 32) : start])
        if m2 and m2.group(1) in before:
            return True
    after = _AFTER.get(word)
    if after:
        m = _NEXT_WORD.match(lower, end)
        if m and m.group(1) in after:
            return True
    return False


def _read_enough(spans: list[tuple[int, int]], many: bool, fillers: int, most_words: int) -> bool:
    """Whether the words read since the last value end the search after a cue: past two once a
    list cue (``many``) found a value, past ``most_words`` while none was found."""
    return (bool(spans) and many and fillers > 2) or (not spans and fillers > most_words)


@dataclass(frozen=True)
class CueValueDetector:
    """Value-shaped tokens near a cue word (see the module docstring); the value is the span."""

    name: str = CUE_VALUE

    def find(self, text: str) -> list[Finding]:
        return self.find_in(TextScan(text))

    def find_in(self, scan: TextScan) -> list[Finding]:
        text = scan.text
        lower = scan.cue_text
        strict = is_strict()
        found: list[Finding] = []
        covered = 0
        # the outcome depends only on the text around the cue: a text that repeats one
        # context many times (a flood) is read once per distinct context
        memo: dict[tuple[str, int, bool], list[tuple[int, int]]] = {}
        for start, end, cue in scan.cues():
            if not cue.strong and not strict:
                continue
            lo = max(0, start - 72)
            hi = min(len(text), end + RECOVERY_WINDOW + 8)
            key = (text[lo:hi], start - lo, hi == len(text))
            rel = memo.get(key)
            if rel is None:
                rel = [(a - start, b - start) for a, b in self._spans(text, lower, start, end, cue)]
                if len(memo) < 4096:
                    memo[key] = rel
            for a, b in rel:
                a, b = a + start, b + start
                if a >= covered or b <= start:
                    name = self.name if cue.strong else WEAK_CUE_VALUE
                    found.append(Finding(cue.kind, name, a, b))
                    covered = max(covered, b)
        return found

    def _spans(
        self, text: str, lower: str, start: int, end: int, cue: Cue
    ) -> list[tuple[int, int]]:
        """The values of the cue ``lower[start:end]``: the one before it, then those after it."""
        word = lower[start:end]
        if _excluded(lower, start, end, word):
            return []
        spans: list[tuple[int, int]] = []
        lo = max(0, start - 64)
        # every value holds a digit, and "<value> is the <cue>" a verb between blanks
        if _DIGIT.search(text, lo, start) and _VERB.search(text, lo, start):
            before = _VALUE_BEFORE.search(text, lo, start)
            if before is not None and self._shaped(before.group(1), cue, text, before.start(1)):
                if not _SENTENCE_END.search(text, before.end(1), start):
                    spans.append(before.span(1))
        spans += self._after(text, end, cue, word)
        if spans and not (cue.strong and cue.kind in (CREDENTIAL, RECOVERY)):
            # "código de rastreio ... é NL4829": a public label near the cue names the value
            lo = max(0, start - LABEL_REACH)
            spans = [(a, b) for a, b in spans if not public_label_before(text, a, a - lo)]
        return spans

    @staticmethod
    def _shaped(token: str, cue: Cue, text: str, at: int) -> bool:
        token = token.rstrip(_STRIP)
        if _PUBLIC_VALUE.match(token):
            return False
        if _mixed(token):
            return True
        return _digit_value(text, at, at + len(token), cue) is not None

    def _after(self, text: str, pos: int, cue: Cue, word: str) -> list[tuple[int, int]]:
        """Spans of values after the cue ending at ``pos``: the first one, or, after a
        recovery or bank cue, every value in the list that follows."""
        many = cue.kind in (RECOVERY, BANK_ACCOUNT)
        least = _LEAST_DIGITS.get(cue.kind, 4)
        if word in SHORT_VALUE_CUES:
            least = 3
        size = RECOVERY_WINDOW if cue.kind == RECOVERY else WINDOW
        if cue.kind == CREDENTIAL and cue.strong:
            size = STRONG_WINDOW
        limit = min(len(text), pos + size)
        if not many:
            nl = text.find("\n", pos, limit)
            if nl >= 0 and text[pos:nl].strip(" \t:=：\"'"):
                limit = nl
            end = _SENTENCE_END.search(text, pos, limit)
            if end is not None:
                limit = end.start() + 1
        spans: list[tuple[int, int]] = []
        introduced = _CONNECT.match(text, pos)
        if introduced is not None and cue.strong and cue.kind != PAYMENT_CARD:
            span = self._introduced(text, introduced.end(), limit, cue)
            if span is not None:
                if not many:
                    return [span]
                spans.append(span)
                pos = span[1]
        if _DIGIT.search(text, pos, limit) is None:
            return spans  # no value left: every value-shaped token holds a digit
        fillers = 0
        most_words = 12 if size == STRONG_WINDOW else 6
        for tok in _TOKEN.finditer(text, pos, limit):
            raw = tok.group(0)
            if _DIGIT.search(raw) is None:  # a word (no value): read without cutting it out
                if raw.startswith("[REDACTED:"):
                    return spans  # the cue's value already redacted
                if _LETTER.search(raw) is None:
                    continue  # punctuation (no public value starts there)
                if raw.lstrip(_OPEN)[:1] in _PUBLIC_HEADS:
                    b = tok.end() - (len(raw) - len(raw.rstrip(_STRIP)))
                    if _PUBLIC_VALUE.match(text[tok.end() - len(raw.lstrip(_OPEN)) : b]):
                        return spans
                fillers += 1
                if _read_enough(spans, many, fillers, most_words):
                    return spans
                continue
            a = tok.start() + (len(raw) - len(raw.lstrip(_OPEN)))
            b = tok.end() - (len(raw) - len(raw.rstrip(_STRIP)))
            if a >= b:
                continue
            token = text[a:b]
            if _PUBLIC_VALUE.match(token) or raw.startswith("[REDACTED:"):
                return spans  # a public value, or the cue's value already redacted
            if _DIGIT.search(token) is None:  # a word: no value (every value holds a digit)
                if _LETTER.search(token):
                    fillers += 1
                    if _read_enough(spans, many, fillers, most_words):
                        return spans
                continue
            if _mixed(token) and cue.kind not in (BANK_ACCOUNT, PAYMENT_CARD):
                spans.append((a, b))
            else:
                # a digit run split by spaces ("1234 5678") is one value: read it whole
                run = _DIGIT_RUN.match(text, a)
                digits = _digit_value(text, a, max(b, run.end() if run else b), cue, least)
                if digits is not None:
                    spans.append(digits)
                elif _LETTER.search(token):
                    fillers += 1
                    if _read_enough(spans, many, fillers, most_words):
                        return spans
                    continue
                else:
                    continue
            fillers = 0
            if not many:
                return spans
        return spans

    @staticmethod
    def _introduced(text: str, pos: int, limit: int, cue: Cue) -> tuple[int, int] | None:
        """A quoted string or one token right after ``:``/``=``/``は`` following a strong cue."""
        if pos >= limit:
            return None
        close = _QUOTES.get(text[pos])
        if close is not None:
            end = text.find(close, pos + 1, limit)
            if end > pos + 3 and "\n" not in text[pos:end]:
                return pos + 1, end
            return None
        tok = _TOKEN.match(text, pos, limit)
        if tok is None:
            return None
        raw = tok.group(0)
        b = tok.end() - (len(raw) - len(raw.rstrip(_STRIP)))
        value = text[pos:b]
        if len(value) < 3 or value.lower() in _TALK_AFTER_STRONG or _PUBLIC_VALUE.match(value):
            return None
        if cue.kind in (GOVERNMENT_ID, BANK_ACCOUNT) and sum(map(str.isdigit, value)) < 4:
            return None
        if placeholder_value(value):
            return None
        return pos, b
