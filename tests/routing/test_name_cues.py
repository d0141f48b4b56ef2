"""The name a user asks to be called, at a naming cue of any kept language."""

from __future__ import annotations

import pytest

from adk_memory_kit.routing.name_cues import name_after_cue
from adk_memory_kit.routing.stated_preferences import stated_preference


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Me chama de Tati, por favor, nada de senhora.", "Tati"),
        ("Mówcie do mnie Gosia, nie pani Małgorzata.", "Gosia"),
        ("Называйте меня Лёша, без отчества.", "Лёша"),
        ("Gọi tôi là chị Lan nhé", "Lan"),
        ("Panggil saya Budi saja.", "Budi"),
        ("以后就叫我阿明吧", "阿明"),
        ("「ユキ」と呼んでください", "ユキ"),
        ("Ngibizeni ngokuthi Thandi.", "Thandi"),
        ("Zeg maar Joost hoor.", "Joost"),
        ("Kutsu minua Tepoksi jatkossa.", "Tepoksi"),
    ],
)
def test_the_name_at_a_naming_cue(text: str, name: str) -> None:
    assert name_after_cue(text) == name


@pytest.mark.parametrize(
    "text",
    [
        "Call me back after lunch.",
        "Don't call me sir.",
        "I moved to Porto last year.",
    ],
)
def test_no_name_without_one(text: str) -> None:
    assert name_after_cue(text) is None


def test_a_cue_that_also_means_something_else_is_not_read_as_a_plain_statement() -> None:
    # "叫我出门": tell me to leave, at ten to seven
    sentence = "六点五十叫我出门"
    assert stated_preference(sentence) is None
    assert name_after_cue(sentence, plain=True) is None


def test_a_plain_naming_cue_states_the_preference() -> None:
    assert stated_preference("Mówcie do mnie Gosia, nie pani Małgorzata.") == (
        "preferred_name",
        "Gosia",
    )
