"""Detection that does not depend on knowing the language: one block per method (password
shapes, long digit ids, spelled numbers, seed phrases, code lists, short codes, private
contacts), each with the false positives it must leave alone. Sentences written for these
tests; none copied from a corpus."""

from __future__ import annotations

import pytest

from adk_memory_kit.sensitive import (
    PRIVATE_CONTACT,
    RECOVERY,
    detect_sensitive,
)
from adk_memory_kit.sensitive.code_lists import code_list_spans
from adk_memory_kit.sensitive.digit_ids import DigitIdDetector
from adk_memory_kit.sensitive.password_shape import PasswordShapeDetector, password_shaped
from adk_memory_kit.sensitive.public_numbers import phone_spans, public_label_before
from adk_memory_kit.sensitive.recovery import fold
from adk_memory_kit.sensitive.secrecy import asks_secrecy
from adk_memory_kit.sensitive.short_codes import ShortCodeDetector
from adk_memory_kit.sensitive.spelled import spelled_digits
from adk_memory_kit.sensitive.vocab import Vocabulary
from tests.support.redaction import assert_gone as _gone
from tests.support.redaction import assert_kept as _kept

# 1. password-shaped tokens, no cue word


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("wachtwoord van de kluis thuis: Tulp_Gracht_1987", "Tulp_Gracht_1987"),
        ("Il router del bar usa Caffe&Luna2019, dallo ai clienti", "Caffe&Luna2019"),
        ("for the staff tablet type Heron@Dock47 and press enter", "Heron@Dock47"),
        ("Lozinka za mail je Jadran#Split77, nemoj je dijeliti", "Jadran#Split77"),
        ("the shared drive opens with MossyRock2024 since Monday", "MossyRock2024"),
        ("Fjellvann!92 er koden til hytta sin ruter", "Fjellvann!92"),
        ("banco: Lince.Azul.1987 y no lo cambies", "Lince.Azul.1987"),
    ],
)
def test_password_shaped_tokens_are_credentials_in_any_language(text: str, secret: str) -> None:
    _gone(text, secret)


@pytest.mark.parametrize(
    "token",
    [
        "olga.petrova88@mail.example",  # e-mail
        "ravi.k99@okbank",  # a lower-case payment handle
        "https://example.org/a1B#x",  # URL
        "@quokka_fan99",  # handle
        "#Summer2025Sale",  # hashtag
        "report_Q3_2024.xlsx",  # file name
        "v2.14.0-rc.1+build.77",  # version
        "PX-4410-BLK",  # product code (no lower case)
        "user_id=4412",  # key=value
        "max_retries_3",  # identifier, one letter case
        "Madrid-Barajas",  # no digit
        "Covid19",  # short word with a year-ish suffix
    ],
)
def test_public_shapes_are_not_password_shaped(token: str) -> None:
    assert not password_shaped(token)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(
            "the guest network is called Lobby_5G_2025, ask for the password at the desk",
            marks=pytest.mark.xfail(
                strict=True,
                reason="a false positive the gate accepts: the secret head (stop 57) reads a "
                "wifi message as giving its password (P 0.97; in the fifteen corpora it learned "
                "from, such messages nearly always do) and redacts the network's name, the "
                "message's only value; failing closed costs the name, not a secret",
            ),
        ),
        "on sale this week: Galaxy22Ultra and iPad11Air",
        "def check(pw): return bcrypt.checkpw(pw, stored)",
    ],
)
def test_names_products_and_code_are_not_passwords(text: str) -> None:
    _kept(text)


def test_one_capital_and_digits_needs_a_credential_cue() -> None:
    _kept("upgraded the office to Windows11 and Office365 this week")
    _kept("we met at Barnes&Noble on Friday")  # words and a symbol, no cue
    _gone("la clave del wifi es Tigre&Luna, no la cambies", "Tigre&Luna")
    _gone("Haslo do poczty: Pierogi2023", "Pierogi2023")  # a cue in Polish
    _gone("netflix password? it's Lantern77", "Lantern77")


def test_code_in_backticks_is_not_a_password() -> None:
    text = "run `Cfg_Load2(path)` then `retry_Max3!` in the shell"
    assert PasswordShapeDetector().find(text) == []


# 2. long digit runs are ids unless public by shape or label


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Mero nagarikta number 27-01-72-04519 ho, form ma halnu", "27-01-72-04519"),
        ("sofi: 4410 2287 9031, fyll i blanketten", "4410 2287 9031"),
        ("osobní číslo 780412/3361 do přihlášky", "780412/3361"),
        ("Kimlik 538 201 947 66, forma yaz lütfen", "538 201 947 66"),
        ("ID-ka: SOM-55120348-7 geli foomka", "SOM-55120348-7"),
        ("IBAN HR12 1001 0051 8630 0016 0 for the rent", "HR12 1001 0051 8630 0016 0"),
        ("Mi cédula es 1.027.884.310, para el formulario", "1.027.884.310"),  # not an IP
    ],
)
def test_long_digit_runs_are_ids_by_default(text: str, secret: str) -> None:
    _gone(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "call me on +44 7700 900461 after six",  # phone
        "my new mobile is 0612 345 678, save it",  # phone, trunk 0
        "the office line is (415) 555-0132",  # phone, area code
        "order 8812 4471 9930 shipped yesterday",  # order number
        "Sendungsnummer 003404341610940425 ist unterwegs",  # parcel
        "numer zamówienia 7730218846 nie dotarł",  # order, Polish
        "meeting ID 883 2219 4471 at 10:00",  # meeting
        "the flight left on 2024-11-03 at 07:45",  # date and time
        "total was 1,249,000.00 for the flat",  # amount
        "server at 10.120.33.201 is down",  # IP address
        "ISBN 978-1-4028-9462-6 is the hardback",  # book
        "lottery draw: 3 9 17 24 31 40",  # lottery
        "the epoch 1731024000 is a Friday",  # timestamp
        "ran 1111111111 iterations",  # one digit repeated
        "for n in range(250000000): acc += n",  # a round number in code
        "Mi nuevo móvil es 622 418 935, apúntalo",  # a mobile number, Spanish
        "我的新手机号是 139 2210 4471",  # a mobile number, Chinese
        "patch KB5021233 fixed the printer",  # a knowledge-base article
        "Der Umsatz lag bei 14.750.000 Euro",  # an amount in thousands groups
        "Nomor pesanan 558201946 belum sampai",  # an order, Indonesian
        "Αριθμός παραγγελίας 661230948 δεν ήρθε",  # an order, Greek
    ],
)
def test_public_numbers_are_not_ids(text: str) -> None:
    assert DigitIdDetector().find(text) == []
    _kept(text)


def test_phone_shapes_and_labels() -> None:
    assert phone_spans("ring +33 6 12 34 56 78 now") == ((6, 22),)
    assert phone_spans("id 046 454 286") == ()  # 9 digits from a trunk 0: not a phone
    assert public_label_before("the tracking number is ", 23)
    assert public_label_before("port ", 5)
    assert not public_label_before("the refuge at ", 14)


# 3. numbers spelled as words


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        (
            "card is four one one one one one one one one one one one one one one one",
            "four one one one one one one one one one one one one one one one",
        ),
        ("the alarm code is seven three one nine then enter", "seven three one nine"),
        ("mon code de porte: quatre deux neuf un", "quatre deux neuf un"),
        ("Handy-PIN ist zwei acht null sechs", "zwei acht null sechs"),
        (
            "account number nine one two, four four seven, three three eight, one",
            "nine one two, four four seven, three three eight, one",
        ),
    ],
)
def test_spelled_numbers_are_read_as_digits(text: str, secret: str) -> None:
    _gone(text, secret)


def test_spelled_spans_map_back_to_the_words() -> None:
    text = "pin oh nine twenty seven ok"
    spelled = spelled_digits(text)
    assert spelled is not None
    assert spelled.text == "pin 0927 ok"
    assert spelled.original(4, 8) == (4, 24)
    assert spelled.original(9, 11) == (25, 27)


@pytest.mark.parametrize(
    "text",
    ["one or two of the three kids came", "we need two, maybe three chairs", "nine to five"],
)
def test_prose_numbers_stay(text: str) -> None:
    _kept(text)


# 4. seed phrases in any BIP-39 list, accents folded, a few words off the list


def test_seed_phrase_with_accents_and_a_cue_after() -> None:
    phrase = "ábaco abeja ancla arroz atún avena azul brisa cable cacao dardo ébano"
    _gone(f"{phrase} — es la de mi billetera", phrase)
    assert fold("Ébano") == "ebano"


def test_seed_phrase_with_two_words_off_the_list() -> None:
    # twelve words: "cedar" and "spur" are not on the English list
    phrase = "orbit lemon cedar canyon ripple absorb velvet tiny spur guitar ocean rabbit"
    _gone(f"keep these twelve words for my wallet: {phrase}", phrase)


def test_a_shopping_list_is_no_seed_phrase() -> None:
    _kept("shopping list: milk bread coffee sugar lemon butter cheese salad onion garlic rice")


# 5. lists of codes of one random shape


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        ("Sicherungscodes: qwtz-pkrm, vbnf-xcds, hgjt-lmnp", ("qwtz-pkrm", "vbnf-xcds")),
        ("kody: 71046328 55812094 30917756", ("71046328", "55812094", "30917756")),
        ("rezerv: 4410 9921 / 7730 0185 / 2219 6604", ("4410 9921", "7730 0185")),
        ("kb7x2mqp | wrtzsdkl | p9c4hn2v ok", ("kb7x2mqp", "wrtzsdkl", "p9c4hn2v")),
    ],
)
def test_code_lists_are_recovery_material(text: str, codes: tuple[str, ...]) -> None:
    _gone(text, *codes)
    assert RECOVERY in {f.kind for f in detect_sensitive(text)}


def test_one_grouped_key_is_recovery_material() -> None:
    _gone("clé: QH7T-ZK2M-8WXP-R4NB-6FDC", "QH7T-ZK2M-8WXP-R4NB-6FDC")


@pytest.mark.parametrize(
    "text",
    [
        "password strength meter settings",  # words
        "packing list: item10 item11 item12 item13",  # an enumeration
        "years 2019, 2020, 2021 were slow",  # years
        "revert commits a9278eb, e817ba2 and 4c0fdaa",  # git hashes
        "uuid 123e4567-e89b-12d3-a456-426614174000 is the test tenant",
        "serial SN 48B1-77C2-0093, claim the warranty",  # a labelled serial
    ],
)
def test_not_code_lists(text: str) -> None:
    assert code_list_spans(text) == []


# 6. short codes in a message naming a lock, an alarm or a secret


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Kodi i alarmit te zyra: 4417, mos ia thuaj askujt", "4417"),
        ("cadenas du vélo 0-3-8-1", "0-3-8-1"),
        ("my locker at the pool opens with 2281", "2281"),
        ("MPIN ko 735190, huwag mong ipagsabi", "735190"),
        ("the safe at grandma's takes 51973#", "51973"),
        # a safe or a locker named in more languages
        ("Сейф на дачі відкривається кодом 40417, не забудь.", "40417"),
        ("Szafka w pracy: 7730, klucz zgubiłem.", "7730"),
        ("ロッカーの番号、2468 でお願い", "2468"),
    ],
)
def test_short_codes_in_a_lock_or_secret_message(text: str, secret: str) -> None:
    _gone(text, secret)


@pytest.mark.parametrize(
    "text",
    [
        "the door was fixed in 2019 for 450 euros",  # year, amount
        "alarm at 0630 tomorrow please",  # time
        "room 4412 has a broken lock",  # labelled
        "the gate opens at 0900 and shuts at 1730",  # times
        "the lock cost $1299",  # price
        "my locker number is 3310, it's not a secret",  # says public
        "call the alarm company on 0800 555 0199",  # phone
        "my lock screen shows 3312 unread emails",  # a count
    ],
)
def test_short_code_false_positives(text: str) -> None:
    assert ShortCodeDetector().find(text) == []


# 7. phone numbers stay unless the message asks to keep them private


def test_phone_numbers_are_kept() -> None:
    _kept("my new mobile number is +49 151 2345 6789, please update my profile")
    _kept("the clinic is on 020 7946 0321")
    _kept("we moved to 31 Willow Crescent last spring")  # an address said openly


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("mi número privado es 0612 998 771, no se lo des a nadie", "0612 998 771"),
        ("private cell 415-555-0147, not for the team sheet", "415-555-0147"),
        ("hemmelig e-post: ola.nordmann77@proton.example, ikke del den", "ola.nordmann77@"),
        ("mi dirección es Avenida Libertad 218, no se la des a nadie", "Avenida Libertad 218"),
        ("we moved to 31 Willow Crescent, keep it private please", "31 Willow Crescent"),
    ],
)
def test_private_contacts_are_redacted(text: str, secret: str) -> None:
    _gone(text, secret)
    assert PRIVATE_CONTACT in {f.kind for f in detect_sensitive(text)}


def test_secrecy_and_vocabulary() -> None:
    assert asks_secrecy("please don't tell anyone")
    assert asks_secrecy("μην το πεις")
    assert asks_secrecy("이건 절대 알려주지마")
    assert not asks_secrecy("a secretary came")
    vocab = Vocabulary("lock|alarm*|key box|暗証")
    assert vocab.found_in("Hälytys? no: the ALARMCODE is set")
    assert vocab.found_in("the key box is blue")
    assert vocab.found_in("暗証番号")
    assert not vocab.found_in("a blocked road")


# 8. the fail-closed layer leaves phone numbers and labelled numbers alone


@pytest.mark.parametrize(
    "text",
    [
        "Número do cliente: +351 912 345 678, ligar amanhã",
        "código de rastreio é LX551276389PT, onde está?",
        "注文番号 501-2231897-4410 の件です",
    ],
)
def test_fail_closed_layer_leaves_phones_and_labelled_numbers(text: str) -> None:
    assert detect_sensitive(text) == []
