"""The gate's two meaning heads (stop 57): a message that gives a secret, and a sentence about
someone's health, read in any language the multilingual encoder reads.

The sentences here are the kit's own, written for these tests; the heads learned from the
first-read corpora of other writers (``benchmarks/secret_head_train.py``,
``benchmarks/health_head_train.py``), none of which holds them.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from adk_memory_kit.embedders.multilingual import MultilingualEncoder
from adk_memory_kit.sensitive import HEALTH, detect_sensitive, redact_for_store, sensitivity_scope
from adk_memory_kit.sensitive.meaning_encoder import use_meaning_encoder
from adk_memory_kit.sensitive.public import example_value
from adk_memory_kit.sensitive.secret_meaning import judge, value_spans, windows
from adk_memory_kit.sensitive.secret_model import WINDOW, secret_probabilities
from tests.support.redaction import assert_gone, assert_kept


@pytest.fixture
def heads_off() -> Iterator[None]:
    use_meaning_encoder(None)
    try:
        yield
    finally:
        use_meaning_encoder(MultilingualEncoder)


def _health(text: str) -> bool:
    return HEALTH in {f.kind for f in detect_sensitive(text)}


# the secret head: values given as secrets without a cue word the layers know


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("A porta da garagem abre com 7731, não conta pra ninguém", "7731"),
        (
            "Ο κωδικός για το ντουλάπι του γυμναστηρίου είναι 4490, μην τον δώσεις σε κανέναν",
            "4490",
        ),
    ],
)
def test_a_code_given_in_another_language_is_redacted(text: str, secret: str) -> None:
    assert_gone(text, secret)


def test_a_seed_phrase_with_no_cue_the_layers_know_is_redacted() -> None:
    words = "orbit velvet kitten solar juice cabin thunder glance pumpkin dizzy eagle vivid"
    assert_gone(f"my wallet words are {words}, keep them safe", words)


@pytest.mark.parametrize(
    "text",
    [
        "tracking ya parcel ni 4419 2230 1187 inakuja kesho asubuhi, usijali sana",
        "For the invoice use our company registration number 08412237 and the VAT number "
        "193 4412 08, both are on the website",
        "Form template: account number 0000 0000 0000, replace it with yours",
    ],
)
def test_public_numbers_and_examples_are_kept(text: str) -> None:
    assert_kept(text)


def test_the_iban_registrys_examples_are_redacted_like_any_account() -> None:
    # people give them as their own accounts as often as they quote them as examples
    assert_gone("please send the deposit to my account DE89 3704 0044 0532 0130 00, thanks",
                "DE89 3704 0044 0532 0130 00")  # fmt: skip
    assert_gone("Maaşı bu hesaba köçürün: AZ21 NABZ 0000 0000 1370 1000 1944",
                "AZ21 NABZ 0000 0000 1370 1000 1944")  # fmt: skip


def test_a_strong_cue_keeps_its_value_whatever_the_head_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the head learned from writers told to avoid the word "password"; its veto reaches only
    # the layers with neither a format nor a strong cue
    from adk_memory_kit.sensitive import secret_meaning

    weak = "our club bank is 55120873 as printed on the flyer for the bake sale"
    assert any(f.detector == "weak_cue_value" for f in _unjudged(weak))  # the layer finds it
    monkeypatch.setattr(secret_meaning, "secret_probabilities", lambda texts: [0.0] * len(texts))
    strong = "The password to the office wifi is tr0ub4dor, ask me if it fails"
    assert_gone(strong, "tr0ub4dor")
    assert_kept(weak)


def _unjudged(text: str):  # type: ignore[no-untyped-def]
    use_meaning_encoder(None)
    try:
        return detect_sensitive(text)
    finally:
        use_meaning_encoder(MultilingualEncoder)


def test_amounts_dates_times_and_phone_numbers_are_not_added() -> None:
    text = (
        "my locker code is 64cf05, the gym closes at 22:30 on 2025-03-14, fee 45.00, "
        "call 0612 345 678"
    )
    once = redact_for_store(text)
    assert "64cf05" not in once
    for kept in ("22:30", "2025-03-14", "45.00", "0612 345 678"):
        assert kept in once, once


def test_without_the_encoder_the_layers_decide_alone(heads_off: None) -> None:
    text = "A porta da garagem abre com 7731, não conta pra ninguém"
    assert secret_probabilities([text]) is None
    findings = set(detect_sensitive(text))
    assert judge(text, findings) == findings  # nothing dropped, nothing added
    # a placeholder is kept as found (fail closed): only the head may call it an example
    assert_gone("Form template: account number 0000 0000 0000, replace it with yours",
                "0000 0000 0000")  # fmt: skip


def test_the_heads_read_windows_of_long_texts() -> None:
    line = "INFO worker ok\n"
    text = line * 60 + "ssh pass for the box is 'Kv8#pLm2Qz' keep it\n" + line * 60
    cut = windows(text)
    assert all(b - a <= WINDOW for a, b in cut) and cut[0][0] == 0 and cut[-1][1] == len(text)
    assert all(x[1] == y[0] for x, y in zip(cut, cut[1:], strict=False))
    assert_gone(text, "Kv8#pLm2Qz")


def test_value_spans_take_values_not_words() -> None:
    text = "code 4471#, room B12, ref AB-1234-XY, ma3e 7ottou and the word hello"
    found = [text[a:b] for a, b in value_spans(text)]
    assert found == ["4471#", "AB-1234-XY"]  # Arabizi words write letters with one digit


@pytest.mark.parametrize(
    ("value", "example"),
    [
        ("4111 1111 1111 1111", False),  # a test card is a card: what users type to try
        ("0000 0000 0000 0000", True),
        ("PT50 0000 0000 0000 0000 0000 0", True),
        ("FR76 XXXX XXXX XXXX XXXX", True),
        ("A000000000X", True),
        ("4960 5744 4743 4345", False),
        ("20-45-77", False),
    ],
)
def test_example_values_by_their_form(value: str, example: bool) -> None:
    assert example_value(value) is example


# the health head


@pytest.mark.parametrize(
    "text",
    [
        "Mi hermana tiene cáncer de mama y empieza la quimio el lunes",
        "Babu yangu ana kisukari, anachoma sindano ya insulini kila asubuhi",
        "Meine Mutter nimmt seit Jahren Blutdrucktabletten",
        "Ich habe seit März eine Depression und nehme Sertralin",
    ],
)
def test_health_in_other_languages_is_health(text: str) -> None:
    assert _health(text)


@pytest.mark.parametrize(
    "text",
    [
        "Keine Allergien, kein Diabetes, alles in Ordnung beim Check-up",
        "My cousin works as a nurse in the oncology ward",
        "The radio doctor said everyone should get a flu shot this winter",
        "I went hiking with my sister last weekend.",
        "Our team lost because two players were injured last season",
    ],
)
def test_negation_jobs_advice_and_life_are_not_health(text: str) -> None:
    assert not _health(text)


def test_balanced_asks_the_head_for_more() -> None:
    text = "Mi hermana tiene cáncer de mama y empieza la quimio el lunes"
    with sensitivity_scope("balanced"):
        assert _health(text)


# company numbers and negation


@pytest.mark.parametrize(
    "text",
    [
        "Zagrebački holding d.o.o., matični broj 080042653, stoji na svakom računu",
        "Rechnung an Bauer Messtechnik GmbH, Registernummer 4438120091, bitte bis Freitag",
        "UAB „Saulės kampas“, įmonės kodas 305612847, sąskaitoje viskas teisinga",
    ],
)
def test_a_number_beside_a_companys_legal_form_is_the_companys(text: str) -> None:
    from adk_memory_kit.sensitive.legal_entities import names_a_company

    assert names_a_company(text)
    assert_kept(text)


def test_a_company_form_does_not_hide_a_card_or_a_strong_cue() -> None:
    assert_gone("Pay the fuel with the Trans-Pol sp. z o.o. card 5168 4410 2295 7036, PIN 4471",
                "5168 4410 2295 7036", "4471")  # fmt: skip


def test_short_words_that_are_also_company_forms_are_not_read_as_one() -> None:
    from adk_memory_kit.sensitive.legal_entities import names_a_company

    assert not names_a_company("manda pra minha conta: Itaú ag 3456 cc 12345-6")
    assert not names_a_company("ilagay mo sa account ko sa BPI")


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("У меня нет аллергии ни на что", "аллергии"),
        ("Doktor dedi ki şeker hastalığım yok", "şeker"),
        ("糖尿病はないと言われた", "糖尿病"),
        ("kein Diabetes, alles gut", "Diabetes"),
    ],
)
def test_negation_is_read_before_or_after_the_word(text: str, word: str) -> None:
    from adk_memory_kit.sensitive.negation import negated

    start = text.index(word)
    assert negated(text, start, start + len(word))


def test_a_health_word_without_negation_is_not_negated() -> None:
    from adk_memory_kit.sensitive.negation import negated

    text = "Mama ana kisukari tangu mwaka jana"
    start = text.index("kisukari")
    assert not negated(text, start, start + len("kisukari"))


def test_the_old_health_embedder_hook_still_imports_and_warns() -> None:
    from adk_memory_kit.sensitive import health_model

    with pytest.warns(DeprecationWarning):
        health_model.use_health_embedder(None)  # turns the heads off, as it did the MiniLM one
    try:
        assert health_model.health_probabilities(["my mother has diabetes"]) is None
    finally:
        use_meaning_encoder(MultilingualEncoder)
    assert health_model.health_probabilities(["my mother has diabetes"]) is not None
    with pytest.warns(DeprecationWarning):
        assert health_model.HEAD_THRESHOLD_STRICT == health_model.thresholds()[0]
