"""What ``detect_sensitive`` runs and how findings become redactions (the package's API
lives here; ``adk_memory_kit.sensitive`` re-exports it beside the gate and the plugin)."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterable, Sequence

from adk_memory_kit.sensitive.base import (
    BANK_ACCOUNT,
    CREDENTIAL,
    GOVERNMENT_ID,
    HEALTH,
    IBAN,
    PAYMENT_CARD,
    PRIVATE_CONTACT,
    RECOVERY,
    Detector,
    Finding,
    RegexDetector,
    TermDetector,
    ascii_digits,
)
from adk_memory_kit.sensitive.card_companions import (
    bank_companions,
    card_companions,
    pin_accounts,
)
from adk_memory_kit.sensitive.cards import SplitCardDetector
from adk_memory_kit.sensitive.combinations import CombinationDetector
from adk_memory_kit.sensitive.digit_ids import DigitIdDetector
from adk_memory_kit.sensitive.failclosed import CUE_VALUES, CueValueDetector
from adk_memory_kit.sensitive.health import HealthDetector
from adk_memory_kit.sensitive.health_meaning import MeaningHealthDetector
from adk_memory_kit.sensitive.key_named import KeyNamedDetector
from adk_memory_kit.sensitive.login_companions import login_companions
from adk_memory_kit.sensitive.numbers import (
    AlnumIdDetector,
    IbanDetector,
    IdDocumentDetector,
    NumberDetector,
    card_network,
    iban_valid,
    luhn_valid,
)
from adk_memory_kit.sensitive.password_shape import PasswordShapeDetector
from adk_memory_kit.sensitive.passwords import LoginPhraseDetector, PasswordDetector
from adk_memory_kit.sensitive.private_contact import PrivateContactDetector
from adk_memory_kit.sensitive.public import placeholder_at, public_spans
from adk_memory_kit.sensitive.public_numbers import phone_spans, says_public
from adk_memory_kit.sensitive.recovery import RecoveryDetector
from adk_memory_kit.sensitive.redacted import RedactedMarkerDetector
from adk_memory_kit.sensitive.scan import TextScan
from adk_memory_kit.sensitive.secrecy import asks_secrecy
from adk_memory_kit.sensitive.secret_meaning import judge
from adk_memory_kit.sensitive.settings import (
    GateSettings,
    Sensitivity,
    get_sensitivity,
    sensitivity_scope,
    set_sensitivity,
)
from adk_memory_kit.sensitive.shapes import ShapeDetector
from adk_memory_kit.sensitive.short_codes import ShortCodeDetector
from adk_memory_kit.sensitive.special import SpecialCategoryDetector
from adk_memory_kit.sensitive.spelled import Respelled, spelled_digits
from adk_memory_kit.sensitive.table_columns import TableColumnDetector
from adk_memory_kit.sensitive.vendor import PrivateKeyDetector, VendorTokenDetector

NUMBER_DETECTOR = NumberDetector()
IBAN_DETECTOR = IbanDetector()
HEALTH_DETECTOR = MeaningHealthDetector()  # vocabularies, then the MiniLM head; rules kept

#: Secrets and identifiers that must never reach a store.
SECRET_DETECTORS: tuple[Detector, ...] = (
    PrivateKeyDetector(),
    VendorTokenDetector(),
    PasswordDetector(),
    LoginPhraseDetector(),
    NUMBER_DETECTOR,
    IBAN_DETECTOR,
    AlnumIdDetector(),
    IdDocumentDetector(),
    SplitCardDetector(),
    ShapeDetector(),
    RecoveryDetector(),
    PasswordShapeDetector(),  # password-shaped tokens, no cue (any language)
    DigitIdDetector(),  # long digit runs not public by shape or label (any language)
    ShortCodeDetector(),  # short codes in a message naming a lock, a PIN or a secret
    CombinationDetector(),  # 17-42-08: a combination or a sort code (any language)
    KeyNamedDetector(),  # P24_CRC=..., "accountNo":"...": a value its key names secret
    TableColumnDetector(),  # a CSV / Markdown table's column whose header names a secret
    PrivateContactDetector(),  # phones and e-mails the message asks to keep private
    CueValueDetector(),  # the fail-closed layer (weak cues only at sensitivity="strict")
    RedactedMarkerDetector(),  # text the gate masked already (a stored, redacted turn)
)
#: Everything: the secrets, health terms and the other special categories (the routing layer
#: drops such *facts*; their words are topics, not tokens, so the store gate does not rewrite
#: them).
DEFAULT_DETECTORS: tuple[Detector, ...] = (
    *SECRET_DETECTORS,
    HEALTH_DETECTOR,
    SpecialCategoryDetector(),  # orientation, religion, security answers: topics, like health
)


#: Kinds whose finding is a value (not a topic): a placeholder of one is no secret.
_VALUE_KINDS = frozenset({CREDENTIAL, RECOVERY, PAYMENT_CARD, BANK_ACCOUNT, GOVERNMENT_ID, IBAN})
_TOPIC_DETECTORS = (MeaningHealthDetector, HealthDetector, SpecialCategoryDetector)


def detect_sensitive(text: str, detectors: Sequence[Detector] | None = None) -> list[Finding]:
    """Every sensitive span in ``text`` (sorted by position); empty when the text is clean."""
    if not text:
        return []
    chosen = DEFAULT_DETECTORS if detectors is None else detectors
    # digits of every script (Bengali, Persian, Devanagari ...) read as ASCII digits: the
    # same length, so every span found is a span of the text as given
    text = ascii_digits(text)
    findings = _run(text, chosen)
    respelled = spelled_digits(text)
    if respelled is not None:  # numbers spelled as words, read again as digits
        findings |= _respelled_findings(respelled, chosen)
    if findings:
        findings = _drop_redundant(_drop_public(text, findings))
        findings |= card_companions(text, findings)  # a card's security code, its PIN
        findings |= pin_accounts(text, findings)  # the wallet or account a PIN opens
        findings |= bank_companions(text, findings)  # an account's branch, transit, clearing
    if chosen is DEFAULT_DETECTORS or chosen is SECRET_DETECTORS:
        findings = judge(text, findings)  # the cue-less layers answer to the secret head
    if findings:
        findings |= login_companions(text, findings)  # the login a password (kept) opens
    return sorted(findings, key=lambda f: (f.start, f.end, f.kind, f.detector))


def _run(text: str, detectors: Sequence[Detector]) -> set[Finding]:
    """Every finding of ``detectors`` in ``text``, the text read once for all of them."""
    findings: set[Finding] = set()
    scan = TextScan(text)  # read once: its lower case, digits, cues and keyword heads
    for detector in detectors:
        if scan.digits < getattr(detector, "least_digits", 0):
            continue  # too few digits for any of this detector's matches
        find_in = getattr(detector, "find_in", None)
        findings.update(detector.find(text) if find_in is None else find_in(scan))
    return findings


def _respelled_findings(respelled: Respelled, detectors: Sequence[Detector]) -> set[Finding]:
    """Findings in the text with its spelled numbers written as digits that touch such a
    number, mapped back onto the words (health and the special categories are topics,
    not numbers: not read again)."""
    secret = [d for d in detectors if not isinstance(d, _TOPIC_DETECTORS)]
    found = _drop_public(respelled.text, _run(respelled.text, secret))
    out = set()
    for f in found:
        if respelled.touches_run(f.start, f.end):
            start, end = respelled.original(f.start, f.end)
            out.add(Finding(f.kind, f.detector, start, end))
    return out


#: Layers without a format of their own, weakest last: a finding of one is dropped where a
#: stronger detector already covers it (one secret, one finding, the surer kind). A private
#: contact is sure of its kind (the message says so): it ranks with the format detectors.
_CUE_FREE = frozenset({"digit_id", "password_shape", "short_code"})


def _tier(f: Finding) -> int:
    return 2 if f.detector in _CUE_FREE else 1 if f.detector in CUE_VALUES else 0


def _drop_redundant(findings: set[Finding]) -> set[Finding]:
    """``findings`` less the fail-closed layer's where a higher-confidence detector already
    covers an overlapping span, and less the cue-free layers' where a stronger finding
    covers theirs (one secret, one finding)."""
    layered = [f for f in findings if _tier(f)]
    if not layered or len(layered) == len(findings) and all(_tier(f) == 2 for f in layered):
        return findings
    keep = set(findings)
    sure = sorted((f.start, f.end) for f in findings if _tier(f) == 0)
    if sure:
        starts = [a for a, _ in sure]
        reach = list(itertools.accumulate((b for _, b in sure), max))
        for f in layered:
            i = bisect.bisect_left(starts, f.end)  # spans starting before f ends
            if _tier(f) == 1 and i and reach[i - 1] > f.start:
                keep.discard(f)
    stronger = sorted((f.start, f.end) for f in keep if _tier(f) < 2)
    if stronger:
        starts = [a for a, _ in stronger]
        reach = list(itertools.accumulate((b for _, b in stronger), max))
        for f in layered:
            if _tier(f) == 2:
                i = bisect.bisect_right(starts, f.start)  # spans starting at or before f
                if i and reach[i - 1] >= f.end:
                    keep.discard(f)
    return keep


def _drop_public(text: str, findings: set[Finding]) -> set[Finding]:
    """``findings`` less those wholly inside a public artifact (:mod:`.public`), and the
    fail-closed layer's that are phone numbers or in a message that says it is public
    (:mod:`.public_numbers`), unless the message asks to keep them secret."""
    spans = public_spans(text)
    if spans:
        findings = {f for f in findings if not any(a <= f.start and f.end <= b for a, b in spans)}
    # a value that stands for a secret (a template, a reference, a mask, a word saying so)
    findings = {
        f
        for f in findings
        if f.kind not in _VALUE_KINDS or not placeholder_at(text, f.start, f.end)
    }
    if any(f.detector in CUE_VALUES for f in findings) and not asks_secrecy(text):
        if says_public(text):
            return {f for f in findings if f.detector not in CUE_VALUES}
        phones = phone_spans(text)
        if phones:
            starts = [a for a, _ in phones]
            findings = {
                f
                for f in findings
                if f.detector not in CUE_VALUES or not _inside(phones, starts, f)
            }
    return findings


def _inside(spans: Sequence[tuple[int, int]], starts: list[int], f: Finding) -> bool:
    """Whether ``f`` lies inside one of ``spans`` (sorted, not overlapping)."""
    i = bisect.bisect_right(starts, f.start) - 1
    return i >= 0 and spans[i][1] >= f.end


def is_sensitive(text: str, detectors: Sequence[Detector] | None = None) -> bool:
    """Whether ``text`` holds anything a detector flags."""
    return bool(detect_sensitive(text, detectors))


def finding_kinds(findings: Iterable[Finding]) -> list[str]:
    """The distinct kinds of ``findings``, sorted (what is safe to log)."""
    return sorted({f.kind for f in findings})


def redact(text: str, findings: Sequence[Finding] | None = None) -> str:
    """``text`` with each finding's span replaced by ``[REDACTED:<kind>]``; the rest is kept.

    Overlapping findings are merged into one marker.
    """
    findings = detect_sensitive(text) if findings is None else findings
    out, pos = [], 0
    merged: list[list] = []
    for f in sorted(findings, key=lambda f: (f.start, -f.end)):
        if merged and f.start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], f.end)
            continue
        merged.append([f.start, f.end, f.kind])
    for start, end, kind in merged:
        out.append(text[pos:start])
        out.append(f"[REDACTED:{kind}]")
        pos = end
    out.append(text[pos:])
    return "".join(out)


def redact_secrets(text: str) -> str:
    """``text`` with card numbers, IBANs, credentials and government ids redacted."""
    return redact(text, detect_sensitive(text, SECRET_DETECTORS))


__all__ = [
    "BANK_ACCOUNT",
    "CREDENTIAL",
    "DEFAULT_DETECTORS",
    "Detector",
    "Finding",
    "GOVERNMENT_ID",
    "GateSettings",
    "HEALTH",
    "HEALTH_DETECTOR",
    "HealthDetector",
    "IBAN",
    "IBAN_DETECTOR",
    "MeaningHealthDetector",
    "NUMBER_DETECTOR",
    "PAYMENT_CARD",
    "PRIVATE_CONTACT",
    "RECOVERY",
    "RegexDetector",
    "SECRET_DETECTORS",
    "Sensitivity",
    "TermDetector",
    "card_network",
    "detect_sensitive",
    "finding_kinds",
    "get_sensitivity",
    "iban_valid",
    "is_sensitive",
    "luhn_valid",
    "redact",
    "redact_secrets",
    "sensitivity_scope",
    "set_sensitivity",
]
