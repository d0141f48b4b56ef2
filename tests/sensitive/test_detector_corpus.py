"""The default detectors on a labelled corpus of realistic messages: precision stays 1.00.

Each case is a message as a user might type it to an agent and the kinds of sensitive data it
holds (empty for a clean message). The negatives are the hard ones: order ids, phone numbers,
dates, prices, ISBNs, UUIDs, commit hashes, tracking numbers, postcodes, flight numbers and
prose about passwords without one. ``benchmarks/detectors.py`` prints the same figures for the
README's detector table.
"""

from __future__ import annotations

from collections import Counter

import pytest

from adk_memory_kit.sensitive import (
    CREDENTIAL,
    GOVERNMENT_ID,
    HEALTH,
    IBAN,
    PAYMENT_CARD,
    detect_sensitive,
)

CLASSES = (CREDENTIAL, GOVERNMENT_ID, PAYMENT_CARD, IBAN, HEALTH)

#: (message, kinds it holds)
POSITIVES: list[tuple[str, set[str]]] = [
    # the fail-closed layer (issue 43): a value-shaped token after the weak cue "key"
    ("wifi is HomeNet, key sunflower-77", {CREDENTIAL}),
    ("my SIN is 046 454 286", {GOVERNMENT_ID}),  # no checksum needed after the cue
    # credentials: the three misses of the review first
    ("login jsmith, pw: hunter22", {CREDENTIAL}),
    ("my bank login: jsmith / Hunter22!", {CREDENTIAL}),  # a known miss until issue 23
    ("ok so my passphrase is correct horse battery staple", {CREDENTIAL}),
    ("the password I use everywhere: Tr0ub4dor&3", {CREDENTIAL}),
    ("user admin / pass admin123 for the staging box", {CREDENTIAL}),
    ("username: bob.k pwd=Secr3tSauce", {CREDENTIAL}),
    ("Login is mgarcia and pw is Sunflower!9", {CREDENTIAL}),
    ("for the router: user root password toor1234", {CREDENTIAL}),
    ("account priya_s, pass: mango-lassi-42", {CREDENTIAL}),
    ("my wifi password is BlueFalcon88", {CREDENTIAL}),
    ("DB_PASSWORD=s3cr3t-value", {CREDENTIAL}),
    ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", {CREDENTIAL}),
    ("my password for the airline portal is Rex2019!", {CREDENTIAL}),
    ("the passphrase we set is purple monkey dishwasher lamp", {CREDENTIAL}),
    ("Remember: my passphrase is correct horse battery staple.", {CREDENTIAL}),
    ('api_key: "AbCdEf1234567890"', {CREDENTIAL}),
    ("here's the key AKIAIOSFODNN7EXAMPLE for the bucket", {CREDENTIAL}),
    ("token ghp_16C7e42F292c6912E7710c838347Ae178B4a", {CREDENTIAL}),
    ("use sk-proj-abcdefghijklmnopqrstuvwxyz123456 for the bot", {CREDENTIAL}),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9abcdefghijklmnop", {CREDENTIAL}),
    ("connect with postgres://app:hunter2@db.internal/prod", {CREDENTIAL}),
    ("my PIN is 4821", {CREDENTIAL}),
    ("cvv 123, expires 09/27", {CREDENTIAL}),
    ("door passcode: 90210", {CREDENTIAL}),
    ("-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA", {CREDENTIAL}),
    ("slack token xoxb-1234567890-abcdefghij", {CREDENTIAL}),
    ("The password I gave you last week was Hunter2024", {CREDENTIAL}),
    # government ids
    ("my PAN is ABCPE1234F", {GOVERNMENT_ID}),
    ("PAN card: BNZPM2501F, please file it", {GOVERNMENT_ID}),
    ("company PAN AAACR5055K for the invoice", {GOVERNMENT_ID}),
    ("Aadhaar 5533 7406 8124", {GOVERNMENT_ID}),
    ("my aadhar no is 243419254122", {GOVERNMENT_ID}),
    ("UID 8341-6858-7831 linked to my bank", {GOVERNMENT_ID}),
    ("here it is: 2285 8733 5773", {GOVERNMENT_ID}),
    ("NI number AB 12 34 56 C", {GOVERNMENT_ID}),
    ("my national insurance is JG103759A", {GOVERNMENT_ID}),
    ("SSN 123-45-6789", {GOVERNMENT_ID}),
    ("my social is 078-05-1120 if they ask", {GOVERNMENT_ID}),
    ("passport number 533380006", {GOVERNMENT_ID}),
    ("driver's license D1234567 expires next year", {GOVERNMENT_ID}),
    ("personnummer 19900101-1234", {GOVERNMENT_ID}),
    ("NIE X1234567L for the rental form", {GOVERNMENT_ID}),
    ("tax id 12-3456789 for the W-9", {GOVERNMENT_ID}),
    # a national id named by its own name, in a sentence the secret head reads poorly
    ("Mera CNIC number 42401-5567823-1 hai, yeh rakh lo.", {GOVERNMENT_ID}),
    ("Iqama 2345678901, renew before Ramadan", {GOVERNMENT_ID}),
    # payment cards
    ("charge it to 4111 1111 1111 1111", {PAYMENT_CARD}),
    ("card: 5555-5555-5555-4444 exp 12/26", {PAYMENT_CARD}),
    ("my amex is 378282246310005", {PAYMENT_CARD}),
    ("6011111111111117 is the discover one", {PAYMENT_CARD}),
    ("use 4012888888881881 please", {PAYMENT_CARD}),
    ("Visa ending... actually full number 4000 0566 5566 5556", {PAYMENT_CARD}),
    ("pay with 3530111333300000", {PAYMENT_CARD}),
    ("debit card 5200828282828210", {PAYMENT_CARD}),
    # IBANs
    ("wire it to DE89 3704 0044 0532 0130 00", {IBAN}),
    ("IBAN GB82WEST12345698765432", {IBAN}),
    ("my iban: fr14 2004 1010 0505 0001 3m02 606", {IBAN}),
    ("refund to NL91ABNA0417164300 please", {IBAN}),
    ("account CH9300762011623852957 at UBS", {IBAN}),
    ("send the deposit to ES9121000418450200051332", {IBAN}),
    # health
    ("I was diagnosed with diabetes last year", {HEALTH}),
    ("I have a severe nut allergy", {HEALTH}),
    ("I'm pregnant so no window seat near the toilets", {HEALTH}),
    ("I've been depressed since the move", {HEALTH}),
    ("I take insulin twice a day", {HEALTH}),
    ("my therapist says I should travel less", {HEALTH}),
    ("I need a wheelchair because of my disability", {HEALTH}),
    ("asthma inhaler in my carry-on", {HEALTH}),
    # mixed
    ("card 4111111111111111 and my PIN is 9931", {PAYMENT_CARD, CREDENTIAL}),
    ("PAN ABCPE1234F and IBAN DE89370400440532013000", {GOVERNMENT_ID, IBAN}),
]

#: Realistic secrets the detectors miss today (no keyword a rule could anchor on); they count
#: in the figures and each test below flips to a failure once a detector finds it.
KNOWN_MISSES: list[tuple[str, set[str]]] = []

#: The lowest recall each class may fall to (the figures on this corpus today).
RECALL_FLOOR = {CREDENTIAL: 0.92, GOVERNMENT_ID: 0.94, PAYMENT_CARD: 1.0, IBAN: 1.0, HEALTH: 1.0}

NEGATIVES: list[str] = [
    # order ids, booking references, tracking numbers
    "Order #112-4839201-7734021 shipped today",
    "order number 4000 0000 0000 0002 is delayed",
    "booking reference QX7P2M, 2 adults",
    "tracking 1Z999AA10123456784 says out for delivery",
    "FedEx tracking number 7489 2345 1234",
    "USPS 9400 1000 0000 0000 0000 00 arrived",
    "ticket 9000000000000001 for the museum",
    "invoice INV-2024-00873 is paid",
    "PNR ABC123 on the 8:40",
    "SKU ABCDE12345X is out of stock",
    # phone numbers
    "call me on +1 (415) 555-0132",
    "my mobile is +91 98765 43210",
    "UK number 07700 900123",
    "office line 020 7946 0958 ext 12",
    "fax 1-800-555-0199",
    # dates and times
    "the flight is on 2024-03-15 at 07:45",
    "I'm back on 15/03/2024",
    "meeting moved to March 3rd, 2025, 10am",
    "born 1990-01-01 in Lisbon",
    # prices and amounts
    "it costs $1,299.99 plus tax",
    "hotel was EUR 145.00 per night",
    "budget is 2,500,000 rupees",
    "total 1234 5678 9012 yen is wrong, it was less",
    # ISBNs, UUIDs, hashes, versions
    "ISBN 978-0-306-40615-7",
    "isbn 9780306406157 is the paperback",
    "request id 3f2b8c1e-9d4a-4e7b-8f21-6c0d5a9e7b13",
    "fixed in commit a3f9c2e1b7d4e6f8a0b2c4d6e8f0a1b3c5d7e9f1",
    "short hash 9fceb02 broke the build",
    "upgrade to google-adk 2.13.0",
    "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    # postcodes, addresses, flights, seats
    "deliver to SW1A 1AA, London",
    "10115 Berlin, Germany",
    "zip 94107",
    "flight BA283 to LAX",
    "LH 400 departs gate B12",
    "UA901 is delayed",
    "seat 14C please, aisle",
    "room 1204, floor 12",
    # prose about passwords without a secret
    "I clicked the password reset link but it expired",
    "can you send me a password reset link?",
    "the password is too short, it says",
    "my password expired again",
    "the wifi password is on the fridge",
    "I forgot my password for the portal",
    "the password I use is the same as before",
    "the password is reset every ninety days",
    "login jsmith, password reset link sent",
    "user research, pass rate 95%",
    "boarding pass: 12A",
    "account settings, password strength meter",
    "username taken, password too weak",
    "login page / password field is greyed out",
    "user manual, pwd command prints the folder",
    "the passphrase is correct",
    "the passphrase is too long to remember easily",
    "passwords must be 12 characters long",
    "the secret is out",
    "please log in with your usual account",
    "drop a pin 200 m from the hotel",
    # numbers that pass a checksum but are not ids
    "order 611365712009 was refunded",
    "parcel 2345 6789 0124 is at the depot",
    "reference 243419254122 for the claim",
    # health-ish words that are not health
    "the aids to navigation were updated",
    "std::vector is faster here",
    "a tropical depression formed overnight",
    "no allergies, no medication",
    "I have no known food allergies",
    "the Great Depression chapter",
    # other codes
    "gate A23, terminal 5",
    "colour #FF5733 for the logo",
    "IP 192.168.1.254 on the router",
    "VAT GB123456789 on the receipt",
    "coupon SAVE20NOW",
]


def _kinds(text: str) -> set[str]:
    return {f.kind for f in detect_sensitive(text)}


def score() -> dict[str, dict[str, float]]:
    """Per class: cases (positives holding it), recall and precision over the whole corpus."""
    tp, fn, fp = Counter(), Counter(), Counter()
    labelled = [*POSITIVES, *KNOWN_MISSES] + [(t, set()) for t in NEGATIVES]
    for text, expected in labelled:
        found = _kinds(text)
        for kind in CLASSES:
            if kind in expected:
                (tp if kind in found else fn)[kind] += 1
            elif kind in found:
                fp[kind] += 1
    table = {}
    for kind in CLASSES:
        cases = tp[kind] + fn[kind]
        table[kind] = {
            "cases": cases,
            "recall": tp[kind] / cases if cases else 1.0,
            "precision": tp[kind] / (tp[kind] + fp[kind]) if tp[kind] + fp[kind] else 1.0,
            "false_positives": fp[kind],
        }
    return table


def test_the_corpus_is_big_enough():
    positives = [*POSITIVES, *KNOWN_MISSES]
    assert len(positives) >= 60 and len(NEGATIVES) >= 60
    assert len({t for t, _ in positives} | set(NEGATIVES)) == len(positives) + len(NEGATIVES)


@pytest.mark.parametrize("text", NEGATIVES)
def test_hard_negatives_are_not_findings(text):
    assert detect_sensitive(text) == []


@pytest.mark.parametrize(("text", "kinds"), POSITIVES)
def test_positives_are_found(text, kinds):
    assert kinds <= _kinds(text)


@pytest.mark.xfail(strict=True, reason="known gap: no keyword to anchor on")
@pytest.mark.parametrize(("text", "kinds"), KNOWN_MISSES)
def test_known_misses_are_still_missed(text, kinds):
    assert kinds <= _kinds(text)


def test_precision_is_one_and_recall_holds_for_every_class():
    table = score()
    assert all(row["precision"] == 1.0 for row in table.values()), table
    assert all(table[kind]["recall"] >= floor for kind, floor in RECALL_FLOOR.items()), table
