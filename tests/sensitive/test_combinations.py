"""Combinations and sort codes (``17-42-08``) are redacted in any language, with or without a
word naming them; placeholders, format talk and other number shapes stay."""

from __future__ import annotations

import pytest

from adk_memory_kit.sensitive import detect_sensitive
from adk_memory_kit.sensitive.combinations import CombinationDetector
from adk_memory_kit.sensitive.gate import redact_for_store


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("De Tresor im Büro: 17-42-08. Nöd verliere gell", "17-42-08"),
        ("Ang kandado sa bodega, kombinasyon 3-17-29. Ayaw ipanghatag", "3-17-29"),
        ("24-08-36 grab my chem notes from my locker pls", "24-08-36"),
        ("Here's ma details for the rent: 82-61-39 / 67398628, cheers", "82-61-39"),
        ("צופן הכספת 19–44–08, אל תגיד לאף אחד", "19–44–08"),
        ("金庫は 36-14-52 です", "36-14-52"),
    ],
)
def test_a_combination_is_redacted_whatever_the_language(text: str, secret: str) -> None:
    assert any(f.detector == "combination" for f in detect_sensitive(text))
    assert secret not in redact_for_store(text)


@pytest.mark.parametrize(
    "text",
    [
        "sort code on the form is 00-00-00, just the example",
        "UK sort codes have the format 12-34-56 on every statement",
        "build 2024-06-01 shipped, version 1.12-03-04 next",
        "pages 12-34-567 of the report",
        "call 555-12-34-56 for the shop",
        "ref AB-12-34 on the invoice",
    ],
)
def test_placeholders_format_talk_and_other_shapes_are_not_combinations(text: str) -> None:
    assert CombinationDetector().find(text) == []


@pytest.mark.parametrize(
    ("text", "secret", "kept"),
    [
        ("wifi password is Mango!7731, we fly home on TB571 tomorrow", "Mango!7731", "TB571"),
        ("PIN for the hotel safe is 4471, our flight back is TB571", "4471", "TB571"),
        ("my card 4111 1111 1111 1111 paid for the 2027 trip to Lisbon", "4111", "2027"),
    ],
)
def test_a_year_and_a_flight_number_beside_a_secret_stay(text: str, secret: str, kept: str) -> None:
    """The meaning head reads these messages as giving a secret (it then redacts every value
    of the message): the secret goes, a flight number and a year stay."""
    stored = redact_for_store(text)
    assert secret not in stored and kept in stored, stored


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Код от подъезда 4821, заходи", "4821"),
        ("Kodi i derës është 5172, mos ia thuaj askujt", "5172"),
        ("รหัสประตูบ้าน 7 3 9 1 นะ", "7 3 9 1"),
        ("د کور کوډ 3-8-2-6 دی", "3-8-2-6"),
    ],
)
def test_a_code_named_by_the_borrowed_word_is_redacted(text: str, secret: str) -> None:
    """The word "code" as other languages borrowed it (код, kodi, รหัส, کوډ) names a code
    where no other word of the lists does; the English "code" alone is no trigger."""
    assert secret not in redact_for_store(text)


def test_the_english_word_code_alone_names_no_code() -> None:
    assert "1234" in redact_for_store("the dress code for table 1234 is smart casual")
