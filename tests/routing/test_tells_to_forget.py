"""A clause that opens with a deletion verb of another kept language is a request to forget, and
so is one that ends with a request to forget in a language whose verb ends the clause."""

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
        "Izbriši ono što sam ti rekao o susjedu Marku.",  # Bosnian / Croatian / Serbian
        "Harroje adresën time të vjetër.",  # Albanian
        "Aizmirsti manu veco tālruņa numuru.",  # Latvian
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
        "मेरो पुरानो ठेगाना बिर्सिदिनुहोस्।",  # Nepali
        "पुराना फ़ोन नंबर भूल जाइए।",  # Hindi
        "Eski iş yerimi unutun lütfen.",  # Turkish
        "제 예전 주소는 잊어주세요",  # Korean
    ],
)
def test_a_request_to_forget_ending_a_verb_final_clause_is_one(sentence: str) -> None:
    assert tells_to_forget(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "¿Olvidaste algo en el coche?",  # a question
        "मैं अक्सर चाबी भूल जाता हूँ।",  # Hindi "I often forget my keys": no request
        "Şifremi yine unuttum.",  # Turkish "I forgot my password again"
        "비밀번호를 또 잊어버렸어요",  # Korean, the same
        "Ah wis a welder in the Govan yards fur forty year.",  # Scots "was", not Dutch "wis"
        "My sister never forgets a birthday.",  # English is read by the router's own rules
    ],
)
def test_no_request_without_one(sentence: str) -> None:
    assert not tells_to_forget(sentence)
