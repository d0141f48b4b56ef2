"""The router's home head: which home a sentence belongs in, in any language.

Real USE multilingual encoder and MiniLM; no database."""

from __future__ import annotations

import numpy as np
import pytest

from adk_memory_kit.embedders.multilingual import MultilingualEncoder
from adk_memory_kit.routing.home_head import HOMES, home_of, home_probabilities
from adk_memory_kit.routing.learned import Decision, LearnedRouter
from adk_memory_kit.routing.offline import LearnedExtractor
from adk_memory_kit.routing.rule import MemoryHome, route
from adk_memory_kit.sensitive.meaning_encoder import use_meaning_encoder

#: Written for this test (in no corpus or bank the head learned from), one per home and
#: language: a standing setting, facts, one-off work, a request to forget, thanks, a standing
#: order, a secret, and today's task.
FRESH = [
    ("Bana her zaman Türkçe cevap ver lütfen.", "user_state"),
    ("Mi chiamo Giulia ma tutti mi chiamano Giuli, chiamami così.", "user_state"),
    ("Ich arbeite seit 2015 als Krankenpfleger in Graz.", "long_term"),
    ("Mein Sohn heißt Jonas und geht in die dritte Klasse.", "long_term"),
    ("Kannst du mir schnell ausrechnen, was 3 Kilo Äpfel zu 2,40 kosten?", "session"),
    ("Lösche bitte alles, was ich dir über meinen Ex erzählt habe.", "forget"),
    ("Merci beaucoup, bonne soirée !", "none"),
    ("Envoie chaque lundi matin le planning à mon équipe, automatiquement.", "review"),
    ("Mijn pincode is 4821, onthoud die even.", "drop"),
    ("Vandaag alleen: zoek een restaurant in Utrecht voor vier personen.", "session"),
]


def test_each_sentence_gets_one_probability_per_home():
    probs = home_probabilities([text for text, _ in FRESH])
    assert probs is not None and probs.shape == (len(FRESH), len(HOMES))
    assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
    again = home_probabilities([FRESH[3][0], FRESH[0][0]])
    assert again is not None and np.allclose(again, probs[[3, 0]], atol=1e-5)


def test_sentences_no_head_learned_from_reach_their_homes_in_five_languages():
    probs = home_probabilities([text for text, _ in FRESH])
    assert probs is not None
    got = [HOMES[int(row.argmax())] for row in probs]
    hits = [want == g for (_, want), g in zip(FRESH, got, strict=True)]
    assert sum(hits) >= 9, list(zip(got, [text for text, _ in FRESH], strict=True))


def test_every_router_label_has_a_home():
    router = LearnedRouter()
    router.fit_sync()
    assert router.other_languages is not None
    for label in (*router.head.labels, *router.other_languages.head.labels):
        assert home_of(label) in HOMES


async def test_without_the_encoder_the_router_decides_alone():
    texts = [text for text, _ in FRESH] + ["I'd rather sit by the window.", "Thanks a lot!"]
    alone = LearnedRouter(read_homes=False)
    expected = await alone.classify(texts)
    router = LearnedRouter()
    with_head = await router.classify(texts)  # remembered, then forgotten at the switch
    assert with_head != expected
    use_meaning_encoder(None)
    try:
        assert home_probabilities(texts) is None
        assert await router.classify(texts) == expected
    finally:
        use_meaning_encoder(MultilingualEncoder)
    assert await router.classify(texts) == with_head


def test_a_router_with_examples_of_its_own_does_not_read_homes():
    from adk_memory_kit.routing.bank import load_bank

    assert LearnedRouter().read_homes
    assert not LearnedRouter(examples=load_bank()[:50]).read_homes


def test_a_runner_up_is_never_a_drop_or_a_forget():
    router = LearnedRouter()
    router.fit_sync()
    labels = router.head.labels
    row = np.full(len(labels), 0.01, dtype=np.float32)
    row[labels.index("drop")], row[labels.index("forget")] = 0.6, 0.3
    homes = np.zeros(len(HOMES), dtype=np.float32)
    homes[HOMES.index("drop")], homes[HOMES.index("forget")] = 0.7, 0.25
    homes[HOMES.index("long_term")] = 0.05
    picked = router._pick_in_home(row, homes)
    assert picked.label == "drop"
    assert picked.runner_up is not None and home_of(picked.runner_up) not in ("drop", "forget")
    plain = router._pick(row)
    assert plain.runner_up is not None and home_of(plain.runner_up) not in ("drop", "forget")


class _Says:
    """A router that answers one decision for every sentence."""

    def __init__(self, decision: Decision):
        self.decision = decision

    async def classify(self, texts):
        return [self.decision for _ in texts]


@pytest.mark.parametrize(
    ("decision", "homes"),
    [
        # an unsure "sensitive" guess no detector backs: the next most likely home
        (Decision("drop", 0.5, runner_up="long_term"), [MemoryHome.LONG_TERM]),
        # ... but never this session's note: what may be a secret is not kept for the
        # session (session state and the episodic log would hold it; stop 63)
        (Decision("drop", 0.5, runner_up="session_state"), []),
        # no runner-up: nothing is kept, as before
        (Decision("drop", 0.5), []),
        # a sure one is dropped
        (Decision("drop", 0.95, runner_up="long_term"), [MemoryHome.DROP]),
    ],
)
async def test_an_unsure_drop_no_detector_backs_takes_the_runner_up(decision, homes):
    extractor = LearnedExtractor(_Says(decision))  # type: ignore[arg-type]
    sentence = "My allotment is the third plot past the water tap."
    (routed,) = await extractor.route_sentences([(sentence, None)])
    assert [route(c) for c in routed.candidates] == homes


@pytest.mark.parametrize(
    ("decision", "homes"),
    [
        # a question that states nothing is kept only as this session's work, and only when
        # the router is sure of it
        (Decision("session_state", 0.8), [MemoryHome.SESSION_STATE]),
        (Decision("session_state", 0.3), []),
        (Decision("long_term", 0.9), []),
        (Decision("review", 0.9), []),
    ],
)
async def test_a_question_stating_nothing_is_only_ever_this_sessions_work(decision, homes):
    from adk_memory_kit.routing.offline import is_trivial

    question = "What does the word saudade mean?"
    assert is_trivial(question)
    extractor = LearnedExtractor(_Says(decision))  # type: ignore[arg-type]
    (routed,) = await extractor.route_sentences([(question, None)])
    assert [route(c) for c in routed.candidates] == homes
