"""Exact values and salient sentences in conversation text, with sensitive spans removed.

:func:`find_exact_values` returns the identifiers, URLs, e-mail addresses, money amounts,
dates and times, numbers with units, file names and proper names of a text, verbatim and in
order of appearance. :func:`salient_sentences` returns the sentences that carry a decision, a
constraint or an exact value. Both first cut away every span the kit's sensitive-data
detectors flag (:func:`adk_memory_kit.sensitive.detect_sensitive`), so nothing they return
contains flagged text. Every pattern is a single pass without nested quantifiers (linear time).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from adk_memory_kit.sensitive import Detector, detect_sensitive

URL = "url"
EMAIL = "email"
MONEY = "money"
DATE = "date"
QUANTITY = "quantity"
FILE = "file"
IDENTIFIER = "id"
NAME = "name"

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_UNITS = (
    r"(?:%|percent|kg|g|mg|lb|lbs|km|m|cm|mm|mi|miles?|ft|GB|MB|KB|TB|ms|s|sec|seconds?"
    r"|min|minutes?|h|hrs?|hours?|days?|nights?|weeks?|months?|years?|people|persons?"
    r"|guests?|adults?|children|rooms?|seats?|tickets?|items?|pages?|ml|l|°C|°F|kWh|W|kW)"
)
_CURRENCY = r"(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|dollars?|euros?|pounds?)"

# (kind, pattern) in priority order: an earlier kind claims its span first.
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (URL, re.compile(r"\bhttps?://[^\s<>\"'`)\]}]+")),
    (EMAIL, re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    (
        MONEY,
        re.compile(
            r"[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?[kKmM]\b)?"
            rf"|\b\d[\d,]*(?:\.\d+)?\s?{_CURRENCY}\b"
            rf"|\b{_CURRENCY}\s?\d[\d,]*(?:\.\d+)?"
        ),
    ),
    (
        DATE,
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b"
            r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b"
            rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s{_MONTH}\.?(?:\s\d{{4}})?\b"
            rf"|\b{_MONTH}\.?\s\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s\d{{4}})?\b"
            r"|\b\d{1,2}:\d{2}\s?(?:[aApP][mM])?\b|\b\d{1,2}\s?[aApP][mM]\b"
        ),
    ),
    (
        FILE,
        re.compile(
            r"\b[\w-]+(?:\.[\w-]+)*\.(?:pdf|csv|json|txt|md|py|docx?|xlsx?|pptx?"
            r"|png|jpe?g|gif|yaml|yml|zip|log|html?|xml|sql|ipynb|tsv)\b"
        ),
    ),
    (QUANTITY, re.compile(rf"(?<![\w.])\d[\d,]*(?:\.\d+)?\s?{_UNITS}(?![\w])")),
    (
        IDENTIFIER,
        re.compile(r"\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9][A-Za-z0-9_-]{3,}\b"),
    ),
    (NAME, re.compile(r"\b[A-Z][a-z]+(?:[ '-](?:de |van |von |da |of |la )?[A-Z][a-z]+)+\b")),
)

_NOT_NAMES = frozenset(
    "I I'm I've I'll The This That These Those There Then Thanks Thank Please Yes No Ok Okay "
    "Sure Great Hello Hi Also And But Or So If When What Which Who How Why Let Lets Here "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday Today Tomorrow Book Find Send "
    "Call Get Show Make Check Use Go Try Add Keep Tell Give Done Now".split()
)

_DECISION = re.compile(
    r"\b(?:decid\w*|agree\w*|confirm\w*|book(?:ed|ing)?|chose|choose|chosen|select\w*|approv\w*"
    r"|go with|settled?|plan(?:ned)?|will|let's|switch\w*|cancel\w*|reserv\w*|pick\w*)\b",
    re.IGNORECASE,
)
_CONSTRAINT = re.compile(
    r"\b(?:must|mustn't|never|always|only|at most|at least|no more than|no later than|budget"
    r"|deadline|limit|require\w*|need\w*|can't|cannot|don't|do not|avoid|prefer\w*|max(?:imum)?"
    r"|min(?:imum)?|under|before|after|without|should)\b",
    re.IGNORECASE,
)
# A user's constraint or standing instruction: a negation, a limit, a deadline, an always/never
# rule. One cue suffices; questions and the idioms below are not constraints.
_WHEN = (
    r"(?:\d+|noon|midnight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow"
    r"|tonight|the end|end of|next|this (?:week|month|year))"
)
_AMOUNT = (
    r"(?:[$€£¥]\s?\d+|\d+|an? |one|two|three|four|five|six|seven|eight|nine|ten|twenty|fifty"
    r"|hundred|thousand)"
)
_RULE = re.compile(
    r"\b(?:never|always|must|mustn't|shouldn't|should not|can't|cannot|can not|won't"
    r"|will not|don't|do not|doesn't|does not|avoid\w*|only|at most|at least"
    r"|no (?:more|later|earlier|sooner|fewer|less) than|not (?:more|later|earlier|before|after"
    r"|over|under|above|below|exceed)\w*|no\s+(?!one\b|idea\b|problem\b|worries\b)[a-z-]+"
    rf"|(?:under|over|above|below|within|up to|max(?:imum)?|min(?:imum)?)\s+{_AMOUNT}"
    r"|limit\w*|capped|budget|deadline|due|has to|have to|required|requirement"
    rf"|(?:by|before|after|until|till|no later than)\s+{_WHEN}"
    r"|without|except|make sure|be sure|refuse|rather not|exceed\w*|every time|whenever"
    r"|no matter)\b",
    re.IGNORECASE,
)
_NOT_RULES = re.compile(
    r"\b(?:don't worry|never mind|no problem|no worries|can't wait|no idea|don't know"
    r"|not sure|can't believe|no thanks|no thank you|always happy|only just|after all"
    r"|over there|over here|before you go|no rush)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+(?:[.!?]+(?=\s|$)|$)")
_TRAILING = ".,;:!?)]}'\""


@dataclass(frozen=True)
class ExactValue:
    """One verbatim value found in a text."""

    kind: str
    text: str


def _clean_spans(text: str, detectors: Sequence[Detector] | None) -> list[tuple[int, int]]:
    """The spans of ``text`` outside every sensitive finding, in order."""
    findings = sorted(detect_sensitive(text, detectors), key=lambda f: f.start)
    spans: list[tuple[int, int]] = []
    pos = 0
    for finding in findings:
        if finding.start > pos:
            spans.append((pos, finding.start))
        pos = max(pos, finding.end)
    if pos < len(text):
        spans.append((pos, len(text)))
    return spans


def clean_segments(text: str, detectors: Sequence[Detector] | None = None) -> list[str]:
    """``text`` split around every sensitive span (the flagged text itself is gone)."""
    if not text:
        return []
    return [text[start:end] for start, end in _clean_spans(text, detectors)]


def _values_in(segment: str) -> list[tuple[int, ExactValue]]:
    claimed: list[tuple[int, int]] = []
    found: list[tuple[int, ExactValue]] = []
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(segment):
            start, end = match.span()
            value = match.group(0).rstrip(_TRAILING) if kind in (URL, NAME) else match.group(0)
            if kind == URL:
                value = value.rstrip(_TRAILING)
            end = start + len(value)
            if any(start < c_end and c_start < end for c_start, c_end in claimed):
                continue
            if kind == NAME and value.split()[0] in _NOT_NAMES:
                words = value.split()[1:]
                if len(words) < 2:
                    continue
                value = " ".join(words)
            if kind == IDENTIFIER and value.isdigit():
                continue
            claimed.append((start, end))
            found.append((start, ExactValue(kind, value.strip())))
    found.sort(key=lambda item: item[0])
    return found


def find_exact_values(text: str, detectors: Sequence[Detector] | None = None) -> list[ExactValue]:
    """Verbatim exact values of ``text`` in order of appearance, duplicates removed.

    Spans flagged by the sensitive-data detectors are removed first, so no returned
    value contains (or is part of) flagged text.
    """
    seen: set[str] = set()
    values: list[ExactValue] = []
    for segment in clean_segments(text, detectors):
        for _, value in _values_in(segment):
            if value.text and value.text not in seen:
                seen.add(value.text)
                values.append(value)
    return values


def sentence_score(sentence: str) -> int:
    """How much a sentence is worth keeping: decisions and constraints 2 each, values 1."""
    score = 0
    if _DECISION.search(sentence):
        score += 2
    if _CONSTRAINT.search(sentence):
        score += 2
    if _values_in(sentence):
        score += 1
    return score


def salient_sentences(
    text: str, detectors: Sequence[Detector] | None = None, *, min_score: int = 1
) -> list[tuple[int, str]]:
    """``(score, sentence)`` for each sentence of ``text`` worth keeping, in order.

    A sentence that touches a sensitive span is left out whole.
    """
    if not text:
        return []
    spans = _clean_spans(text, detectors)
    kept: list[tuple[int, str]] = []
    for match in _SENTENCE.finditer(text):
        start, end = match.span()
        if not any(s <= start and end <= e for s, e in spans):
            continue  # the sentence overlaps a flagged span
        sentence = " ".join(match.group(0).split())
        if len(sentence) < 3:
            continue
        score = sentence_score(sentence)
        if score >= min_score:
            kept.append((score, sentence))
    return kept


def is_constraint(sentence: str) -> bool:
    """Whether ``sentence`` states a constraint or standing instruction (a negation, a limit,
    a deadline, an always/never rule), not a question or a pleasantry."""
    words = sentence.split()
    if len(words) < 3 or sentence.rstrip().endswith("?"):
        return False
    if _NOT_RULES.search(sentence) and len(_RULE.findall(sentence)) < 2:
        return False
    return bool(_RULE.search(sentence))


def find_constraints(text: str, detectors: Sequence[Detector] | None = None) -> list[str]:
    """The sentences of ``text`` that state constraints or instructions (:func:`is_constraint`),
    verbatim (whitespace normalised), in order; a sentence touching a sensitive span is left
    out whole."""
    return [s for _, s in salient_sentences(text, detectors, min_score=0) if is_constraint(s)]
