"""Sensitive-data detection: true positives, false positives, checksums, extensibility."""

from __future__ import annotations

import re

import pytest

from adk_memory_kit.routing import (
    DEFAULT_DETECTORS,
    RegexDetector,
    detect_sensitive,
    is_sensitive,
    redact,
)
from adk_memory_kit.sensitive import iban_valid, luhn_valid

TRUE_POSITIVES = [
    ("Charge my Visa 4111 1111 1111 1111 please", "payment_card"),
    ("card: 5555-5555-5555-4444", "payment_card"),
    ("amex 378282246310005 exp 12/28", "payment_card"),
    ("Refund to IBAN DE89 3704 0044 0532 0130 00.", "iban"),
    ("send it to GB82WEST12345698765432", "iban"),
    ("my password is hunter2!!", "credential"),
    ("PIN: 4821", "credential"),
    ("api_key = 9f8e7d6c5b4a39281706", "credential"),
    ("use AKIAIOSFODNN7EXAMPLE for the bucket", "credential"),
    ("token ghp_" + "a" * 36, "credential"),
    ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456", "credential"),
    ("db at postgres://admin:s3cret@db.internal/prod", "credential"),
    ("-----BEGIN RSA PRIVATE KEY-----", "credential"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "credential"),
    ("My SSN is 078-05-1120", "government_id"),
    ("passport number X1234567", "government_id"),
    ("my driving licence number is MORGA657054SM9IJ", "government_id"),
    ("NI number AB 12 34 56 C", "government_id"),
    ("I was diagnosed with depression last year", "health"),
    ("I'm pregnant, can I still fly in May?", "health"),
    ("I need to carry insulin in my hand luggage", "health"),
    ("I have a severe nut allergy", "health"),
]  # fmt: skip

FALSE_POSITIVES = [
    "I'm vegetarian and prefer an aisle seat.",
    "Order A-4521 has not arrived; flight LH 1234 was delayed.",
    "Call me on +1 415 555 0100 after 6pm.",
    "Booking reference 1234567890123 for 2 adults.",
    "Card ending in 1111 is fine.",
    "4111 1111 1111 1112",  # fails Luhn
    "my password reset link was broken",
    "the password is too short, it said",
    "my passport expires on 2027-03-15",
    "Is a passport needed for Lisbon?",
    "The hotel in Lisbon was noisy.",
    "DE89 is the route number, not a bank account",
    "Their fundraising aids local schools.",  # lower-case 'aids' is not the health term
    "Flight TP 1357 departs at 07:40 from gate B12.",
]


@pytest.mark.parametrize(("text", "kind"), TRUE_POSITIVES)
def test_detects(text, kind):
    findings = detect_sensitive(text)
    assert kind in {f.kind for f in findings}, findings
    assert is_sensitive(text)


@pytest.mark.parametrize("text", FALSE_POSITIVES)
def test_clean_text_has_no_findings(text):
    assert detect_sensitive(text) == []


def test_checksums():
    assert luhn_valid("4111111111111111") and not luhn_valid("4111111111111112")
    assert iban_valid("DE89 3704 0044 0532 0130 00")
    assert not iban_valid("DE89 3704 0044 0532 0130 01")  # mod-97 fails
    assert not iban_valid("DE89 3704 0044")  # too short for DE


def test_findings_carry_position_not_text():
    text = "pay with 4111 1111 1111 1111 today"
    (finding,) = detect_sensitive(text)
    assert text[finding.start : finding.end].strip() == "4111 1111 1111 1111"
    assert "4111" not in repr(finding)
    assert redact(text) == "pay with [REDACTED:payment_card] today"


def test_the_detector_list_is_extensible():
    employee = RegexDetector("employee_id", "government_id", r"\bEMP-\d{6}\b")
    text = "my badge is EMP-123456"
    assert detect_sensitive(text) == []
    assert [f.detector for f in detect_sensitive(text, (*DEFAULT_DETECTORS, employee))] == [
        "employee_id"
    ]
    # and reducible: an app that must keep allergies drops the health detector
    without_health = tuple(d for d in DEFAULT_DETECTORS if d.name != "health_terms")
    assert detect_sensitive("I have a nut allergy", without_health) == []


def test_every_default_detector_has_a_unique_name():
    names = [d.name for d in DEFAULT_DETECTORS]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z_]+", n) for n in names)
