"""A dropped sentence that also asks for this session's work keeps that work as a session
note, and the note never holds the sensitive part."""

from __future__ import annotations

from adk_memory_kit.routing import MemoryApplier, MemoryHome, detect_sensitive
from adk_memory_kit.routing.offline import shared_learned_extractor


async def _candidates(sentence: str):
    routes = await shared_learned_extractor().route_sentences([(sentence, None)])
    return [c for r in routes for c in r.candidates]


async def test_the_task_beside_a_health_detail_is_kept_for_the_session() -> None:
    sentence = (
        "Estoy tomando antidepresivos desde enero; ayúdame a escribir un correo para cambiar "
        "la cita del viernes."
    )
    found = await _candidates(sentence)
    homes = [MemoryApplier(review_queue=None).classify(c)[1] for c in found]
    assert MemoryHome.DROP in homes
    notes = [c for c, h in zip(found, homes, strict=True) if h is MemoryHome.SESSION_STATE]
    assert len(notes) == 1
    assert "correo" in notes[0].text
    assert "antidepresivos" not in notes[0].text
    assert not detect_sensitive(notes[0].text)
    assert MemoryHome.LONG_TERM not in homes and MemoryHome.USER_STATE not in homes


async def test_the_task_beside_an_id_number_leaves_the_number_out() -> None:
    found = await _candidates(
        "My passport number is K4418273, fill it into the visa form for this trip."
    )
    notes = [c for c in found if c.needed_later_this_session]
    assert [n.text for n in notes] == ["fill it into the visa form for this trip."]
    assert any(c.sensitive for c in found)


async def test_a_part_with_a_digit_is_never_kept_beside_a_secret() -> None:
    # "at 6 today" is this session's work, but a number beside a secret may be part of it
    found = await _candidates("The door code is 7719, pass it to the plumber at 6 today.")
    assert all(c.sensitive for c in found)
