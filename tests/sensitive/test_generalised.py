"""The generalisation round of issue 43: methods that carry over to writers who never read
the kit (card shapes whatever the checksum, digits of every script, a card's expiry, health
in languages the MiniLM head does not read, secrecy phrases, one scan of the text). Sentences
written for these tests; none copied from a corpus."""

from __future__ import annotations

import pytest

from adk_memory_kit.sensitive import PAYMENT_CARD, detect_sensitive, redact_for_store
from adk_memory_kit.sensitive.base import ascii_digits
from adk_memory_kit.sensitive.digit_ids import card_shaped


def _gone(text: str, *secrets: str) -> None:
    stored = redact_for_store(text)
    for secret in secrets:
        assert secret not in stored, (text, stored)


def _kept(text: str) -> None:
    assert redact_for_store(text) == text, redact_for_store(text)


# 1. cards by their shape, in any script, with their expiry and codes


def test_digits_of_every_script_read_as_ascii() -> None:
    assert ascii_digits("۶۰۳۷-৪৫৩৯ ٠٧/٢٨ １２") == "6037-4539 07/28 12"
    assert ascii_digits("abc 123") == "abc 123"


@pytest.mark.parametrize(
    ("run", "card"),
    [
        ("4916 3301 7720 8853", True),  # Visa prefix and length, Luhn fails
        ("6104-3377-1290-4456", True),  # four groups of four: a national network
        ("৫২১৯ ৩৩০৮ ১১৪৭ ২২৯০", True),  # Bengali digits
        ("3380 05514 54", False),
        ("123456789012", False),
    ],
)
def test_card_shape_whatever_the_checksum(run: str, card: bool) -> None:
    assert card_shaped(run) is card


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("Kortnummeret er 4916 3301 7720 8853, gyldig til 09/28, koden bak er 614",
         ("4916 3301 7720 8853", "09/28", "614")),
        ("كارت بانکی من ۶۱۰۴-۳۳۷۷-۱۲۹۰-۴۴۵۶ است، رمز دوم ۴۴۱۹۰۲",
         ("۶۱۰۴-۳۳۷۷-۱۲۹۰-۴۴۵۶", "۴۴۱۹۰۲")),
        ("Kartu saya 5219 3308 1147 2290 berlaku 2029/03, kode 775",
         ("5219 3308 1147 2290", "2029/03", "775")),
    ],
)  # fmt: skip
def test_a_card_shape_takes_its_expiry_and_codes(text: str, secrets: tuple[str, ...]) -> None:
    assert any(f.kind == PAYMENT_CARD for f in detect_sensitive(text))
    _gone(text, *secrets)


@pytest.mark.parametrize(
    "text",
    [
        "Flight LH 1284 leaves 07:10, gate B12, seat 23A",
        "Tracking number 4821-7730-5912 for the parcel, arriving 11/27",
    ],
)
def test_card_shapes_leave_references_alone(text: str) -> None:
    _kept(text)
