"""Issue 43: the gate fails closed. One test per class of the issue, with sentences written
for these tests (none copied from a corpus), the false-positive classes that must stay
unflagged, the ``sensitivity`` switch, and the side fields of a stored memory."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from adk_memory_kit.embedders.multilingual import MultilingualEncoder
from adk_memory_kit.sensitive import (
    BANK_ACCOUNT,
    CREDENTIAL,
    GOVERNMENT_ID,
    HEALTH,
    PAYMENT_CARD,
    RECOVERY,
    detect_sensitive,
    get_sensitivity,
    redact_for_store,
    sensitivity_scope,
    set_sensitivity,
)
from adk_memory_kit.sensitive.meaning_encoder import use_meaning_encoder
from tests.support.redaction import assert_gone as _gone


def _kinds(text: str) -> set[str]:
    return {f.kind for f in detect_sensitive(text)}


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("pay the roofer: routing 011000015, checking 4455667788", ("011000015", "4455667788")),
        ("UK transfer — sort code 60-16-13, account 31926819", ("60-16-13", "31926819")),
        ("Aussie payee BSB 082-902 and acct 518293847 please", ("082-902", "518293847")),
        ("NEFT details: IFSC ICIC0000104, a/c 000401234567", ("ICIC0000104", "000401234567")),
        (
            "número de cuenta 0049 1500 0512 3456 7890 para el alquiler",
            ("0049 1500 0512 3456 7890",),
        ),
    ],
)
def test_bank_details_are_redacted(text: str, secrets: tuple[str, ...]) -> None:
    _gone(text, *secrets)
    assert BANK_ACCOUNT in _kinds(text)


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("my 2FA code is 604 118, quick before it expires", ("604 118",)),
        (
            "GitLab backup codes:\n7c1e0-2f9ad\n0b44a-9e1c7\n5d2f8-aa310\n93c0e-11b4f",
            ("7c1e0-2f9ad", "0b44a-9e1c7", "5d2f8-aa310", "93c0e-11b4f"),
        ),
        (
            "wallet seed phrase: rabbit ocean guitar velvet tiny orbit lemon satoshi "
            "twelve canyon ripple absorb",
            ("rabbit ocean guitar velvet tiny orbit lemon satoshi twelve canyon ripple absorb",),
        ),
        (
            "BitLocker said 418209-551463-020394-771650-302918-664211-119327-580062",
            ("418209-551463-020394-771650-302918-664211-119327-580062",),
        ),
        ("authenticator setup key: K7QW 3MZP 2XLR V6TA", ("K7QW 3MZP 2XLR V6TA",)),
    ],
)
def test_one_time_and_recovery_material_is_redacted(text: str, secrets: tuple[str, ...]) -> None:
    _gone(text, *secrets)
    assert RECOVERY in _kinds(text) or CREDENTIAL in _kinds(text)


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("the side gate code is 5561, then push hard", ("5561",)),
        ("garage keypad: 90210#", ("90210#",)),
        ("VPN login is mbrandt / Kestrel!88", ("Kestrel!88",)),
        ("creds: ops:Vant4ge-shore", ("Vant4ge-shore",)),
        ("set DATABASE_URL=mysql://svc:Pl4typus9@10.2.0.4/app", ("Pl4typus9",)),
        ("pg url postgres://:Qe7rTy2uZ@db.local:5432/x", ("Qe7rTy2uZ",)),
        ("パスワードはumi7gatsuです", ("umi7gatsu",)),
        ("el código de la puerta es 7319", ("7319",)),
        ("le digicode de l'immeuble: 4B82C", ("4B82C",)),
    ],
)
def test_passwords_and_codes_are_redacted(text: str, secrets: tuple[str, ...]) -> None:
    _gone(text, *secrets)


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("Reisepass C7KX9L2M4 läuft 2031 ab", ("C7KX9L2M4",)),
        ("mi DNI es 48291756K", ("48291756K",)),
        ("TFN for the accountant: 459 812 736", ("459 812 736",)),
        (
            "scan of the photo page:\nP<CANMORRIS<<JANE<ELLEN<<<<<<<<<<<<<<<<<<<<<\n"
            "QK1948273CAN9003157F3207224<<<<<<<<<<<<<<02",
            ("QK1948273CAN9003157F3207224<<<<<<<<<<<<<<02",),
        ),
        ("my driver's license is D4471-20933-81", ("D4471-20933-81",)),
    ],
)
def test_government_ids_are_redacted(text: str, secrets: tuple[str, ...]) -> None:
    _gone(text, *secrets)
    assert GOVERNMENT_ID in _kinds(text)


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("Mastercard5454545454545454 is the company one", ("5454545454545454",)),
        ("card: 4012 8888 8888\n1881 exp 04/28", ("4012 8888 8888\n1881",)),
        ("amex 3714 496353 98432 (typo'd?)", ("3714 496353 98432",)),
    ],
)
def test_cards_glued_or_split_are_redacted(text: str, secrets: tuple[str, ...]) -> None:
    _gone(text, *secrets)
    assert PAYMENT_CARD in _kinds(text)


@pytest.mark.parametrize(
    "text",
    [
        "I start chemo for the lymphoma on Monday",
        "my A1C was 8.1 at the last checkup so the doctor wants me on metformin",
        "two years sober this spring, still going to meetings",
        "mi madre tiene diabetes y se inyecta insulina",
        "j'ai fait une fausse couche en mars",
        "got my PrEP refill, remind me about the kidney labs",
    ],
)
def test_health_by_meaning_is_found(text: str) -> None:
    assert HEALTH in _kinds(text)


@pytest.mark.parametrize(
    "text",
    [
        "my uncle is a cardiologist in Leeds",
        "I don't have any allergies, thanks",
        "we watched a documentary about dementia care",
        "the node went unhealthy after the deploy",
    ],
)
def test_negation_professions_and_other_senses_are_not_health(text: str) -> None:
    assert HEALTH not in _kinds(text)


def test_without_the_model_strict_fails_closed() -> None:
    use_meaning_encoder(None)
    try:
        text = "my husband was diagnosed with PTSD"
        assert HEALTH in _kinds(text)
        with sensitivity_scope("balanced"):
            assert HEALTH in _kinds(text)  # the rule detector still reads it
            assert HEALTH not in _kinds("my brother had a biopsy")
    finally:
        use_meaning_encoder(MultilingualEncoder)


@pytest.mark.parametrize(
    "text",
    [
        "reorder part number 123-45-6789 from the supplier",
        '<script src="/x.js" integrity="sha384-Lq7YtUJ2z0hHVsGxk1R3oUo5i1mUq3J4pPqRmd8Rk1k'
        'q6Qw7bL0cWm2fD4sS9tVz"></script>',
        "add ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMv4Qq9Yq3bC0pX1rT7uW2zE5kH8jL6nA4sD1fG0hJ9k "
        "dev@box to authorized_keys",
        "add a unique index on the password_hash column",
        "there was a pregnant pause before the vote",
        "zip code 94107, order id 88231, port 8443",
        "tenant id: 3f2b6c1e-9d4a-4e7f-8b21-6a0c5d9e7f13",
        "packing list: " + " ".join(f"item{i}" for i in range(40)),  # BIP-39 words glued to digits
        "shopping: milk bread coffee sugar lemon butter cheese salad onion garlic rice honey",
    ],
)
def test_false_positive_classes_stay_unflagged(text: str) -> None:
    assert detect_sensitive(text) == [], text


def test_sensitivity_switch() -> None:
    text = "my savings 55321098 at the credit union"  # weak cues only
    assert get_sensitivity() == "strict"
    assert BANK_ACCOUNT in _kinds(text)
    with sensitivity_scope("balanced"):
        assert get_sensitivity() == "balanced"
        assert BANK_ACCOUNT not in _kinds(text)
        assert BANK_ACCOUNT in _kinds("routing number 011000015")  # a strong cue counts
    set_sensitivity("balanced")
    try:
        assert BANK_ACCOUNT not in _kinds(text)
    finally:
        set_sensitivity("strict")
    with pytest.raises(ValidationError):
        set_sensitivity("lax")  # type: ignore[arg-type]


def test_a_secret_only_in_tags_or_subject_is_stored_redacted() -> None:
    from adk_memory_kit.memory.documents import MemoryDocument
    from adk_memory_kit.memory.hygiene import pop_hygiene
    from adk_memory_kit.memory.items_sql import row

    key_in_tag, key_in_subject = "AKIAQ4RTZ7WX2MBN5KLP", "AKIAJ3VD8SL0PQ6YTE2C"
    hygiene = pop_hygiene({"tags": ["travel", key_in_tag], "subject": key_in_subject})
    now = datetime.now(UTC)
    doc = MemoryDocument("m1", "s1", "e1", "fact", None, "user", "a plain note", "a plain note",
                         "a plain note", now)  # fmt: skip
    stored = row("app", "user", doc, None, hygiene, None)
    kept = " ".join([*stored["tags"], stored["subject"] or "", stored["context_text"]]).lower()
    assert key_in_tag.lower() not in kept and key_in_subject.lower() not in kept


@pytest.mark.parametrize(
    "text",
    [
        "the side gate code is 5561, then push hard",
        "my locker code is 64cf05 for u-a1cd24be",
        "sort code 60-16-13, account 31926819, ref INV-2231",
        "GitLab backup codes:\n7c1e0-2f9ad\n0b44a-9e1c7\n5d2f8-aa310",
    ],
)
def test_the_gate_is_idempotent(text: str) -> None:
    # stores re-read and re-gate text: a marker is not a value
    once = redact_for_store(text)
    assert redact_for_store(once) == once
    # the layers alone: a redacted cue's value must not move on to the next token (with the
    # secret head on, every value of a message that gives a secret goes, the user id too)
    use_meaning_encoder(None)
    try:
        once = redact_for_store(text)
        assert redact_for_store(once) == once
        assert "u-a1cd24be" in once or "u-a1cd24be" not in text
    finally:
        use_meaning_encoder(MultilingualEncoder)


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("Pay with 4111 1111 1111 1111, exp 09/29, the code on the back is 318.", ("318",)),
        ("Numéro 5500 0000 0000 0004 - expire 11/27 - cryptogramme 774, merci", ("774",)),
        ("card 4012888888881881 security code nine four two, book it", ("nine four two",)),
        ("Usa la tarjeta 378282246310005 (código 4417) para la reserva", ("4417",)),
    ],
)
def test_the_short_code_said_with_a_card_is_redacted(text: str, secrets: tuple[str, ...]) -> None:
    _gone(text, *secrets)


@pytest.mark.parametrize(
    "text",
    [
        "Card 4111 1111 1111 1111 for the 2027 trip, we land at 18:40. Room 512 is ours.",
        "The card 4111 1111 1111 1111 paid 250 euros. Then I walked 300 m home.",
    ],
)
def test_after_a_card_years_times_amounts_and_the_next_sentence_stay(text: str) -> None:
    stored = redact_for_store(text)
    assert "4111" not in stored
    for kept in ("2027", "18:40", "512", "250", "300"):
        if kept in text:
            assert kept in stored, stored


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Het wachtwoord van de wifi is Tulp!Fiets42, voor de oppas", "Tulp!Fiets42"),
        ("Hasło do routera: Kot_Mruczek77", "Kot_Mruczek77"),
        ("wifi şifresi Deniz2023kedi, misafirler için", "Deniz2023kedi"),
        ("우리집 와이파이 비번 haneul77!! 이야", "haneul77!!"),
        ("家里的wifi密码是 xiaomao8899", "xiaomao8899"),
        ("пароль от почты Morkovka_55", "Morkovka_55"),
        ("Min bankkod är 7731 och reservkod 448120", "448120"),
        ("Kode pemulihan akun saya 7741-2290-1836", "7741-2290-1836"),
        ("Mijn BSN is 111222333, voor de belastingaangifte", "111222333"),
        ("Mein PESEL: 02070803628 für das Formular", "02070803628"),
    ],
)
def test_cues_in_more_languages_name_the_secret_after_them(text: str, secret: str) -> None:
    _gone(text, secret)


def test_a_bank_account_beside_a_company_form_stays_redacted() -> None:
    """A number beside a company's legal form is the company's public number, but its bank
    account is not public."""
    text = "Kindly remit to:\nAccount Name: Okonkwo Traders Ltd\nAccount No: 2049817735\nThanks"
    assert "2049817735" not in redact_for_store(text)
