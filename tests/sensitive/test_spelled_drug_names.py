"""A drug named in another script, spelled letter by letter as its Latin name, is read as
the drug: the health head reads few of those scripts, the vocabulary reads them all."""

from __future__ import annotations

import pytest

from adk_memory_kit.sensitive import detect_sensitive
from adk_memory_kit.sensitive.health_vocab import health_terms, transliterated_terms


@pytest.mark.parametrize(
    ("text", "word"),
    [
        # Tajik: "my mother has high blood pressure and takes enalapril every day, tell no one"
        (
            "Модарам фишори баланди хун дорад ва ҳар рӯз эналаприл менӯшад, вале ба касе нагӯед.",
            "эналаприл",
        ),
        # Tigrinya: "my mother has diabetes, she takes insulin; tell no one"
        ("ኣደይ ሕማም ሽኮር ኣለዋ፡ ኢንሱሊን ይወስዳ ኣለዋ። ንማንም ኣይትንገሩ።", "ኢንሱሊን"),
        ("Мій батько щодня приймає метформін після сніданку.", "метформін"),
    ],
)
def test_a_spelled_drug_name_is_a_health_finding(text: str, word: str) -> None:
    spans = transliterated_terms(text, drugs_only=True)
    assert [text[a:b] for a, b in spans] == [word]
    assert any(f.kind == "health" and text[f.start : f.end] == word for f in detect_sensitive(text))


def test_a_spelled_condition_stem_is_a_vocabulary_word() -> None:
    text = "У меня диабет второго типа"
    assert "диабет" in [text[a:b] for a, b in health_terms(text)]


@pytest.mark.parametrize(
    "text",
    [
        "Я купил новый велосипед и поехал на дачу.",  # no drug, no condition
        "Το αυτοκίνητο είναι στο γκαράζ του Νίκου.",
        "ኣብ ዕዳጋ ሓሙስ ቡን ገዚአ።",
    ],
)
def test_ordinary_words_of_other_scripts_are_no_health_words(text: str) -> None:
    assert transliterated_terms(text) == []
    assert not any(f.kind == "health" for f in detect_sensitive(text))


@pytest.mark.parametrize(
    ("text", "word"),
    [
        # Haitian Creole: the drug names as French writes them, with accents and endings
        ("Mo manman gen dengue, dòktè-a di pran paracétamol sèlman, pa ibuprofène", "ibuprofène"),
        ("Nu pot veni vineri, mi-au crescut doza de sertralină.", "sertralină"),
    ],
)
def test_a_drug_name_with_accents_or_another_ending_is_read(text: str, word: str) -> None:
    assert word in [text[a:b] for a, b in transliterated_terms(text, drugs_only=True)]
    assert any(f.kind == "health" for f in detect_sensitive(text))
