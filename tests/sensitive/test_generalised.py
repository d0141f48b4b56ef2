"""The generalisation round of issue 43: methods that carry over to writers who never read
the kit (card shapes whatever the checksum, digits of every script, a card's expiry, health
in languages the MiniLM head does not read, secrecy phrases, one scan of the text). Sentences
written for these tests; none copied from a corpus."""

from __future__ import annotations

import pytest

from adk_memory_kit.sensitive import (
    BANK_ACCOUNT,
    HEALTH,
    PAYMENT_CARD,
    detect_sensitive,
    redact_for_store,
)
from adk_memory_kit.sensitive.base import ascii_digits
from adk_memory_kit.sensitive.digit_ids import card_shaped
from adk_memory_kit.sensitive.health_vocab import health_terms
from adk_memory_kit.sensitive.health_world import world_terms
from adk_memory_kit.sensitive.public_numbers import public_label_before
from adk_memory_kit.sensitive.secrecy import asks_secrecy
from tests.support.redaction import assert_gone as _gone
from tests.support.redaction import assert_kept as _kept

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


# 2. health in languages the MiniLM head does not read


def _health(text: str) -> bool:
    return any(f.kind == HEALTH for f in detect_sensitive(text))


@pytest.mark.parametrize(
    "text",
    [
        "작년에 조울증 진단 받고 지금 약 먹는 중이야",  # Korean: bipolar, diagnosis
        "أخي عنده الربو ويحتاج البخاخ دائما",  # Arabic: asthma
        "แม่เป็นเบาหวาน ต้องฉีดอินซูลินทุกวัน",  # Thai: diabetes, insulin
        "আমার বাবার ক্যান্সার ধরা পড়েছে, চিকিৎসা চলছে",  # Bengali: cancer, treatment
        "मेरी माँ को मधुमेह है और वो रोज़ दवाई लेती हैं",  # Hindi: diabetes, medicine
        "姐姐怀孕了，下个月去医院检查",  # Chinese: pregnant
    ],
)
def test_health_in_other_scripts(text: str) -> None:
    assert world_terms(text), text
    assert _health(text)


@pytest.mark.parametrize(
    "text",
    [
        "병원 앞에 새로 생긴 카페 가봤어?",  # only a care place
        "ドラマで主人公が癌になる話、泣いた",  # a drama
        "مستشفى المدينة قريب من المطعم",  # only a hospital
    ],
)
def test_a_care_place_or_a_story_alone_is_not_health(text: str) -> None:
    assert not _health(text)


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Babu ana kisukari na anatumia insulini kila siku", "kisukari"),  # Swahili
        ("Mam cukrzycę typu drugiego od pięciu lat", "cukrzyc"),  # Polish
        ("Tavaly pajzsmirigy alulműködést állapítottak meg nálam", "pajzsmirigy"),  # Hungarian
    ],
)
def test_the_multilingual_table_in_latin_and_other_scripts(text: str, word: str) -> None:
    assert any(text[a:b].lower().startswith(word) for a, b in world_terms(text))


def test_french_and_italian_elision_leaves_the_drug_name() -> None:
    text = "je prends de l'escitalopram depuis mars"
    assert "escitalopram" in [text[a:b] for a, b in health_terms(text)]


@pytest.mark.parametrize(
    "text",
    ["dukaan pe kisi ko mat batana", "다들 모르게 해줘", "usimwambie mtu yeyote"],
)
def test_secrecy_phrases_in_more_languages(text: str) -> None:
    assert asks_secrecy(text)


# 3. the words for a password and a one-time code in more languages; the account a PIN opens


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("la contrasenya del wifi és Pineda.77", "Pineda.77"),  # Catalan
        ("a jelszó Tavasz_2024 lett", "Tavasz_2024"),  # Hungarian
        ("پسورد مودم reza@1372 هست", "reza@1372"),  # Persian
        ("nenosiri ya wifi ni Simba_Kali9", "Simba_Kali9"),  # Swahili
        ("Kod TAC untuk pindahan ialah 552 019", "552 019"),  # Malay one-time code
        ("смс-код для входу 80415, не кажи нікому", "80415"),  # Ukrainian
        ("msimbo wa kuthibitisha ni 661902", "661902"),  # Swahili
        ("az egyszer használatos kód 730 114", "730 114"),  # Hungarian
    ],
)
def test_password_and_one_time_code_words_in_more_languages(text: str, secret: str) -> None:
    _gone(text, secret)


@pytest.mark.parametrize(
    ("text", "account"),
    [
        ("Tuma kwa M-Pesa yangu 0722 118 406, PIN 5530", "0722 118 406"),
        ("bKash 01812-445903, pin 7741, check koro", "01812-445903"),
    ],
)
def test_the_number_a_pin_opens_is_a_bank_account(text: str, account: str) -> None:
    found = detect_sensitive(text)
    assert any(f.kind == BANK_ACCOUNT and text[f.start : f.end] == account for f in found)


def test_a_phone_number_in_another_sentence_than_the_pin_is_kept() -> None:
    text = "My PIN is 4821. Call the shop on 020 7946 0123 tomorrow."
    assert "020 7946 0123" in redact_for_store(text)


# 4. ids whose checksum a writer got wrong: the layout decides


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Ausweisnummer im Personalausweis: TZ4K8M2R7, bitte eintragen", "TZ4K8M2R7"),
        ("o cartão de cidadão dele é 30118842 7 ZY3", "30118842 7 ZY3"),
        ("CC 21907735-4AB2 para o contrato", "21907735-4AB2"),
    ],
)
def test_id_layouts_whatever_the_checksum(text: str, secret: str) -> None:
    _gone(text, secret)


def test_a_short_code_after_a_document_name_is_kept() -> None:
    _kept("passport photos cost 8 EUR at booth B12, open until 18:00")


def test_a_card_row_of_a_csv_takes_its_code_cell() -> None:
    text = "name,card,exp,cvc,total\nA. Okafor,4916330177208853,04/29,731,120.00"
    _gone(text, "4916330177208853", "04/29", "731")
    assert "120.00" in redact_for_store(text)


# 5. digits of every script through every detector; an account's other numbers


def test_every_detector_reads_digits_of_every_script() -> None:
    text = "আমার পিন ৭৩১৯, কাউকে বলবে না"  # Bengali: a PIN in Bengali digits
    _gone(text, "৭৩১৯")
    text = "رمز عبور من ۸۸۲۰۱۹ است"  # Persian digits after a password word
    _gone(text, "۸۸۲۰۱۹")


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("RBC account 004417829, transit 03152, institution 003 for payroll",
         ("004417829", "03152", "003")),
        ("conta 8812 440912-3, agência 0917-2, Banco do Brasil", ("440912-3", "0917-2")),
    ],
)  # fmt: skip
def test_an_account_takes_its_branch_and_transit_numbers(
    text: str, secrets: tuple[str, ...]
) -> None:
    _gone(text, *secrets)


def test_an_account_of_three_groups_of_eight() -> None:
    _gone("utald ide: 10918001-00000123-45678902", "10918001-00000123-45678902")


@pytest.mark.parametrize(
    "text",
    ["A kapukód 5531, ha jön a futár", "공동현관 비번 *4410# 이야", "домофон 2280, квартира 14"],
)
def test_what_a_code_opens_in_more_languages(text: str) -> None:
    assert any(f.detector == "short_code" for f in detect_sensitive(text)), text


def test_a_number_labelled_public_beside_a_pin_is_kept() -> None:
    text = "Order number 4000 0000 0000 0002, I have a nut allergy, PIN 4821."
    assert "Order number 4000 0000 0000 0002" in redact_for_store(text)


def test_tagalog_po_is_no_purchase_order_label() -> None:
    text = "Maya ko po 0918 220 4417, MPIN 2290, salamat"
    _gone(text, "0918 220 4417", "2290")
    assert public_label_before("PO 4410021", 3)


def test_a_random_value_after_a_keyed_name_and_equals_is_a_credential() -> None:
    key = "Qm7xT2vL9pW4bN8yRc3J6hFd0sAe1Ug5KoPz7XzL2mN8vB4cD6fG0hJ1kL3"
    _gone(f"Endpoint=sb://ns.example/;SharedAccessKeyName=Root;SharedAccessKey={key};", key)
    _kept("set api_key=YOUR_API_KEY_HERE_PLEASE before running")
