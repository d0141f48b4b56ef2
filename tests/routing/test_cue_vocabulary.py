"""The router's cues said in other languages carry the English cue's meaning."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from adk_memory_kit.routing.cue_vocabulary import vocabulary_pattern
from adk_memory_kit.routing.cue_words import gives_standing_order, says_lasting
from adk_memory_kit.routing.cues import CUES_DIGEST, cue_vector
from adk_memory_kit.routing.learned import BANK, LearnedRouter
from adk_memory_kit.routing.offline import shared_learned_extractor
from adk_memory_kit.text.signals import content_stems, is_filler

QUESTION, SESSION, CHANGE, DELETION, ORDER, FIRST_PERSON, LASTING = 0, 1, 2, 3, 4, 5, 6


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("Dziś gramy wieczorem, przypomnij mi o 20:30.", SESSION),  # Polish "today"
        ("오늘 밤 11시까지 학회 초록 내야 돼.", SESSION),  # Korean, particle attached
        ("本日の会議資料を三点に要約していただけますか", SESSION),  # no spaces
        ("Bugün saat 3'te hatırlat.", SESSION),
        ("Ya no tengo coche, ahora voy en bici.", CHANGE),  # "now" marks a change, as in English
        ("Odpisuj mi zawsze po polsku.", LASTING),
        ("Zapomnij proszę o tym, co mówiłem o kredycie.", DELETION),
        ("선배 얘기 했던 거, 그거 지워 주세요.", DELETION),
        ("Verma ji wala kissa mita do beta.", DELETION),
        ("앞으로 식당 찾을 땐 항상 주차 되는 곳으로만 알려줘", LASTING),
        ("Boleto até R$ 900 pode pagar, sem me perguntar.", ORDER),
        ("Tafadhali unijibu kwa Kiswahili.", ORDER),
        ("मेरा आराम का वक़्त है", FIRST_PERSON),
        ("ما هي عاصمة منغوليا؟", QUESTION),
    ],
)
def test_other_languages_carry_the_english_cue(text: str, cue: int) -> None:
    assert cue_vector(text)[cue] == 1.0


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("A partir de ahora no me mandes recordatorios los domingos.", SESSION),
        ("Most of my trips begin at FRA.", SESSION),  # Hungarian "most" (now) is left out
        ("Ben said the Danes won.", SESSION),
        ("The main road is closed.", FIRST_PERSON),
    ],
)
def test_look_alikes_carry_no_cue(text: str, cue: int) -> None:
    assert cue_vector(text)[cue] == 0.0


def test_scripts_without_spaces_match_inside_words_and_spaced_ones_only_whole() -> None:
    pattern = vocabulary_pattern(["今日", "오늘", "hoje"])
    assert pattern.search("今日は") and pattern.search("오늘은") and pattern.search("hoje à noite")
    assert not pattern.search("hojeada") and not pattern.search("가오늘")


def test_words_of_any_script_count_as_words() -> None:
    # a sentence in Hangul or Devanagari states something: it is not filler
    assert not is_filler("고양이 한 마리 키워.")
    assert not is_filler("हमारे घर में एक तोता है")
    assert content_stems("você mora em Niterói") >= {"você", "niter"}


def test_the_shipped_head_was_trained_with_these_cues() -> None:
    meta = json.loads(
        resources.files("adk_memory_kit.routing").joinpath(BANK.meta).read_text("utf-8")
    )
    assert meta["cues_digest"] == CUES_DIGEST


async def test_a_hangul_fact_reaches_the_router() -> None:
    # before words of any script counted, a sentence with no ASCII word was filler: nothing
    routes = await shared_learned_extractor().route_sentences(
        [("고양이 한 마리 키워. 이름은 두부야.", None)]
    )
    assert routes[0].decision is not None


def test_a_changed_cue_vocabulary_refuses_the_shipped_head(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import adk_memory_kit.routing.learned as learned

    monkeypatch.setattr(learned, "CUES_DIGEST", "another vocabulary")
    assert learned._cached_head("all-MiniLM-L6-v2-onnx-int8", LearnedRouter().head_params) is None


@pytest.mark.parametrize(
    "text",
    [
        "Od teraz odpisuj mi krótko.",  # Polish "from now on"
        "Rechnungen bis 150 Euro dürfen Sie ohne Rückfrage begleichen.",  # "without asking"
        "앞으로 엄마한테서 온 문자는 네가 알아서 답장해 줘.",
        "Khách nhắn Zalo đặt bàn thì em xác nhận, không cần hỏi chị.",
    ],
)
def test_standing_orders_in_other_languages(text: str) -> None:
    assert gives_standing_order(text)


@pytest.mark.parametrize(
    "text",
    ["Każdą fakturę przekazuj Marzenie, zawsze.", "Ich gehe jeden Freitag schwimmen, immer um 7."],
)
def test_always_makes_a_statement_lasting(text: str) -> None:
    assert says_lasting(text)


def test_a_report_in_another_language_gives_no_standing_order() -> None:
    assert not gives_standing_order("Wczoraj w nocy był dzwon na trasie, kierowca cały.")
