"""Password-shaped tokens, in any language, with no cue word.

A token people make into a password mixes kinds of characters: ``Brno_Most_1998``,
``Mot&Nel2020``, ``Orchid@Meeting62``. Guarantees: a whitespace-free token of 6 to 64
characters (trailing punctuation aside) is a credential when it holds a letter and a digit
and either a symbol from ``!#$%&*+?@^~|_`` (an underscore counts only beside both letter
cases) or, starting with a capital, both letter cases with a lower case letter right after
an upper case one and at least two digits at its end (with one capital only, ``Mango123``, a
strong credential cue must stand in the message: ``Windows11`` is a product). Two
capitalised words joined by a symbol with no digit (``Sisu&Porri``) count too, with a strong
credential cue in the message (``Barnes&Noble`` is a shop). Public shapes are never
findings: e-mail addresses and ``user@host`` handles in lower case, URLs, ``@handles``,
``#hashtags``, paths and file names, a token right after a name label (``called``, ``SSID``,
``username``: a name), ``key=value`` and code (a token in backticks, or with brackets,
quotes or ``=``), versions, and codes with no lower case letter (``PS-8825-BLK``,
``WW90T554DAW``). Linear: one pass.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from adk_memory_kit.sensitive.base import CREDENTIAL, Finding
from adk_memory_kit.sensitive.scan import TextScan

#: A whitespace-free token of 6+ characters holding a digit or a symbol (found at C speed).
_TOKEN = re.compile(r"(?<!\S)(?=[^\s\d!#$%&*+?^~|]*[\d!#$%&*+?^~|])\S{6,}")
_STRIP_END = ".,;:!?)]}>\"'»”’*"
_STRIP_START = "([{<\"'«“‘*"
_SYMBOLS = frozenset("!#$%&*+?@^~|")
_FORBIDDEN = frozenset("=(){}[]<>/\\\"`'’‘“”«»:,;")
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_LOWER_HANDLE = re.compile(r"[a-z0-9._+-]+@[a-z0-9._-]+")
_VERSION = re.compile(r"v?\d+\.\d+", re.IGNORECASE)
_FILE = re.compile(r".+\.[A-Za-z][A-Za-z0-9]{1,4}")
_CAMEL = re.compile(r"[A-Z][a-z]")
_WORDISH = re.compile(r"[a-z]")
_DIGIT = re.compile(r"\d")
#: No digit: two capitalised words joined by one symbol other than ``@`` (8+ characters).
_NO_DIGIT = re.compile(r"(?=.{8,}$)[A-Z][a-z]+[!#$%&*+?^~|][A-Z]?[a-z]+[!?]?")
#: Words joined by dots, the last one digits: a password, not a domain or a file.
_DOTTED = re.compile(r"[^\W_]+(?:\.[^\W_]+)*\.\d+")
#: A name label right before the token: what follows is a name, not a secret.
_NAME_LABEL = re.compile(
    r"(?<![^\W\d_])(?:ssid|called|named|name|username|user name|handle|nickname|nick|"
    r"nombre|llamada|llamado|nom|heißt|navn|nimi|nome|chiamata)"
    r"(?:[ \t]+(?:is|es|est|ist|er|on|è|é))?"
    r"[ \t]*[:=]?[ \t]*[\"'«“]?$",
    re.IGNORECASE,
)
_ALPHA = re.compile(r"[^\W\d_]")
_UPPER = re.compile(r"[A-Z]")


def password_shaped(token: str) -> bool:
    """Whether ``token`` (stripped of surrounding punctuation) has a password's shape and
    none of the public shapes of the module docstring."""
    if not 6 <= len(token) <= 64 or token[0] in "@#$" or "://" in token:
        return False
    if not _FORBIDDEN.isdisjoint(token):
        return False
    if _ALPHA.search(token) is None:
        return False
    if _DIGIT.search(token) is None:
        return _NO_DIGIT.fullmatch(token) is not None  # "Sisu&Porri": needs a cue
    if _WORDISH.search(token) is None:
        return False  # no lower case: a product, model or reference code
    if "@" in token and (_EMAIL.fullmatch(token) or _LOWER_HANDLE.fullmatch(token)):
        return False
    if _VERSION.match(token) or _FILE.fullmatch(token):
        return False
    upper = _UPPER.search(token) is not None
    if not _SYMBOLS.isdisjoint(token):
        return True
    if "_" in token:
        return upper  # a lower case letter is there already
    if "." in token and "-" not in token and _DOTTED.fullmatch(token):
        return upper and len(_DIGIT.findall(token)) >= 2  # "Gato.Negro.1999"
    if "-" in token or "." in token:
        return False
    digits = len(_DIGIT.findall(token))
    if not (token[0].isupper() and token[-1].isdigit()) or len(token) < 8:
        return False
    return digits >= 2 and _CAMEL.search(token) is not None


def title_and_digits(token: str) -> bool:
    """A password shape that is a name as often as a password, so it needs a credential cue:
    one capital and digits (``Mango123``, ``Windows11``), or words joined by a symbol with no
    digit (``Sisu&Porri``, ``Barnes&Noble``)."""
    if _DIGIT.search(token) is None:
        return True
    return not any(c in _SYMBOLS or c == "_" for c in token) and sum(map(str.isupper, token)) == 1


def _credential_cue(scan: TextScan) -> bool:
    """Whether the text holds a strong credential cue in any of the cue languages."""
    return any(cue.strong and cue.kind == CREDENTIAL for _, _, cue in scan.cues())


def _in_code(ticks: list[int], start: int) -> bool:
    """The token stands in backticks (inline code): an odd number of them before it."""
    return bisect.bisect_left(ticks, start) % 2 == 1


@dataclass(frozen=True)
class PasswordShapeDetector:
    """Tokens shaped like passwords (see the module docstring); the token is the span."""

    name: str = "password_shape"

    def find(self, text: str) -> list[Finding]:
        return self.find_in(TextScan(text))

    def find_in(self, scan: TextScan) -> list[Finding]:
        """:meth:`find` on a text read once for every detector."""
        text = scan.text
        found: list[Finding] = []
        ticks = [i for i, c in enumerate(text) if c == "`"] if "`" in text else []
        cue: bool | None = None  # read once, when a token needs it
        for m in _TOKEN.finditer(text):
            a, b = m.span()
            if b - a > 80:
                continue
            while a < b and text[a] in _STRIP_START:
                a += 1
            while b > a and text[b - 1] in _STRIP_END:
                b -= 1
            token = text[a:b]
            if not password_shaped(token) or (ticks and _in_code(ticks, a)):
                continue
            if _NAME_LABEL.search(text, max(0, a - 24), a) is not None:
                continue  # a network, user or product name ("the wifi is called Home_5G")
            if title_and_digits(token):
                if cue is None:
                    cue = _credential_cue(scan)
                if not cue:
                    continue
            found.append(Finding(CREDENTIAL, self.name, a, b))
        return found
