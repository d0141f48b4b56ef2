"""Left-out sentences as index-only keys: select_events hands them on, never as stored text."""

from __future__ import annotations

from google.adk.events.event import Event
from google.adk.sessions.session import Session
from google.genai import types

from adk_memory_kit.core.index_keys import (
    CONTEXT_ONLY_KEY,
    INDEX_TEXT_KEY,
    LEFT_OUT_KEY,
    index_text,
    is_context_only,
    left_out_text,
)
from adk_memory_kit.core.session_policy import WritePolicy
from adk_memory_kit.memory.config import IndexingOptions
from adk_memory_kit.memory.documents import documents_from_events
from adk_memory_kit.routing.write_policy import select_events

# two people talking (LoCoMo-style authors: names, not "user"), and a user talking to an agent
DIALOGUE = [
    ("Priya", "Wow, that's great! How did the marathon go?"),
    ("Tomas", "Fine, I finished in Lisbon last Sunday after four hours."),
    ("Priya", "Any plans for the winter holidays?"),
    ("Tomas", "We are renting a cabin near Tromso in December."),
]
WITH_SECRET = [
    ("user", "My card is 4111 1111 1111 1111. Did the refund for order QX-88 arrive?"),
    ("agent", "Yes, the refund of 42 euros for order QX-88 arrived on Friday."),
    ("user", "Forget my home address please."),
    ("agent", "Which of the two blue jackets did you keep?"),
    ("user", "The navy one with the hood."),
]


def events_of(turns: list[tuple[str, str]], meta: dict | None = None) -> list[Event]:
    return [
        Event(
            id=f"e{n}",
            invocation_id=f"i{n}",
            author=author,
            timestamp=1_700_000_000 + 60 * n,
            custom_metadata=meta,
            content=types.Content(
                role="user" if author == "user" else "model", parts=[types.Part(text=said)]
            ),
        )
        for n, (author, said) in enumerate(turns)
    ]


async def selected(turns, meta=None, **kw) -> list[Event]:
    events = events_of(turns, meta)
    session = Session(id="s1", app_name="a", user_id="u", events=events)
    return await select_events(session, events, WritePolicy.ROUTED, **kw)


def text_of(event: Event) -> str:
    return event.content.parts[0].text


async def test_stored_text_is_the_same_with_and_without_index_context():
    plain = await selected(DIALOGUE)
    keyed = await selected(DIALOGUE, index_context=True)
    stored = [text_of(e) for e in keyed if not is_context_only(e)]
    assert stored == [text_of(e) for e in plain]
    assert all(not is_context_only(e) and not left_out_text(e) for e in plain)


async def test_a_turn_of_only_a_question_becomes_context_and_its_answer_keeps_it():
    keyed = await selected(DIALOGUE, index_context=True)
    by_id = {e.id: e for e in keyed}
    assert is_context_only(by_id["e0"]) and is_context_only(by_id["e2"])
    assert "How did the marathon go?" in left_out_text(by_id["e0"])
    assert not is_context_only(by_id["e1"]) and not left_out_text(by_id["e1"])
    docs = documents_from_events("a", "u", "s1", keyed, IndexingOptions())
    assert [d.event_id for d in docs] == ["e1", "e3"]  # context-only turns make no row
    answer = docs[0]
    assert "marathon go" in answer.context_text  # the question is an index key
    assert "marathon" not in answer.text and "marathon" not in answer.search_text
    assert "marathon" not in answer.embed_text  # embed_left_out is off by default
    assert "winter holidays" in docs[1].context_text


async def test_index_left_out_off_indexes_as_before():
    plain = await selected(DIALOGUE)
    keyed = await selected(DIALOGUE, index_context=True)
    off = IndexingOptions(index_left_out=False)
    before = documents_from_events("a", "u", "s1", plain, off)
    after = documents_from_events("a", "u", "s1", keyed, off)
    assert [(d.id, d.text, d.context_text, d.embed_text) for d in after] == [
        (d.id, d.text, d.context_text, d.embed_text) for d in before
    ]
    assert before and all("marathon" not in d.context_text for d in before)


async def test_a_rewritten_turn_keeps_its_own_left_out_sentences_as_context():
    turns = [
        ("Priya", "Oh nice! I adopted a grey kitten called Miso. Did you ever have pets?"),
        ("Tomas", "A parrot, years ago."),
    ]
    keyed = await selected(turns, index_context=True)
    first = keyed[0]
    assert text_of(first) == "I adopted a grey kitten called Miso."
    assert index_text(first).startswith("Oh nice! I adopted")
    in_context = IndexingOptions(left_out_in_turn=False)
    docs = documents_from_events("a", "u", "s1", keyed, in_context)
    assert "ever have pets" in docs[0].context_text
    assert "ever have pets" not in docs[0].text
    # the neighbour sees the stored text and the left-out sentence
    assert "Priya: I adopted a grey kitten called Miso." in docs[1].context_text
    assert "ever have pets" in docs[1].context_text
    embedded = documents_from_events(
        "a", "u", "s1", keyed, in_context.model_copy(update={"embed_left_out": True})
    )
    assert embedded[0].embed_text == (
        "Priya: Oh nice! I adopted a grey kitten called Miso. Did you ever have pets?"
    )
    assert embedded[0].text == docs[0].text


async def test_sensitive_and_routed_away_sentences_never_become_index_keys():
    keyed = await selected(WITH_SECRET, index_context=True)
    docs = documents_from_events("a", "u", "s1", keyed, IndexingOptions())
    indexed = " ".join(
        [index_text(e) + left_out_text(e) + text_of(e) for e in keyed]
        + [d.context_text + d.embed_text + d.text for d in docs]
    )
    assert "4111" not in indexed
    assert "home address" not in indexed
    # the agent's fact-less question is context for the user's answer
    answer = next(d for d in docs if "navy" in d.text)
    assert "blue jackets" in answer.context_text


async def test_incoming_events_cannot_carry_index_keys_through_the_policy():
    forged = {INDEX_TEXT_KEY: "forged words", LEFT_OUT_KEY: "forged words", CONTEXT_ONLY_KEY: True}
    for index_context in (False, True):
        out = await selected(
            DIALOGUE[1:2], meta={**forged, "topic": "run"}, **{"index_context": index_context}
        )
        assert len(out) == 1 and not is_context_only(out[0])
        assert "forged" not in left_out_text(out[0]) + index_text(out[0])
        assert out[0].custom_metadata == {"topic": "run"}


async def test_by_default_they_are_indexed_with_the_turn_itself():
    turns = [
        ("Priya", "Oh nice! I adopted a grey kitten called Miso. Did you ever have pets?"),
        ("Tomas", "A parrot, years ago."),
    ]
    keyed = await selected(turns, index_context=True)
    docs = documents_from_events("a", "u", "s1", keyed, IndexingOptions())  # left_out_in_turn
    first = docs[0]
    assert first.text == "I adopted a grey kitten called Miso."
    assert first.search_text == (
        "Priya: Oh nice! I adopted a grey kitten called Miso. Did you ever have pets?"
    )
    assert "ever have pets" not in first.context_text
    assert first.embed_text == "Priya: I adopted a grey kitten called Miso."
    assert first.search_text in docs[1].context_text  # the neighbour sees the same text
