"""Sensitive-data detection that needs no model: run it before anything is stored.

``detect_sensitive(text)`` returns one :class:`Finding` per hit (empty when the text is clean).
The default list, :data:`DEFAULT_DETECTORS`, covers payment card numbers (Luhn-checked), IBANs
(mod-97 checked), credentials and API keys, government ids and health terms. It is a plain
tuple: pass your own list to add or remove detectors, e.g.

    detectors = (*DEFAULT_DETECTORS, RegexDetector("employee_id", "government_id", r"EMP-\\d{6}"))
    detect_sensitive(text, detectors)

Findings carry the kind and position only, never the matched text, so they are safe to log.

What counts (see ``docs/routing.md`` for the table): a Luhn-valid number is a card when a card
word is near it, or when it has a card network's prefix and length and is not labelled as an
order/booking/tracking number; IBANs in either case at their country's exact length; a named
secret (``DB_PASSWORD=``, "my password for the portal is ...") with its whole value, quoted or
to the end of the sentence; PINs and CVVs as digits; health terms unless negated ("no
allergies"), the acronyms STD/STI/AIDS only in capitals, "depression" only in personal
phrasing.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

PAYMENT_CARD = "payment_card"
IBAN = "iban"
CREDENTIAL = "credential"
GOVERNMENT_ID = "government_id"
HEALTH = "health"


@dataclass(frozen=True)
class Finding:
    """One sensitive span: its kind (e.g. ``payment_card``), the detector and the position."""

    kind: str
    detector: str
    start: int
    end: int


@runtime_checkable
class Detector(Protocol):
    """Anything with a ``name`` and a ``find(text)`` returning findings."""

    name: str

    def find(self, text: str) -> Iterable[Finding]: ...


@dataclass(frozen=True)
class RegexDetector:
    """A regular expression, optionally confirmed by ``validate(matched_text)``."""

    name: str
    kind: str
    pattern: str
    flags: int = 0
    validate: Callable[[str], bool] | None = None

    def find(self, text: str) -> list[Finding]:
        found = []
        for match in re.finditer(self.pattern, text, self.flags):
            if self.validate is None or self.validate(match.group(0)):
                found.append(Finding(self.kind, self.name, match.start(), match.end()))
        return found


@dataclass(frozen=True)
class TermDetector:
    """Whole-word terms (each a regex fragment), case-insensitive unless ``case_sensitive``."""

    name: str
    kind: str
    terms: tuple[str, ...]
    case_sensitive: tuple[str, ...] = ()

    def find(self, text: str) -> list[Finding]:
        found = []
        for terms, flags in ((self.terms, re.IGNORECASE), (self.case_sensitive, 0)):
            if not terms:
                continue
            pattern = r"(?<![\w-])(?:" + "|".join(terms) + r")(?![\w-])"
            for match in re.finditer(pattern, text, flags):
                found.append(Finding(self.kind, self.name, match.start(), match.end()))
        return found


# ---------------------------------------------------------------- checksums
def luhn_valid(number: str) -> bool:
    """The Luhn checksum of the digits in ``number`` (payment cards)."""
    digits = [int(c) for c in number if c.isdigit()]
    if len(digits) < 2:
        return False
    total = 0
    for i, d in enumerate(reversed(digits)):
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


# ---------------------------------------------------------------- payment cards
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


#: Words that make a nearby number a payment card whatever its prefix.
CARD_CONTEXT = (
    r"(?<![A-Za-z])(?:cards?|credit|debit|visa|master ?card|amex|american express|discover|"
    r"maestro|jcb|diners|union ?pay|cc|cvv2?|cvc2?|exp(?:iry|ires|iration)?|pay|paying|paid|"
    r"payment|charge|charged|billing)(?![A-Za-z])"
)
#: A label right before a number that says it is not a card ("order number 4000 ...").
NOT_A_CARD_LABEL = (
    r"(?<![A-Za-z])(?:order|booking|reference|ref|confirmation|tracking|invoice|ticket|"
    r"reservation|pnr|parcel|shipment|customer|member(?:ship)?|loyalty|frequent flyer|serial|"
    r"imei|isbn|transaction)(?:\s*(?:number|no\.?|num|nr|#|id|code))?\s*(?:(?:is|was|[:=])\s*)?"
    r"(?:#\s*)?$"
)


@dataclass(frozen=True)
class PaymentCardDetector:
    """Luhn-valid 13-19 digit numbers that are plausibly payment cards.

    A Luhn-valid number counts when a card word (``card``, ``visa``, ``pay``, ``cvv`` ...)
    is within ``window`` characters of it, or, without such a word, when it has a card
    network's prefix and length (:func:`card_network`) and is not labelled as something else
    right before it ("order number 4000 0000 0000 0002" is an order number). One random number
    in ten passes Luhn, so a bare 16-digit id starting with 1, 7, 8, 9 or 0 is not a card.
    """

    name: str = "payment_card"
    kind: str = PAYMENT_CARD
    pattern: str = r"(?<![\w-])(?:\d[ -]?){12,18}\d(?![\w-])"
    context: str = CARD_CONTEXT
    not_a_card_label: str = NOT_A_CARD_LABEL
    window: int = 60

    def find(self, text: str) -> list[Finding]:
        found = []
        for match in re.finditer(self.pattern, text):
            digits = re.sub(r"\D", "", match.group(0))
            if not 13 <= len(digits) <= 19 or not luhn_valid(digits):
                continue
            before = text[max(0, match.start() - self.window) : match.start()]
            after = text[match.end() : match.end() + self.window // 2]
            near = re.search(self.context, before + " " + after, re.IGNORECASE)
            if not near:
                if card_network(digits) is None:
                    continue
                if re.search(self.not_a_card_label, before, re.IGNORECASE):
                    continue
            found.append(Finding(self.kind, self.name, match.start(), match.end()))
        return found


# ---------------------------------------------------------------- IBANs
_IBAN_LENGTHS = {
    "AD": 24, "AE": 23, "AT": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29, "CH": 21, "CY": 28,
    "CZ": 24, "DE": 22, "DK": 18, "EE": 20, "ES": 24, "FI": 18, "FR": 27, "GB": 22, "GI": 23,
    "GR": 27, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IS": 26, "IT": 27, "KW": 30, "LI": 21,
    "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MT": 31, "NL": 18, "NO": 15, "PL": 28, "PT": 25,
    "QA": 29, "RO": 24, "SA": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "TR": 26, "UA": 29,
}  # fmt: skip


def iban_valid(candidate: str) -> bool:
    """ISO 13616 check: known country length (when known) and mod-97 == 1."""
    compact = re.sub(r"\s", "", candidate).upper()
    expected = _IBAN_LENGTHS.get(compact[:2])
    if expected is not None:
        if len(compact) < expected:
            return False
        compact = compact[:expected]
    elif not 15 <= len(compact) <= 34:
        return False
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]+", compact):
        return False
    rearranged = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in rearranged)) % 97 == 1


@dataclass(frozen=True)
class IbanDetector:
    """IBANs in either case, written compact or in groups of four, mod-97 checked.

    For a country with a known IBAN length the number must have exactly that length (so the
    finding never runs into the next word); other countries need 15-34 characters.
    """

    name: str = "iban"
    kind: str = IBAN
    pattern: str = (
        r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}"
        r"(?:[A-Za-z0-9]{11,30}|(?: [A-Za-z0-9]{4}){2,7}(?: [A-Za-z0-9]{1,3})?)"
        r"(?![A-Za-z0-9])"
    )

    def find(self, text: str) -> list[Finding]:
        found = []
        for match in re.finditer(self.pattern, text):
            compact = match.group(0).replace(" ", "").upper()
            expected = _IBAN_LENGTHS.get(compact[:2])
            if expected is not None and len(compact) != expected:
                continue
            if expected is None and not match.group(0)[:2].isupper():
                continue  # lower-case text: only countries whose length we can check
            if iban_valid(compact):
                found.append(Finding(self.kind, self.name, match.start(), match.end()))
        return found


# ---------------------------------------------------------------- credentials
#: Words that, first in an unquoted value, say it is talk about a secret rather than the
#: secret itself ("the password is too short", "the secret is out") - when the value also
#: has no digit and no capital after its first letter.
NOT_A_SECRET_WORDS = frozenset(
    """
    reset expired expiring wrong incorrect correct invalid valid required missing empty blank
    changed unchanged updated saved stored same different weak strong long short too not the a
    an my your our their his her its this that these those it being been case protected manager
    policy field in out on off at for to of from with by about up down fine ok okay good bad
    great easy hard simple located here there below above attached enclosed written printed
    taped sent shared known unknown secure safe set needed necessary optional sensitive private
    public confidential encrypted hashed hidden visible still now also just only what which who
    how why where when something nothing anything everything working broken true false none null
    yes no and or but so because if ready available shown listed given generated i we you he
    she they
    """.split()
)

#: Where a secret's keyword may appear: env-style names (``DB_PASSWORD``,
#: ``AWS_SECRET_ACCESS_KEY``) and prose ("my password for the portal is ...").
SECRET_KEYWORD = (
    r"(?<![A-Za-z])(?:pass(?:word|wd|phrase|code)|pwd|api[ _-]?key|secret(?:[ _-]?key)?|"
    r"(?:access|auth|refresh|bearer|session|api)[ _-]?token|client[ _-]?secret|"
    r"private[ _-]?key)(?:[_-][A-Za-z0-9]+){0,8}"
    r"(?:\s+(?:for|to|of|on|at|in)\s+(?:(?:the|my|our|your|this|that)\s+)?[\w.@-]+"
    r"(?:\s+[\w.@-]+)?"
    # or a short relative clause: "the password I use everywhere:", "passphrase that we set is"
    r"|\s+(?:(?:that|which)\s+)?(?:I|we|you)\s+(?:[\w']+\s+){0,3}?[\w']+)?"
    r"\s*(?:[\"']\s*)?(?:(?:is|was|are)\b[ \t]*(?:[:=][ \t]*)?|[:=](?!=)[ \t]*)"
)

_QUOTES = {'"': '"', "'": "'", "`": "`", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb"}
#: The end of a sentence (a run of ``.!?;`` before a space or the end) or of a line. A run
#: only matches from its first character, so each run is tried once: a long run of dots
#: followed by a letter costs its length, not its length squared.
_SENTENCE_END = re.compile(r"(?<![.!?;])[.!?;]+(?=\s|$)|\n")
_NEWLINE = re.compile(r"\n")
_DIGIT = re.compile(r"\d")
#: A capital after a letter, digit or space: not the value's first letter, "hunter2 Rex" but
#: not "the secret is out".
_INNER_CAPITAL = re.compile(r"(?<=[\w\s])[A-Z]")
_FIRST_WORD = re.compile(r"\s*(\S*)")
_NOT_SENTENCE_PUNCTUATION = re.compile(r"[^.!?;]")


class _ForwardSearch:
    """``pattern.search(text, pos)`` for a non-decreasing ``pos``, each stretch scanned once.

    The last match stays the answer until ``pos`` passes its start, so many values that run
    to the same far-away line end or digit cost one scan, not one each.
    """

    def __init__(self, pattern: re.Pattern[str], text: str) -> None:
        self._pattern, self._text = pattern, text
        self._pos = -1
        self._match: re.Match[str] | None = None

    def __call__(self, pos: int) -> re.Match[str] | None:
        match = self._match
        if self._pos < 0 or pos < self._pos or (match is not None and match.start() < pos):
            match = self._match = self._pattern.search(self._text, pos)
            self._pos = pos
        return match


class _ValueScanner:
    """What :func:`_secret_value_end` looks up in one text, for values in text order.

    Each value runs to the end of its sentence and is checked for digits and capitals; with
    one keyword after another on a long line ("password is a password is a ...") doing that
    afresh per value would be quadratic, so the lookups move forward through the text once.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.next_newline = _ForwardSearch(_NEWLINE, text)
        self.next_digit = _ForwardSearch(_DIGIT, text)
        self.next_inner_capital = _ForwardSearch(_INNER_CAPITAL, text)
        self._stop: re.Match[str] | None = None
        self._stop_pos = -1
        self._trimmed = (-1, -1, -1)  # (start, end, end without trailing whitespace)

    def sentence_end(self, pos: int) -> int:
        """Where the sentence or line holding ``pos`` ends (after ``.!?;``, before ``\n``)."""
        text, stop = self.text, self._stop
        if self._stop_pos < 0 or pos < self._stop_pos:
            run = pos  # inside a run of punctuation, the run matches from its start
            while run > 0 and text[run - 1] in ".!?;":
                run -= 1
            stop = _SENTENCE_END.search(text, run)
        while stop is not None and stop.end() <= pos:
            stop = _SENTENCE_END.search(text, stop.end())
        self._stop, self._stop_pos = stop, pos
        if stop is None:
            return len(text)
        return stop.start() if stop.group(0) == "\n" else stop.end()

    def rstripped(self, start: int, end: int) -> int:
        """The end of ``text[start:end].rstrip()``."""
        cached_start, cached_end, trimmed = self._trimmed
        if cached_end != end or start < cached_start:
            trimmed = end
            while trimmed > start and self.text[trimmed - 1].isspace():
                trimmed -= 1
            self._trimmed = (start, end, trimmed)
        return max(trimmed, start)


def _secret_value_end(
    text: str, start: int, min_chars: int, scanner: _ValueScanner | None = None
) -> int | None:
    """Where the value starting at ``start`` ends, or ``None`` when it is not a secret.

    A quoted value ends at its closing quote; an unquoted one at the end of the line or the
    sentence (trailing punctuation included, since it may be part of the secret). Pass one
    ``scanner`` for all the values of a text, in order, to keep the whole text linear.
    """
    if start >= len(text) or text[start] in "\r\n":
        return None
    scan = _ValueScanner(text) if scanner is None else scanner
    close = _QUOTES.get(text[start])
    if close is not None:
        newline = scan.next_newline(start)
        line_end = len(text) if newline is None else newline.start()
        pos = start + 1
        while True:
            pos = text.find(close, pos, line_end)
            if pos < 0:
                end = line_end
                break
            nxt = text[pos + 1 : pos + 2]
            if not nxt or not (nxt.isalnum() or nxt == "_"):
                end = pos + 1
                break
            pos += 1
        inner = text[start + 1 : end].rstrip(close)
        return end if len(inner.strip()) >= min_chars else None
    end = scan.rstripped(start, scan.sentence_end(start))
    first = _FIRST_WORD.match(text, start, end).group(1)  # type: ignore[union-attr]
    # too short, both the first word and the value without its closing punctuation
    if len(first.rstrip(".!?;,")) < min_chars and not _NOT_SENTENCE_PUNCTUATION.search(
        text, start + min_chars - 1, end
    ):
        return None
    word = re.sub(r"[^\w'-]", "", first).lower()
    if word in NOT_A_SECRET_WORDS and not _is_passphrase(text, start, end):
        digit = scan.next_digit(start)
        capital = scan.next_inner_capital(start + 1)
        prose = (digit is None or digit.start() >= end) and (
            capital is None or capital.start() >= end
        )
        if prose:
            return None
    return end


#: Words that make a run of plain words read as a sentence about a secret rather than a
#: passphrase ("the password is reset every ninety days"): function words, time words, verbs.
PROSE_WORDS = NOT_A_SECRET_WORDS | frozenset(
    """
    every each all any some again soon later today tomorrow yesterday daily weekly monthly
    yearly day days week weeks month months year years hour hours minute minutes time times
    after before since until than then please can cannot will would should must may might be
    is are was were has have had do does did get got use used very really more less most least
    as into onto over under through during every once twice never always often sometimes
    usually again same other another whole part need needs change changes rotate rotated
    expire expires reset resets work works worked login log sign email account accounts via
    """.split()
)
#: Four to eight lower-case words: the shape of an xkcd-style passphrase.
_PASSPHRASE = re.compile(r"[a-z]+(?:[ \t]+[a-z]+){3,7}")


def _is_passphrase(text: str, start: int, end: int) -> bool:
    """Whether the value ``text[start:end]`` is a run of plain words, e.g. "correct horse
    battery staple": 4-8 lower-case words, only the first of them a talk word. Looks at a
    bounded stretch only, so it keeps the detector linear."""
    match = _PASSPHRASE.match(text, start, min(end, start + 160))
    if match is None or text[match.end() : end].strip(".!?;") != "":
        return False
    return not any(w in PROSE_WORDS for w in match.group(0).split()[1:])


@dataclass(frozen=True)
class SecretAssignmentDetector:
    """A secret given by name: ``DB_PASSWORD=...``, ``api_key: ...``, "my password is ...".

    The finding covers the keyword and the whole value: a quoted value to its closing quote,
    an unquoted one to the end of the line or sentence, so a multi-word passphrase is
    redacted whole. Values that read as talk about a secret ("the password is too short",
    "the secret is out") are not findings.
    """

    name: str = "secret_assignment"
    kind: str = CREDENTIAL
    keyword: str = SECRET_KEYWORD
    min_chars: int = 3

    def find(self, text: str) -> list[Finding]:
        found, covered, scanner = [], -1, _ValueScanner(text)
        for match in re.finditer(self.keyword, text, re.IGNORECASE):
            if match.start() < covered:
                continue
            end = _secret_value_end(text, match.end(), self.min_chars, scanner)
            if end is not None:
                found.append(Finding(self.kind, self.name, match.start(), end))
                covered = end
        return found


#: A user name followed by its password in the short forms people type: "login jsmith, pw:
#: hunter22", "user admin / pass admin123", "username: bob pwd=Secr3t". The password word must
#: follow the user name within a few characters, so "boarding pass: 12A" is not a finding.
#: Every repeat is bounded, so each start costs at most a few hundred characters.
LOGIN_PASSWORD = (
    r"(?<![A-Za-z])(?:user(?:[ _-]?name)?|usr|login|log-?in|user[ _-]?id|account)"
    r"[ \t]{0,4}(?:[:=][ \t]{0,4}|is[ \t]{1,4})?[^\s,;/|]{2,64}"
    r"[ \t]{0,4}[,;/|]?[ \t]{0,4}(?:and[ \t]{1,4})?"
    r"(?:(?:pw|pwd|passwd|password|pword)(?![A-Za-z])[ \t]{0,4}(?:[:=][ \t]{0,4}|is[ \t]{1,4})?"
    # a bare "pass" only with ":" / "=" or after a slash ("pass rate", "boarding pass" are not)
    r"|pass[ \t]{0,4}[:=][ \t]{0,4}|(?:(?<=[/|])|(?<=[/|][ \t]))pass[ \t]{1,4})"
    r"[^\s,;|]{3,128}"
)


_PASSWORD_VALUE = re.compile(
    r"(?:pw|pwd|passwd|password|pword|pass)[ \t]*([:=]|is[ \t])?[ \t]*(\S+)$", re.IGNORECASE
)


def _password_not_prose(matched: str) -> bool:
    """The value after the password word reads as a password, not as talk about one.

    Never a talk word ("login bob, password reset"); after a bare space also not a plain
    lower-case word ("account settings, password strength"): it needs ``:``/``=``/"is" or a
    digit, capital or symbol ("login jsmith pw hunter22").
    """
    match = _PASSWORD_VALUE.search(matched[-160:])
    if match is None:
        return False
    separator, value = match.group(1), match.group(2)
    if value.strip(".!?").lower() in PROSE_WORDS:
        return False
    return bool(separator) or not (value.isalpha() and value.islower())


#: A JWT (``eyJ...`` header, payload, signature) - or, where the first ``eyJ`` of a run of
#: base64url characters does not start one, the rest of that run, which ``validate`` drops (a
#: JWT has dots, the run none). A later ``eyJ`` in the same run ("eyJ-eyJ-...") would reach
#: the same dot with a shorter segment, so it cannot start a JWT either; skipping the run keeps
#: the search linear where trying every ``eyJ`` in it would be quadratic.
JWT_OR_RUN = r"\beyJ(?:[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}|[A-Za-z0-9_-]*)"


def _is_jwt(matched: str) -> bool:
    return "." in matched  # not the rest of a run (see JWT_OR_RUN)


PAYMENT_CARD_DETECTOR = PaymentCardDetector()
IBAN_DETECTOR = IbanDetector()
CREDENTIAL_DETECTORS: tuple[Detector, ...] = (
    RegexDetector("private_key", CREDENTIAL, r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    RegexDetector("aws_access_key", CREDENTIAL, r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    RegexDetector("google_api_key", CREDENTIAL, r"\bAIza[0-9A-Za-z_\-]{35}"),
    RegexDetector(
        "github_token", CREDENTIAL, r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_\w{22,})"
    ),
    RegexDetector("slack_token", CREDENTIAL, r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    RegexDetector("stripe_key", CREDENTIAL, r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    RegexDetector("sk_api_key", CREDENTIAL, r"\bsk-[A-Za-z0-9_\-]{20,}"),
    RegexDetector("jwt", CREDENTIAL, JWT_OR_RUN, validate=_is_jwt),
    RegexDetector("bearer_token", CREDENTIAL, r"\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*"),
    RegexDetector("url_password", CREDENTIAL, r"\b[a-z][a-z0-9+.-]{0,39}://[^/\s:@]+:[^/\s@]+@"),
    SecretAssignmentDetector(),
    RegexDetector(
        "login_password", CREDENTIAL, LOGIN_PASSWORD, re.IGNORECASE, validate=_password_not_prose
    ),
    # PINs and card security codes are digits: "PIN 4821", "my cvv 123", "passcode: 0000"
    RegexDetector(
        "pin_or_security_code",
        CREDENTIAL,
        r"(?<![A-Za-z])(?:pin|cvv2?|cvc2?|csc|security code|card verification (?:code|value)|"
        r"passcode)(?:[ _-]?(?:code|number|no\.?))?(?![A-Za-z])[ \t]*(?:(?:is|was)\b[ \t]*)?"
        r"(?:[:=#][ \t]*)?\d{3,8}(?![\d,.:]?\d)"
        r"(?!\s*(?:m|km|mi|ft|metres?|meters?|miles?|feet|yards?|blocks?|minutes?|mins?)\b)",
        re.IGNORECASE,
    ),
)
# ---------------------------------------------------------------- national ids
_VERHOEFF_D = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 2, 3, 4, 0, 6, 7, 8, 9, 5),
    (2, 3, 4, 0, 1, 7, 8, 9, 5, 6), (3, 4, 0, 1, 2, 8, 9, 5, 6, 7),
    (4, 0, 1, 2, 3, 9, 5, 6, 7, 8), (5, 9, 8, 7, 6, 0, 4, 3, 2, 1),
    (6, 5, 9, 8, 7, 1, 0, 4, 3, 2), (7, 6, 5, 9, 8, 2, 1, 0, 4, 3),
    (8, 7, 6, 5, 9, 3, 2, 1, 0, 4), (9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
)  # fmt: skip
_VERHOEFF_P = (
    (0, 1, 2, 3, 4, 5, 6, 7, 8, 9), (1, 5, 7, 6, 2, 8, 3, 0, 9, 4),
    (5, 8, 0, 3, 7, 9, 6, 1, 4, 2), (8, 9, 1, 6, 0, 4, 3, 5, 2, 7),
    (9, 4, 5, 3, 1, 2, 6, 8, 7, 0), (4, 2, 8, 6, 5, 7, 3, 9, 0, 1),
    (2, 7, 9, 3, 8, 0, 6, 4, 1, 5), (7, 0, 4, 6, 9, 1, 3, 2, 5, 8),
)  # fmt: skip


def verhoeff_valid(number: str) -> bool:
    """The Verhoeff checksum of the digits in ``number`` (Aadhaar's last digit)."""
    digits = [int(c) for c in number if c.isdigit()]
    if len(digits) < 2:
        return False
    check = 0
    for i, d in enumerate(reversed(digits)):
        check = _VERHOEFF_D[check][_VERHOEFF_P[i % 8][d]]
    return check == 0


#: Words before a 12-digit number that make it an Aadhaar number even written without spaces.
AADHAAR_CONTEXT = r"(?<![A-Za-z])(?:aadhaa?r|uidai|uid|enrol?ment)(?![A-Za-z])"


@dataclass(frozen=True)
class AadhaarDetector:
    """Indian Aadhaar numbers: 12 digits, the first 2-9, Verhoeff-checked.

    Written in groups (``2345 6789 0124``, the card's own layout) it counts unless labelled as
    something else right before it (order, tracking, ...); written compact (``234567890124``)
    it needs an Aadhaar word (aadhaar, UID, UIDAI) within ``window`` characters before it,
    since one random 12-digit id in ten passes Verhoeff (e.g. a FedEx tracking number).
    """

    name: str = "aadhaar"
    kind: str = GOVERNMENT_ID
    pattern: str = r"(?<![\w-])(?<!\d[ -])[2-9]\d{3}([ -]?)\d{4}\1\d{4}(?![\w-])(?![ -]\d)"
    context: str = AADHAAR_CONTEXT
    not_an_id_label: str = NOT_A_CARD_LABEL
    window: int = 40

    def find(self, text: str) -> list[Finding]:
        found = []
        for match in re.finditer(self.pattern, text):
            if not verhoeff_valid(match.group(0)):
                continue
            before = text[max(0, match.start() - self.window) : match.start()]
            if re.search(self.context, before, re.IGNORECASE) is None:
                if not match.group(1) or re.search(self.not_an_id_label, before, re.IGNORECASE):
                    continue
            found.append(Finding(self.kind, self.name, match.start(), match.end()))
        return found


#: Indian PAN: 3 letters, the holder type (P person, C company, H Hindu undivided family,
#: F firm, A association, T trust, B body of individuals, L local authority, J artificial
#: juridical person, G government), a letter, 4 digits, a check letter; capitals only.
INDIA_PAN = r"(?<![\w-])[A-Z]{3}[PCHFATBLJG][A-Z]\d{4}[A-Z](?![\w-])"


GOVERNMENT_ID_DETECTORS: tuple[Detector, ...] = (
    RegexDetector("us_ssn", GOVERNMENT_ID, r"\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b"),
    RegexDetector(
        "uk_nino",
        GOVERNMENT_ID,
        r"\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
        r" ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b",
    ),
    RegexDetector("india_pan", GOVERNMENT_ID, INDIA_PAN),
    AadhaarDetector(),
    RegexDetector(
        "id_document_number",
        GOVERNMENT_ID,
        r"\b(?:passport|national id(?:entity)?(?: card)?|identity card|id card|"
        r"driver'?s? licen[cs]e|driving licen[cs]e|social security|ssn|tax id|"
        r"taxpayer id|national insurance|aadhaa?r|pan card|personnummer|bsn|dni|nie|nif|"
        r"codice fiscale|social insurance)\b"
        r"(?:\s*(?:number|no\.?|num|#|id))?(?:\s*(?:is|was|:|=))?\s*"
        r"(?!\d{4}-\d{2}-\d{2}\b)(?=[A-Za-z0-9-]{0,40}\d)[A-Za-z0-9](?:[A-Za-z0-9-]| (?=\d)){5,}",
        re.IGNORECASE,
    ),
)


# ---------------------------------------------------------------- health
#: A clause boundary: health negation never reaches across one ("no allergies but diabetic").
CLAUSE_BOUNDARY = (
    r"[,;:.!?()\n]|\s[-\u2013\u2014]\s|"
    r"\b(?:but|and|although|though|however|except|yet|while|whereas|so)\b"
)
#: A negation right before a health term, with a few filler words between
#: ("no allergies", "no known food allergies", "don't have any allergies", "not pregnant").
NEGATED_BEFORE = (
    r"(?:\b(?:no|not|without|never|none|nor|zero|free\s+of)|n't)"
    r"(?:\s+(?:have|has|had|take|taking|need|needs|any|known|real|serious|major|"
    r"significant|other|food|nut|drug|medical|health|special|particular|current|"
    r"history\s+of|kind\s+of|sort\s+of|signs?\s+of))*\s+$"
)
#: "allergies: none", "medication - n/a" after the term.
NEGATED_AFTER = r"^\s*(?:[:=\-\u2013\u2014]\s*)?(?:none|nil|n/?a)\b"
#: First-person or clinical phrasing that makes an ambiguous term personal.
PERSONAL_PHRASING = (
    r"\b(?-i:I)\b|\b(?:I'm|I've|I'd|me|my|myself|we|our|us|diagnosed|suffer(?:s|ed|ing)?|"
    r"treated|treatment|therapy|struggl\w*|battl\w*|living with|history of|feel(?:s|ing)?|"
    r"felt|get(?:s|ting)?|got|been|am)\b"
)
#: Words right before an ambiguous term that make it weather, history or economics.
NOT_PERSONAL_BEFORE = (
    r"\b(?:tropical|subtropical|great|economic|financial|market|atmospheric|global|"
    r"post-war|world(?:wide)?|deep|long)\s+$"
)


@dataclass(frozen=True)
class HealthDetector:
    """Health terms as whole words, skipping negated mentions ("no allergies").

    ``terms`` match case-insensitively, ``case_sensitive`` only as written (the acronyms STD,
    STI, AIDS, so "aids", "std::vector" and "sti" are not findings), and ``personal_terms``
    only in personal phrasing ("I was diagnosed with depression", not "a tropical
    depression" or "the Great Depression").
    """

    name: str
    kind: str
    terms: tuple[str, ...]
    case_sensitive: tuple[str, ...] = ()
    personal_terms: tuple[str, ...] = ()
    negated_before: str = NEGATED_BEFORE
    negated_after: str = NEGATED_AFTER
    clause_boundary: str = CLAUSE_BOUNDARY

    def _clause_prefix(self, text: str, start: int) -> str:
        prefix = text[max(0, start - 120) : start]
        cut = 0
        for boundary in re.finditer(self.clause_boundary, prefix, re.IGNORECASE):
            cut = boundary.end()
        return prefix[cut:]

    def _negated(self, text: str, start: int, end: int) -> bool:
        prefix = self._clause_prefix(text, start)
        return bool(
            re.search(self.negated_before, prefix, re.IGNORECASE)
            or re.search(self.negated_after, text[end : end + 20], re.IGNORECASE)
        )

    def find(self, text: str) -> list[Finding]:
        found = []
        groups = ((self.terms, re.IGNORECASE, False), (self.case_sensitive, 0, False),
                  (self.personal_terms, re.IGNORECASE, True))  # fmt: skip
        for terms, flags, personal in groups:
            if not terms:
                continue
            pattern = r"(?<![\w-])(?:" + "|".join(terms) + r")(?![\w-]|::)"
            for match in re.finditer(pattern, text, flags):
                start, end = match.start(), match.end()
                if self._negated(text, start, end):
                    continue
                if personal:
                    prefix = self._clause_prefix(text, start)
                    if re.search(NOT_PERSONAL_BEFORE, prefix, re.IGNORECASE) or not re.search(
                        PERSONAL_PHRASING, prefix, re.IGNORECASE
                    ):
                        continue
                found.append(Finding(self.kind, self.name, start, end))
        return found


HEALTH_DETECTOR = HealthDetector(
    "health_terms",
    HEALTH,
    terms=(
        r"diagnos(?:is|es|ed)", r"cancer", r"tumou?rs?", r"chemo(?:therapy)?", r"diabet(?:es|ic)",
        r"insulin", r"anxiety(?: disorder)?", r"panic attacks?",
        r"bipolar", r"schizophreni\w*", r"adhd", r"autis(?:m|tic)", r"epilep(?:sy|tic)",
        r"asthma(?:tic)?", r"pregnan(?:t|cy)", r"miscarriage", r"abortion", r"hiv(?:-positive)?",
        r"hepatitis", r"dementia", r"alzheimer'?s", r"parkinson'?s", r"heart (?:attack|condition)",
        r"blood pressure", r"hypertension", r"medications?", r"prescriptions?", r"prescribed",
        r"antidepressants?", r"therapist", r"psychiatr\w*", r"mental health", r"rehab",
        r"addiction", r"allerg(?:y|ies|ic)", r"surgery", r"disability", r"chronic illness",
        r"illness", r"medical condition", r"covid(?:-19)? positive",
    ),
    # acronyms only in capitals; "STD fare/class/code" is the standard fare, not a disease
    case_sensitive=(
        r"STDs?(?!\s+(?:fares?|class|tickets?|rates?|codes?|calls?|time|seats?|rooms?)\b)",
        r"STIs?", r"AIDS",
    ),
    personal_terms=(r"depression", r"depressed"),
)  # fmt: skip

DEFAULT_DETECTORS: tuple[Detector, ...] = (
    PAYMENT_CARD_DETECTOR,
    IBAN_DETECTOR,
    *CREDENTIAL_DETECTORS,
    *GOVERNMENT_ID_DETECTORS,
    HEALTH_DETECTOR,
)

#: Secrets and identifiers that must never reach a transcript store: everything above except
#: health terms (those are topics, not tokens; redacting them would garble ordinary episodes,
#: so the routing layer drops health *facts* instead).
SECRET_DETECTORS: tuple[Detector, ...] = tuple(
    d for d in DEFAULT_DETECTORS if d is not HEALTH_DETECTOR
)


def detect_sensitive(text: str, detectors: Sequence[Detector] | None = None) -> list[Finding]:
    """Every sensitive span in ``text`` (sorted by position); empty when the text is clean."""
    if not text:
        return []
    findings: set[Finding] = set()
    for detector in DEFAULT_DETECTORS if detectors is None else detectors:
        findings.update(detector.find(text))
    return sorted(findings, key=lambda f: (f.start, f.end, f.kind, f.detector))


def is_sensitive(text: str, detectors: Sequence[Detector] | None = None) -> bool:
    """Whether ``text`` holds anything a detector flags."""
    return bool(detect_sensitive(text, detectors))


def finding_kinds(findings: Iterable[Finding]) -> list[str]:
    """The distinct kinds of ``findings``, sorted (what is safe to log)."""
    return sorted({f.kind for f in findings})


def redact(text: str, findings: Sequence[Finding] | None = None) -> str:
    """``text`` with each finding replaced by ``[REDACTED:<kind>]``."""
    findings = detect_sensitive(text) if findings is None else findings
    out, pos = [], 0
    for f in sorted(findings, key=lambda f: f.start):
        if f.start < pos:  # overlapping finding: already covered
            pos = max(pos, f.end)
            continue
        out.append(text[pos : f.start])
        out.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    out.append(text[pos:])
    return "".join(out)


def redact_secrets(text: str) -> str:
    """``text`` with card numbers, IBANs, credentials and government ids redacted.

    The default ingestion filter of :class:`~adk_memory_kit.PgVectorMemoryService`.
    """
    return redact(text, detect_sensitive(text, SECRET_DETECTORS))
