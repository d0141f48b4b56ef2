"""The secret head's verdict applied to findings: the cue-less layers answer to meaning.

:func:`judge` runs after every detector of the default set (``detect_sensitive``). For each
window of the text (the whole text up to :data:`~.secret_model.WINDOW` characters, else
runs of whole lines that fit), the secret head (:mod:`.secret_model`) gives P(the window
gives a secret):

* below ``VETO``, the head is sure the window gives none: findings of the layers with
  neither a format nor a strong cue word (a value after a weak cue such as "code" or
  "account", a long digit run, a password-shaped token) are dropped there,
  in a window of ``VETO_WORDS`` words or more (a short text gives the head too little to be
  sure of: "cadenas du vélo 0-3-8-1"). Findings with a format (checksums, vendor prefixes,
  shapes, private keys) or after a strong cue ("password", "PIN") are always kept.
* at ``ADD`` or above, in a window of at most ``MESSAGE_LINES`` non-empty lines (a message,
  not a rendered block, a log or a file), the window gives a secret: every value-shaped
  token in it (three digits or more, or two letters and two digits in five characters or
  more) and every run of twelve or more seed words is a finding, cue word or not, in any
  language; except amounts
  ("120.00"), dates with their year, times of day, phone numbers (unless the message asks
  for secrecy), public artifacts and placeholders (:mod:`.public`), tokens another finding
  already covers, and the values of a sentence the head, reading it alone, is sure gives no
  secret ("Booked QX7T2L." beside a password).
* the veto reaches, on the same terms, a finding whose value is a placeholder by its form
  (``0000 0000 0000``, ``A000000000X``: :func:`~.public.example_value`).
* in between, nothing else changes.

A message that names a company by its legal form (:mod:`.legal_entities`: "d.o.o.", "GmbH",
"UAB") and does not ask for secrecy is not judged: its long digit runs and values after a
weak cue are dropped (the number beside a company's form is the company's registration, tax
or VAT number) and nothing is added.

Without the head's encoder, for texts of fewer than three words (a bare value: the head
needs a message) and past the bounds below, findings stay as the layers made them: the gate
then fails closed as before. ``VETO`` and ``ADD`` are the two numbers of
``THRESHOLDS_STRICT`` (or ``THRESHOLDS_BALANCED``): the veto's from the leave-one-writer-out
table of ``benchmarks/secret_head_train.py``; ``ADD`` rose from 0.7 to 0.8 when a model's
booking confirmation read 0.74, and fell to 0.5 in stop 60 (recall chosen over precision on
the first-read corpora, whose precision had room; a year and a flight number are no longer
values the head adds: ``docs/privacy.md``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from adk_memory_kit.sensitive.base import BANK_ACCOUNT, CREDENTIAL, Finding
from adk_memory_kit.sensitive.failclosed import WEAK_CUE_VALUE
from adk_memory_kit.sensitive.health_vocab import sentences
from adk_memory_kit.sensitive.legal_entities import names_a_company
from adk_memory_kit.sensitive.public import example_value, public_spans
from adk_memory_kit.sensitive.public_numbers import flight_digits, phone_spans
from adk_memory_kit.sensitive.recovery import may_hold_a_seed, seed_runs
from adk_memory_kit.sensitive.secrecy import asks_secrecy
from adk_memory_kit.sensitive.secret_model import WINDOW, secret_probabilities
from adk_memory_kit.sensitive.settings import is_strict

#: (drop the cue-less layers' findings below, treat every value as secret at or above)
THRESHOLDS_STRICT = (0.1, 0.5)
THRESHOLDS_BALANCED = (0.2, 0.9)
#: Texts longer than this, and windows past the first ``MAX_WINDOWS``, are left as found.
MAX_CHARS = 65_536
MAX_WINDOWS = 32
#: The most non-empty lines of a window whose every value the head may redact.
MESSAGE_LINES = 3
#: The fewest words of a window whose cue-less findings the head may drop.
VETO_WORDS = 8
DETECTOR = "secret_meaning"

#: Layers with neither a format nor a strong cue word: their findings answer to the head's
#: veto. A value after a keyword the writer chose ("password", "PIN", "sort code") is kept
#: whatever the head says (it learned from writers told to avoid those words), and so is a
#: short code (found only in a message naming a lock, a PIN or a secret: a cue).
CUE_LESS = frozenset({WEAK_CUE_VALUE, "digit_id", "password_shape"})

#: The layers whose findings beside a company's legal form are the company's numbers.
_COMPANY_NUMBERS = frozenset({WEAK_CUE_VALUE, "digit_id"})
_VALUE = re.compile(r"[^\s\"'«»“”‘’,;()\[\]{}<>]*\d[^\s\"'«»“”‘’,;()\[\]{}<>]*")
_TRAILING = ".:!?"
_JOIN = re.compile(r"[ -]")  # what may stand between two parts of one value
#: A sum of money (thousands grouped, two decimals, a currency sign), a date with its year, a
#: year alone, a time of day, a flight number (two capitals and two to four digits: "TB571"):
#: values that say when, how much or which trip, not who or how to get in.
_NOT_SECRET = re.compile(
    r"[$€£¥₹₦₱]?\d{1,3}(?:[.,' ]?\d{3})*[.,]\d{2}[$€£¥₹₦₱]?"
    r"|\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./-]\d{1,2}[./-](?:\d{2}|\d{4})|\d{1,2}[:h]\d{2}(?::\d{2})?"
    r"|(?:19|20)\d\d|[A-Z]{2}\d{2,4}|(?:0?[1-9]|[12]\d|3[01])/(?:0?[1-9]|1[0-2])"
)


def value_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Value-shaped tokens of ``text[start:end]``: three digits or more, or two digits and two
    letters in five characters or more (trailing sentence marks left out; one digit among
    letters is how Arabizi writes a letter: "3lina", "7ottou")."""
    spans = []
    for m in _VALUE.finditer(text, start, len(text) if end is None else end):
        token = m.group(0).rstrip(_TRAILING)
        digits = sum(c.isdigit() for c in token)
        letters = sum(c.isalpha() for c in token)
        if (digits >= 3 or (digits >= 2 and letters >= 2 and len(token) >= 5)) and not (
            _NOT_SECRET.fullmatch(token) or flight_digits(text, m.start(), m.start() + len(token))
        ):
            spans.append((m.start(), m.start() + len(token)))
    return spans


def windows(text: str) -> list[tuple[int, int]]:
    """The text cut at line ends into pieces of at most :data:`WINDOW` characters (a longer
    line is cut at that length)."""
    if len(text) <= WINDOW:
        return [(0, len(text))]
    out: list[tuple[int, int]] = []
    start = pos = 0
    for line in text.splitlines(keepends=True):
        end = pos + len(line)
        if end - start > WINDOW and pos > start:
            out.append((start, pos))
            start = pos
        while end - start > WINDOW:
            out.append((start, start + WINDOW))
            start += WINDOW
        pos = end
    if start < len(text):
        out.append((start, len(text)))
    return out


def judge(text: str, findings: set[Finding]) -> set[Finding]:
    """``findings`` after the head's verdict on each window of ``text`` (module docstring)."""
    if len(text) > MAX_CHARS or len(text.split()) < 3:
        return findings
    if names_a_company(text) and not asks_secrecy(text):
        # a number beside a company's legal form is the company's (registration, tax, VAT):
        # the layers without a format or strong cue do not flag it, the head adds nothing
        # (a bank account beside it stays: a company's account is no public number)
        return {f for f in findings if f.detector not in _COMPANY_NUMBERS or f.kind == BANK_ACCOUNT}
    cut = windows(text)[:MAX_WINDOWS]
    veto, add = THRESHOLDS_STRICT if is_strict() else THRESHOLDS_BALANCED
    cue_less = [f for f in findings if f.detector in CUE_LESS]
    examples = [f for f in findings if example_value(text[f.start : f.end])]
    candidates = [(a, b) for a, b in cut if _has_value(text, a, b)]
    if not cue_less and not examples and not candidates:
        return findings  # nothing the head would change: no model call
    probs = secret_probabilities([text[a:b] for a, b in cut])
    if probs is None:
        return findings
    out = set(findings)
    added: list[Finding] = []
    for (a, b), p in zip(cut, probs, strict=True):
        if p < veto and len(text[a:b].split()) >= VETO_WORDS:
            out -= {f for f in (*cue_less, *examples) if a <= f.start < b}
        elif p >= add and _message_like(text[a:b]):
            added += _values(text, a, b, veto)
    if added:
        out |= set(_not_public(text, _uncovered(added, findings)))
    return out


def _values_of_secret_sentences(text: str, a: int, b: int, veto: float) -> list[tuple[int, int]]:
    """Value spans of ``text[a:b]``; where two sentences or more hold values, those of a
    sentence of two words or more the head reads alone below half of ``veto`` are left out
    (a bare value on its own line is kept: the head needs words to judge)."""
    spans = value_spans(text, a, b)
    holding = [(x, y) for x, y in sentences(text[a:b]) if any(a + x <= s < a + y for s, _ in spans)]
    if len(holding) < 2:
        return spans
    judged = [(x, y) for x, y in holding if len(text[a + x : a + y].split()) >= 2]
    probs = secret_probabilities([text[a + x : a + y] for x, y in judged]) if judged else []
    quiet = [(a + x, a + y) for (x, y), p in zip(judged, probs or [], strict=False) if p < veto / 2]
    return [(s, e) for s, e in spans if not any(x <= s < y for x, y in quiet)]


def _uncovered(added: list[Finding], findings: set[Finding]) -> list[Finding]:
    """``added`` less what overlaps a finding of the layers (one secret, one finding)."""
    taken = sorted((f.start, f.end) for f in findings)
    return [f for f in added if not any(a < f.end and f.start < b for a, b in taken)]


def _not_public(text: str, added: list[Finding]) -> list[Finding]:
    """``added`` less phone numbers (unless the message asks for
    secrecy), public artifacts and placeholders."""
    public = list(public_spans(text))
    if not asks_secrecy(text):
        public += phone_spans(text)
    return [f for f in added if not any(a <= f.start and f.end <= b for a, b in public)]


def _message_like(window: str) -> bool:
    """Whether ``window`` reads as a message (at most ``MESSAGE_LINES`` non-empty lines), not
    a rendered block, a log or a file: there every value is not the secret, and the layers
    (formats, keywords, cues) read such texts."""
    return sum(1 for line in window.splitlines() if line.strip()) <= MESSAGE_LINES


def _has_value(text: str, a: int, b: int) -> bool:
    """Whether the window holds something the head could add: a digit, or twelve words of
    the seed-phrase lists."""
    window = text[a:b]
    return any(c.isdigit() for c in window) or may_hold_a_seed(window)


def _values(text: str, a: int, b: int, veto: float) -> Iterable[Finding]:
    """The window's values, neighbours joined (``4960 5744 4743 4345`` is one), less examples
    by their form (:func:`~.public.example_value`) and less those of a sentence the head,
    reading it alone, is sure gives none ("Booked QX7T2L." beside a password)."""
    runs: list[list[int]] = []
    for x, y in _values_of_secret_sentences(text, a, b, veto):
        if runs and _JOIN.fullmatch(text, runs[-1][1], x):
            runs[-1][1] = y
        else:
            runs.append([x, y])
    for x, y in runs:
        if not example_value(text[x:y]):
            yield Finding(CREDENTIAL, DETECTOR, x, y)
    for x, y in seed_runs(text[a:b]):
        yield Finding(CREDENTIAL, DETECTOR, a + x, a + y)
