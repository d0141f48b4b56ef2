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
    # env-style names: the keyword after "_" (\b does not see a boundary there)
    ("DB_PASSWORD=hunter2secret", "credential"),
    ("AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "credential"),
    ("STRIPE_API_KEY: 51HxYzQ2eZvKYlo2C0a1b2c3d", "credential"),
    ('db_password = "s3cr3t!"', "credential"),
    ('{"password": "abc123"}', "credential"),
    # prose: words between the keyword and "is", "is:", multi-word values
    ("my password for the portal is Blue42Sky", "credential"),
    ("The password to the office wifi is tr0ub4dor", "credential"),
    ("my password is: hunter2", "credential"),
    ("Password: My Dog Rex 2019", "credential"),
    # PINs and card security codes are digits, with or without "is"
    ("my cvv 123", "credential"),
    ("PIN 4821", "credential"),
    ("My PIN is 4821", "credential"),
    # IBANs in lower case
    ("refund to iban de89 3704 0044 0532 0130 00 please", "iban"),
    ("gb82west12345698765432", "iban"),
    # a card-network prefix and length, no card word needed; a card word, any prefix
    ("4000 0000 0000 0002", "payment_card"),
    ("pay with 4000 0000 0000 0002", "payment_card"),
    ("my store card 7000 0000 0000 0005", "payment_card"),
    # personal phrasing and acronyms
    ("I have depression", "health"),
    ("I've been depressed since the spring", "health"),
    ("I have no allergies but I'm diabetic", "health"),
    ("I was treated for an STD last year", "health"),
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
    # health words that are weather, history, code or a fare class
    "A tropical depression is forming near the Azores.",
    "The Great Depression museum is worth a visit.",
    "Use std::vector for the seat map.",
    "Book the STD fare, I prefer aisle seats.",
    "Any std fares left?",
    # negated health mentions are not health data
    "I am vegetarian and have no allergies.",
    "I am vegan, no medication issues",
    "I don't have any food allergies.",
    "Allergies: none",
    # talk about secrets, not secrets
    "The secret is out",
    "The secret is in the sauce at that place.",
    "Drop a pin is fine",
    "Drop a pin 200 m from the hotel.",
    "the password for the wifi is on the fridge",
    "if password == expected: log in",
    # a Luhn-valid number labelled as something else, without a card word
    "Order number 4000 0000 0000 0002 has shipped.",
    "Your booking reference is 4000 0000 0000 0002.",
    "Tracking # 7000 0000 0000 0005",
    "Ticket 9000000000000001 is confirmed.",  # no card prefix, no card word
    "Send it to DE89 Lisbon office, not a bank account",
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


def test_a_secret_value_is_redacted_whole():
    # granular (issue 23): the value is redacted, the keyword and the sentence are kept;
    # quoted: to its closing quote; a labelled line: to its end
    said = 'The password is "correct horse battery staple" and my seat is aisle.'
    assert redact(said) == 'The password is "[REDACTED:credential]" and my seat is aisle.'
    assert redact("Password: My Dog Rex 2019\nseat: aisle") == (
        "Password: [REDACTED:credential]\nseat: aisle"
    )
    assert redact("my password is hunter2!! Book the flight.") == (
        "my password is [REDACTED:credential] Book the flight."
    )
    env = "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY region=eu"
    assert "wJalr" not in redact(env) and "EXAMPLEKEY" not in redact(env)
    for text in ("my password for the portal is Blue42Sky", 'db_password = "s3cr3t!"'):
        assert "Blue42Sky" not in redact(text) and "s3cr3t" not in redact(text)


def test_redact_secrets_keeps_health_and_ordinary_words():
    from adk_memory_kit.sensitive import redact_secrets

    said = "Order number 4000 0000 0000 0002, I have a nut allergy, PIN 4821."
    assert redact_secrets(said) == (
        "Order number 4000 0000 0000 0002, I have a nut allergy, PIN [REDACTED:credential]."
    )


def test_an_iban_finding_stops_at_the_iban():
    text = "refund to iban de89 3704 0044 0532 0130 00 please"
    (finding,) = detect_sensitive(text)
    assert text[finding.start : finding.end] == "de89 3704 0044 0532 0130 00"


def test_card_networks():
    from adk_memory_kit.sensitive import card_network

    assert card_network("4111111111111111") == "visa"
    assert card_network("5555555555554444") == "mastercard"
    assert card_network("2221000000000009") == "mastercard"
    assert card_network("378282246310005") == "amex"
    assert card_network("6011111111111117") == "discover"
    assert card_network("37828224631000") is None  # Amex prefix, wrong length
    assert card_network("7000000000000005") is None


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
