"""A clause that opens with a deletion verb of another kept language is a request to forget."""

from __future__ import annotations

import pytest

from adk_memory_kit.routing import MemoryApplier, MemoryHome
from adk_memory_kit.routing.cue_words import tells_to_forget
from adk_memory_kit.routing.offline import shared_learned_extractor


@pytest.mark.parametrize(
    "sentence",
    [
        "Gleymdu símanúmerinu hjá tannlækninum mínum.",
        "תשכח את הכתובת הישנה שלי",
        "Pakilimutan mo na yung pangalan ng dati kong amo.",
        "Olvida lo del gimnasio, ya no voy.",
        "Vergiss das mit dem Zahnarzt, bitte.",
    ],
)
async def test_a_deletion_verb_opening_a_clause_is_a_forget_request(sentence: str) -> None:
    assert tells_to_forget(sentence)
    routes = await shared_learned_extractor().route_sentences([(sentence, None)])
    homes = [MemoryApplier(review_queue=None).classify(c)[1] for r in routes for c in r.candidates]
    assert homes == [MemoryHome.FORGET]


@pytest.mark.parametrize(
    "sentence",
    [
        "¿Olvidaste algo en el coche?",  # a question
        "Ah wis a welder in the Govan yards fur forty year.",  # Scots "was", not Dutch "wis"
        "My sister never forgets a birthday.",  # English is read by the router's own rules
    ],
)
def test_no_request_without_one(sentence: str) -> None:
    assert not tells_to_forget(sentence)
