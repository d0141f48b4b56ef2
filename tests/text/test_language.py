"""Which sentences the router reads as another language (py3langid, real model)."""

from __future__ import annotations

import pytest

from adk_memory_kit.text.language import english_probability, reads_as_other_language


@pytest.mark.parametrize(
    "text",
    [
        "Only kosher meals for me.",  # short English the identifier is unsure of
        "Home airport: YYZ.",
        "I go by Raj.",
        "Can lah, just send me the list tomorrow morning.",  # Singlish
        "Mera naam Priya hai but call me Pri, sab yahi bolte hain.",  # Hinglish in Latin letters
        "",
    ],
)
def test_english_and_english_mixed_with_another_language_stay_with_the_english_reader(text):
    assert not reads_as_other_language(text)


@pytest.mark.parametrize(
    "text",
    [
        "これからは返事を箇条書きでお願いします。",
        "Zeiten bitte immer im 24-Stunden-Format.",
        "Me mudé a Valparaíso el mes pasado, ahora trabajo en el puerto.",
        "ตอบสั้นๆนะคะ ไม่ต้องยาว",
        "Hatimaye nimehamia Dodoma, kazi mpya ililazimisha.",
    ],
)
def test_a_sentence_plainly_in_another_language_goes_to_the_other_reader(text):
    assert reads_as_other_language(text)
    assert 0.0 <= english_probability(text) < 0.001
