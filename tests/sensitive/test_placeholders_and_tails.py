"""Values that stand for a secret are not secrets, wherever a detector found them; a card
pasted with its expiry and code on one line is a card; the id, account and card words of
more languages are cues; a password keyword alone on its line lends its label only to the
next line's first word."""

from __future__ import annotations

import pytest

from adk_memory_kit.sensitive import detect_sensitive
from adk_memory_kit.sensitive.public import placeholder_value
from tests.support.redaction import assert_gone


@pytest.mark.parametrize(
    "value",
    [
        "${DB_PASSWORD}",
        "{{ vault_token }}",
        "<your-api-key>",
        "%(password)s",
        '"$REDIS_PW"',
        "var.sql_admin_password",
        "data.aws_secretsmanager_secret_version.fs.secret_string",
        "secrets.GITHUB_TOKEN",
        "your_token_here",
        "sk-your-key-here",
        'dbutils.secrets.get(scope="prod-kv", key="looker-client-secret")',
        'os.getenv("DB_PASSWORD")',
        "changeme",
        "xxxxxxxxxxxxxxxx",
        "********",
    ],
)
def test_a_value_that_stands_for_a_secret_is_a_placeholder(value: str) -> None:
    assert placeholder_value(value)


@pytest.mark.parametrize(
    "value",
    [
        "Hunter22!",
        "$ecretPass9",
        "Summer(2024)!",
        "Tr(ub4dor&3",
        "oaid8xr6r8gsus8vbyvuxpfbp5o916hb",
        "4111111111111111",
        # the vendors' documented sample keys stay findings, as test cards do: a user trying
        # the gate types them, and a gate that lets them through looks broken
        "AKIAIOSFODNN7EXAMPLE",
    ],
)
def test_a_real_looking_value_is_not_a_placeholder(value: str) -> None:
    assert not placeholder_value(value)


@pytest.mark.parametrize(
    "text",
    [
        "# .env.example\nAWS_REGION=eu-west-1\nWANDB_API_KEY=xxxxxxxxxxxxxxxxxxxx",
        'resource "aws_db_instance" "db" {\n  username = "fs_admin"\n'
        "  password = data.aws_secretsmanager_secret_version.fs.secret_string\n}",
        'kubectl create secret generic redis-auth --from-literal=password="$REDIS_PW"',
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        key: password",
        "redis:\n  existingSecretPasswordKey: password\n# created with: kubectl create secret",
    ],
)
def test_placeholders_and_references_are_not_flagged(text: str) -> None:
    assert detect_sensitive(text) == [], detect_sensitive(text)


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        ("5167983321004470 0526 657\nc pour Jumia, vite", ("5167983321004470", "657")),
        ("pay with 4111 1111 1111 1111 1225 123 please", ("4111 1111 1111 1111", "123")),
        ("4111111111111111 052026", ("4111111111111111",)),
    ],
)
def test_a_card_pasted_with_its_expiry_and_code_is_found(
    text: str, secrets: tuple[str, ...]
) -> None:
    assert_gone(text, *secrets)


def test_a_run_whose_tail_is_no_expiry_is_not_read_as_a_card() -> None:
    # 13 is no month: the groups after the span are not an expiry, the run is one number
    assert not any(
        f.kind == "payment_card" for f in detect_sensitive("4111 1111 1111 1111 1326 657")
    )


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("الرقم المدني 09384715، وتاريخ الانتهاء 2027/03/10، سجّلني في الموعد", "09384715"),
        ("မှတ်ပုံတင်နံပါတ် ၁၂/ဥကမ(နိုင်)၀၄၅၆၇၈ ပါ။ ဖောင်မှာ ဖြည့်ပေးပါ။", "၀၄၅၆၇၈"),
        ("Ο ΑΜΚΑ μου είναι 12035401234, κρατήστε τον για τα ραντεβού.", "12035401234"),
        (
            "A chave da API M-Pesa que a Vodacom mandou: oaid8xr6r8gsus8vbyvuxpfbp5o916hb",
            "oaid8xr6r8gsus8vbyvuxpfbp5o916hb",
        ),
        ("A bankszámlaszám: 11773016-11111018-00000000, oda utald légyszi.", "11773016"),
        ("Číslo účtu je 19-2000145399/0800, pošli to tam.", "2000145399"),
    ],
)
def test_id_account_and_key_words_of_more_languages_are_cues(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Password\nHunter22!", "Hunter22!"),
        (
            '    - name: TWILIO_AUTH_TOKEN\n      value: "41e17b65e6ae5e9696eade5d9cb692f4"',
            "41e17b65e6ae5e9696eade5d9cb692f4",
        ),
        ("wifi password\n  Tr0ub4dor&3", "Tr0ub4dor&3"),
    ],
)
def test_a_keyword_alone_on_its_line_labels_the_next_lines_value(text: str, value: str) -> None:
    assert_gone(text, value)


@pytest.mark.parametrize(
    ("text", "secrets"),
    [
        (
            "purge it from history:\n```\nvendor_id,bank_name,routing_number,account_number\n"
            "V-0193,First Harbor CU,321174602,00482913377\n"
            "V-0207,Lakeside Savings,071903385,7719002846\n```",
            ("00482913377", "7719002846", "321174602"),
        ),
        (
            "| user | password | notes |\n|---|---|---|\n| admin | Tr0ub4dor&3 | prod |\n"
            "| ops | N0tS3cret! | staging |",
            ("Tr0ub4dor&3", "N0tS3cret!"),
        ),
        ("user\tpassword\nbob\tchangeme\nann\tS3cure#pw", ("S3cure#pw",)),
    ],
)
def test_values_under_a_column_whose_header_names_a_secret_are_found(
    text: str, secrets: tuple[str, ...]
) -> None:
    assert any(f.detector == "table_column" for f in detect_sensitive(text))
    assert_gone(text, *secrets)


@pytest.mark.parametrize(
    "text",
    [
        "name,api_key_name,key_length\nprod,stripe-main,32",  # properties of a key, not keys
        "I have a key, a token, and a password\nMon 9am, Tue 10am, Wed 3pm",  # prose, not a table
        "user,password\nbob,<your-password>",  # a placeholder in the column
    ],
)
def test_tables_without_a_secret_column_value_are_left(text: str) -> None:
    assert not any(f.detector == "table_column" for f in detect_sensitive(text))


def test_a_list_of_random_codes_keeps_a_member_that_reads_as_letters() -> None:
    text = "saved the recovery codes here:\ny1wt-wekw\nh9jk-zlwp\nkjq7-jfwn\nu1ca-uh6i\nengi-lxix"
    assert_gone(text, "y1wt-wekw", "u1ca-uh6i", "engi-lxix")


@pytest.mark.parametrize(
    "text",
    [
        "Vuelo CU 0131 Habana–Madrid sale el 14/06 a las 23:55, acuérdate de llevar el pasaporte",
        "ເລກພັດສະດຸ LA204857312TH ມາຮອດໄປສະນີແລ້ວ ໄປເອົາໄດ້",  # a parcel's S10 tracking id
    ],
)
def test_flight_numbers_short_dates_and_tracking_ids_are_public(text: str) -> None:
    assert detect_sensitive(text) == [], detect_sensitive(text)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Laptop bilong ofis: yusanem jkaupa, paswot Kokomo!2024. No ken givim", "Kokomo!2024"),
        ("Kóðinn að hliðinu er 7316 og lyklaboxið er 0904. Hundurinn bítur ekki.", "7316"),
    ],
)
def test_the_password_and_code_words_of_more_languages_are_read(text: str, secret: str) -> None:
    assert_gone(text, secret)


def test_a_flight_number_beside_a_door_word_is_no_code() -> None:
    # "porte" (a gate, a door) names a lock; "ET 3851" is the flight
    text = "Vol ET 3851 Djibouti–Addis décolle à 06h40, porte 2, bagage max 23 kg"
    assert detect_sensitive(text) == [], detect_sensitive(text)
