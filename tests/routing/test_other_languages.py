"""Sentences in other languages (issue 44): the default router reads a sentence that is
confidently not English with a second router, on MiniLM joined with the multilingual encoder
and trained on the bank plus the other writers' first-read corpora; English stays with the
English router, whose decisions are unchanged.

Real parts: the shipped routers (real MiniLM, real USE multilingual, the shipped heads), the
offline extractor and the applier's checks. None of these sentences is a training row.
"""

from __future__ import annotations

import pytest

from adk_memory_kit.routing import MemoryApplier, MemoryHome
from adk_memory_kit.routing.bank import load_world_bank
from adk_memory_kit.routing.learned import WORLD, LearnedRouter, _cached_head
from adk_memory_kit.routing.offline import LearnedExtractor

H = MemoryHome

SAID = [
    ("Ich wohne seit März in Leipzig und arbeite bei einer Bank.", H.LONG_TERM),
    ("Antworte mir bitte ab jetzt immer auf Deutsch.", H.USER_STATE),
    ("Vergiss bitte, was ich dir über meine Ex erzählt habe.", H.FORGET),
    ("Mi contraseña del banco es Perro2024!", H.DROP),
    pytest.param(
        "Solo para esta conversación, llámame Capitán.",
        H.SESSION_STATE,
        marks=pytest.mark.xfail(
            strict=True,
            reason="the router says session, but the stated-name layer also writes the name "
            "to user: state: 'for this conversation' is not among its session words in Spanish",
        ),
    ),
    ("これから返事は日本語でお願いします。", H.USER_STATE),
    ("先週話した転職の件は忘れてください。", H.FORGET),
    ("Je suis végétarien depuis dix ans.", H.USER_STATE),  # a diet: user:pref_diet
    # a question for the moment is this session's work (the bank's definition since stop 62,
    # as the first-read corpora label "what's the swell like for Bondi this arvo?")
    ("Quelle heure est-il à Tokyo ?", H.SESSION_STATE),
    ("Merci, c'est parfait !", None),
]


@pytest.fixture(scope="module")
def extractor() -> LearnedExtractor:
    return LearnedExtractor()


def test_none_of_these_sentences_is_a_training_row():
    rows = {e.text for e in load_world_bank()}
    assert not rows & {p[0] if isinstance(p, tuple) else p.values[0] for p in SAID}


async def _homes(extractor: LearnedExtractor, text: str) -> set:
    routes = await extractor.route_sentences([(text, None)])
    applier = MemoryApplier()
    return {applier.classify(c)[1] for r in routes for c in r.candidates} - {None}


@pytest.mark.parametrize(("text", "home"), SAID)
async def test_a_sentence_in_another_language_reaches_its_home(extractor, text, home):
    homes = await _homes(extractor, text)
    assert homes == ({home} if home is not None else set()), (text, homes)


async def test_english_is_decided_by_the_english_router_alone(extractor):
    router = extractor.router
    assert router.other_languages is not None and router.other_languages.shipped is WORLD
    english = ["I moved to Leeds in March.", "Only kosher meals for me.", "Cool."]
    alone = LearnedRouter(router.embedder)  # the same English router, no second one
    assert alone.other_languages is None
    got = await router.classify(english)
    assert [d.label for d in got] == [d.label for d in await alone.classify(english)]
    assert not any(t in router.other_languages._cache for t in english)


async def test_a_mixed_turn_is_split_between_the_routers_and_kept_in_order(extractor):
    texts = ["I moved to Leeds in March.", "先週話した転職の件は忘れてください。", "Cool."]
    decisions = await extractor.router.classify(texts)
    assert [d.label for d in decisions][1] == "forget"
    assert texts[1] in extractor.router.other_languages._cache
    assert texts[0] in extractor.router._cache and texts[1] not in extractor.router._cache


def test_the_shipped_heads_for_other_languages_match_their_rows():
    """``write_embedding_cache()`` was run after the last change to the rows (else every
    process would train the second router at start-up)."""
    router = LearnedRouter().other_languages
    assert router is not None
    assert _cached_head(router.embedder.model_id, router.head_params, WORLD) is not None


# -- a preference the router names in another language, its value found without English cues

NAMED = [
    ("Zwracaj się do mnie po prostu Kasia, bez żadnej pani.", "preferred_name", "Kasia"),
    ("Mi chiamano tutti Beppe, chiamami così anche tu.", "preferred_name", "Beppe"),
    ("Bana Ayşe Abla de, herkes öyle diyor.", "preferred_name", "Ayşe Abla"),
    ("Trả lời tôi bằng tiếng Việt nhé, tôi không giỏi tiếng Anh.", "language", "Vietnamese"),
]


def test_none_of_the_named_sentences_is_a_training_row():
    assert not {e.text for e in load_world_bank()} & {text for text, _, _ in NAMED}


@pytest.mark.parametrize(("text", "name", "value"), NAMED)
async def test_a_preference_named_in_another_language_keeps_its_value(extractor, text, name, value):
    (routed,) = await extractor.route_sentences([(text, None)])
    assert [(c.key, c.value) for c in routed.candidates if c.exact_value] == [(name, value)]


def test_the_fallbacks_read_no_value_in_english_or_in_a_short_text():
    from adk_memory_kit.routing.value_finders import MEANING_FALLBACKS

    name, language = MEANING_FALLBACKS["preferred_name"], MEANING_FALLBACKS["language"]
    assert name("My middle name is Ann") is None  # a fact, not what to call the user
    assert name("My manager is also called Hannah") is None
    assert name("나한테는 그냥 이모라고 불러") is None  # no capitals, no quotes: no guess
    assert name("Säg mer eifach Rüedu, nid Herr Zbinden, mir sy ja nid ufem Amt") == "Rüedu"
    assert name("Bundan sonra bana hep 'Mehmet Bey' diye hitap et lütfen") == "Mehmet Bey"
    assert language("Reply in whatever language you like") is None
    assert language("Svenska") is None
    assert language("Відповідай тільки так, навіть якщо я щось напишу інакше") == "Ukrainian"


async def test_an_app_finder_is_never_second_guessed():
    from adk_memory_kit.routing.value_finders import MEANING_FALLBACKS

    own = LearnedExtractor(finders={"preferred_name": lambda _text: None})
    assert own.finders["preferred_name"] is not MEANING_FALLBACKS["preferred_name"]
    (routed,) = await own.route_sentences([(NAMED[0][0], None)])
    assert not [c for c in routed.candidates if c.exact_value]
