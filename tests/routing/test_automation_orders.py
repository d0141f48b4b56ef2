"""Something the agent is to do on its own, said in any kept language, is a standing order a
person reviews; a fact about the user's own automatic things stays a fact."""

from __future__ import annotations

import pytest

from adk_memory_kit.routing import MemoryApplier, MemoryHome
from adk_memory_kit.routing.offline import shared_learned_extractor


async def _homes(sentence: str) -> list[MemoryHome]:
    routes = await shared_learned_extractor().route_sentences([(sentence, None)])
    applier = MemoryApplier(review_queue=None)
    return [applier.classify(c)[1] for r in routes for c in r.candidates]


@pytest.mark.parametrize(
    "sentence",
    [
        "Jeden Freitag die Rechnungen automatisch an Jonas weiterleiten.",
        "Inoltra automaticamente a Carla ogni email della banca.",
        "毎朝7時に天気予報を自動で送って",
        "Wysyłaj automatycznie raport do szefa w każdy piątek.",
    ],
)
async def test_an_automation_order_goes_to_review(sentence: str) -> None:
    assert await _homes(sentence) == [MemoryHome.PROCEDURAL_REVIEW]


async def test_the_users_own_automatic_thing_is_a_fact() -> None:
    assert MemoryHome.PROCEDURAL_REVIEW not in await _homes(
        "My heating comes on automatically at six."
    )


async def test_a_question_about_automation_is_no_order() -> None:
    assert MemoryHome.PROCEDURAL_REVIEW not in await _homes("Can you sort my emails automatically?")
