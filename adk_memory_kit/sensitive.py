"""Sensitive-data detection that needs no model: run it before anything is stored.

``detect_sensitive(text)`` returns one :class:`Finding` per hit (empty when the text is clean).
The default list, :data:`DEFAULT_DETECTORS`, covers payment card numbers (Luhn-checked), IBANs
(mod-97 checked), credentials and API keys, government ids and health terms. It is a plain
tuple: pass your own list to add or remove detectors, e.g.

    detectors = (*DEFAULT_DETECTORS, RegexDetector("employee_id", "government_id", r"EMP-\\d{6}"))
    detect_sensitive(text, detectors)

Findings carry the kind and position only, never the matched text, so they are safe to log.
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


def _card_valid(matched: str) -> bool:
    digits = re.sub(r"\D", "", matched)
    # major networks start with 2-6 (Mastercard 2/5, Amex 3, Visa 4, Discover/UnionPay 6)
    return 13 <= len(digits) <= 19 and digits[0] in "23456" and luhn_valid(digits)


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


# ---------------------------------------------------------------- default detectors
_NOT_A_SECRET = (
    r"(?!(?:reset|expired|wrong|incorrect|correct|invalid|required|missing|empty|blank|"
    r"changed|updated|saved|stored|same|different|weak|strong|long|short|too|not|the|a|an|my|"
    r"your|being|case|protected|manager|policy|field)\b)"
)

PAYMENT_CARD_DETECTOR = RegexDetector(
    "payment_card", PAYMENT_CARD, r"(?<![\w-])(?:\d[ -]?){12,18}\d(?![\w-])", validate=_card_valid
)
IBAN_DETECTOR = RegexDetector(
    "iban", IBAN, r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b", validate=iban_valid
)
CREDENTIAL_DETECTORS: tuple[RegexDetector, ...] = (
    RegexDetector("private_key", CREDENTIAL, r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    RegexDetector("aws_access_key", CREDENTIAL, r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    RegexDetector("google_api_key", CREDENTIAL, r"\bAIza[0-9A-Za-z_\-]{35}"),
    RegexDetector(
        "github_token", CREDENTIAL, r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_\w{22,})"
    ),
    RegexDetector("slack_token", CREDENTIAL, r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    RegexDetector("stripe_key", CREDENTIAL, r"\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    RegexDetector("sk_api_key", CREDENTIAL, r"\bsk-[A-Za-z0-9_\-]{20,}"),
    RegexDetector(
        "jwt", CREDENTIAL, r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
    ),
    RegexDetector("bearer_token", CREDENTIAL, r"\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*"),
    RegexDetector("url_password", CREDENTIAL, r"\b[a-z][a-z0-9+.-]*://[^/\s:@]+:[^/\s@]+@"),
    RegexDetector(
        "secret_assignment",
        CREDENTIAL,
        r"\b(?:password|passwd|pwd|passphrase|passcode|pin(?: code| number)?|api[ _-]?key|"
        r"secret(?:[ _-]key)?|access[ _-]?token|auth[ _-]?token|client[ _-]?secret|"
        r"security code|cvv|cvc)\b\s*(?:is|was|=|:)\s*[\"']?" + _NOT_A_SECRET + r"\S{3,}",
        re.IGNORECASE,
    ),
)
GOVERNMENT_ID_DETECTORS: tuple[RegexDetector, ...] = (
    RegexDetector("us_ssn", GOVERNMENT_ID, r"\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b"),
    RegexDetector(
        "uk_nino",
        GOVERNMENT_ID,
        r"\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
        r" ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b",
    ),
    RegexDetector(
        "id_document_number",
        GOVERNMENT_ID,
        r"\b(?:passport|national id(?:entity)?(?: card)?|identity card|id card|"
        r"driver'?s? licen[cs]e|driving licen[cs]e|social security|ssn|tax id|"
        r"taxpayer id|national insurance|aadhaa?r|pan card|personnummer|bsn|dni|nie|nif|"
        r"codice fiscale|social insurance)\b"
        r"(?:\s*(?:number|no\.?|num|#|id))?(?:\s*(?:is|was|:|=))?\s*"
        r"(?!\d{4}-\d{2}-\d{2}\b)(?=[A-Za-z0-9-]*\d)[A-Za-z0-9](?:[A-Za-z0-9-]| (?=\d)){5,}",
        re.IGNORECASE,
    ),
)
HEALTH_DETECTOR = TermDetector(
    "health_terms",
    HEALTH,
    terms=(
        r"diagnos(?:is|es|ed)", r"cancer", r"tumou?rs?", r"chemo(?:therapy)?", r"diabet(?:es|ic)",
        r"insulin", r"depression", r"depressed", r"anxiety(?: disorder)?", r"panic attacks?",
        r"bipolar", r"schizophreni\w*", r"adhd", r"autis(?:m|tic)", r"epilep(?:sy|tic)",
        r"asthma(?:tic)?", r"pregnan(?:t|cy)", r"miscarriage", r"abortion", r"hiv(?:-positive)?",
        r"hepatitis", r"dementia", r"alzheimer'?s", r"parkinson'?s", r"heart (?:attack|condition)",
        r"blood pressure", r"hypertension", r"medications?", r"prescriptions?", r"prescribed",
        r"antidepressants?", r"therapist", r"psychiatr\w*", r"mental health", r"rehab",
        r"addiction", r"allerg(?:y|ies|ic)", r"surgery", r"disability", r"chronic illness",
        r"illness", r"medical condition", r"std", r"sti", r"covid(?:-19)? positive",
    ),
    case_sensitive=(r"AIDS",),
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
