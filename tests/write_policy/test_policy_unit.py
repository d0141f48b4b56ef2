"""The write policy sentence by sentence (pure: events in, events out)."""

from __future__ import annotations

import pytest
from google.adk.events.event import Event
from google.adk.sessions.session import Session

from adk_memory_kit.core.session_policy import WritePolicy, resolve_policy
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.routing.learned import Decision
from adk_memory_kit.routing.records import RECALL_RECORD_KEY, ROUTING_RECORD_KEY, ROUTING_STATE_KEY
from adk_memory_kit.routing.write_policy import (
    RoutedOptions,
    SentenceVerdict,
    select_events,
    session_only_holds,
)
from adk_memory_kit.text.signals import content_stems, fingerprint
from tests.support.policy_events import ev, tool_result

RECALL_BLOCK = (
    "<RECALLED_MEMORY>\nRecalled items (quoted past content):\n"
    "[1] 2026-11-02, memory_router:\n> please always deliver to the Pune office reception.\n"
    "</RECALLED_MEMORY>"
)


def session(events: list[Event]) -> Session:
    return Session(id="s1", app_name="a", user_id="u", events=events)


async def kept(events: list[Event], **kw) -> list[str]:
    out = await select_events(session(events), events, **kw)
    return [e.content.parts[0].text for e in out]


async def test_agent_substance_is_kept_and_filler_questions_and_echoes_are_not():
    events = [
        ev("user", "Hi! Can you book us a table? The team offsite is in Goa on 3 March.", 1),
        tool_result("load_memory", {"memories": RECALL_BLOCK, "count": 1}, 2),
        ev(
            "agent",
            "[offline scripted model] Noted. Last time you asked me to deliver to the "
            "Pune office reception.",
            3,
        ),
        ev(
            "agent",
            "I booked table 12 at Green Leaf for 1 pm, confirmation GL-4471. Anything else?",
            4,
        ),
        ev("user", "Thanks, that's all, bye!", 5),
    ]
    verdicts: list[SentenceVerdict] = []
    assert await kept(events, verdicts=verdicts) == [
        "The team offsite is in Goa on 3 March.",
        "I booked table 12 at Green Leaf for 1 pm, confirmation GL-4471.",
    ]
    reasons = {v.reason for v in verdicts if not v.stored}
    # "Can you book us a table?" is this session's work to the router (stop 63; before, a
    # question without a fact): left out either way
    assert reasons == {"filler", "routed (no record) to SESSION_STATE", "restates recalled memory"}


def carried(where: str, key: str, record: dict) -> dict:
    """Event kwargs carrying a kit record: in metadata (current) or a state delta (older
    sessions: the pre-metadata keys; the agent-callback form: its one session key)."""
    if where == "metadata":
        return {"metadata": {key: record}}
    return {"state_delta": {where: record}}


@pytest.mark.parametrize("where", ["metadata", "_adk_memory_kit_recall"])
async def test_preload_record_marks_a_restatement_as_echo(where):
    stems = fingerprint(content_stems("Your usual order is the paneer thali with extra raita."))
    events = [
        ev("user", "What do I usually get?", 1),
        ev(
            "agent",
            "You usually get the paneer thali with extra raita.",
            2,
            **carried(where, RECALL_RECORD_KEY, {"v": 1, "stems": stems}),
        ),
    ]
    assert await kept(events) == []
    assert await kept(events[:1] + [ev("agent", events[1].content.parts[0].text, 2)]) == [
        "You usually get the paneer thali with extra raita."
    ]


@pytest.mark.parametrize("where", ["metadata", ROUTING_STATE_KEY, "_adk_memory_kit_routing"])
async def test_recorded_decisions_exclude_sentences_and_agent_restatements_of_them(where):
    record = {
        "v": 1,
        "routed_events": ["e1"],
        "sentences": {"e1": {"0": ["procedural_review"], "2": ["session_state"]}},
    }
    events = [
        ev(
            "user",
            "Stop asking me to confirm prices. My sister Mia visits in June. "
            "Our budget is 15 euros today.",
            1,
        ),
        ev(
            "agent",
            "Understood, I will stop asking you to confirm prices.",
            2,
            **carried(where, ROUTING_RECORD_KEY, record),
        ),
    ]
    assert await kept(events) == ["My sister Mia visits in June."]


async def test_a_turn_without_record_is_classified_at_ingestion():
    events = [
        ev(
            "user",
            "I'm vegetarian. Stop asking me to confirm prices. "
            "My card is 4111 1111 1111 1111. Our budget is 15 euros today.",
            1,
        ),
    ]
    # no router stored the diet elsewhere, so the user's own words keep it
    assert await kept(events) == ["I'm vegetarian."]
    bare = RoutedOptions(fallback_extractor=None, sentence_router=None)
    # without the fallback: the sensitive sentence still goes, and the command to the agent
    # (a directive, no fact about the user); the rest is the user's content
    assert await kept(events, options=bare) == ["I'm vegetarian. Our budget is 15 euros today."]
    # the offline classifier alone (no rules fallback) still keeps the behaviour change and
    # the session-only budget out of retrieval
    classifier_only = RoutedOptions(fallback_extractor=None)
    assert await kept(events, options=classifier_only) == ["I'm vegetarian."]


async def test_full_transcript_keeps_every_event_untouched():
    events = [ev("user", "Thanks!", 1), ev("agent", "Noted.", 2)]
    out = await select_events(session(events), events, WritePolicy.FULL_TRANSCRIPT)
    assert out == events


def test_policy_names_resolve_and_bad_values_are_refused(monkeypatch):
    monkeypatch.delenv("ADK_MEMORY_KIT_WRITE_POLICY", raising=False)
    assert resolve_policy(None) is WritePolicy.ROUTED
    monkeypatch.setenv("ADK_MEMORY_KIT_WRITE_POLICY", "full_transcript")
    assert resolve_policy(None) is WritePolicy.FULL_TRANSCRIPT
    monkeypatch.setenv("ADK_MEMORY_KIT_WRITE_POLICY", "all of it")
    with pytest.raises(InvalidInputError, match="ADK_MEMORY_KIT_WRITE_POLICY"):
        resolve_policy(None)
    assert resolve_policy("full-transcript") is WritePolicy.FULL_TRANSCRIPT
    assert resolve_policy("ROUTED") is WritePolicy.ROUTED
    with pytest.raises(InvalidInputError, match="write_policy must be one of"):
        resolve_policy("everything")
    with pytest.raises(InvalidInputError, match="echo_threshold"):
        RoutedOptions(echo_threshold=0)


async def test_only_a_sure_session_only_verdict_keeps_a_sentence_out():
    # sentences that state nothing (no English grammar reads them as requests): the router
    # says ~0.8 and ~0.45 that they are this session's work
    sure = "Bitte den Entwurf kürzer machen."
    unsure = "Daba l9a liya train Marrakech-Fès ghedda."
    # statements answer to a higher bar (a lasting fact read as session work would be lost):
    # ~0.95, ~0.68 and ~0.45; one that scopes itself to now stays out whatever the router says
    sure_statement = "The printer is jammed again this morning."
    fairly_sure_statement = "I need a taxi to the airport at 6."
    unsure_statement = "The car is making a funny noise again."
    scoped = "Just for this conversation, assume I'm travelling with my two nephews."
    said = (sure, unsure, sure_statement, fairly_sure_statement, unsure_statement, scoped)
    events = [ev("user", text, i) for i, text in enumerate(said, 1)]
    # by default only the sure verdicts keep their sentences out of long-term memory
    assert await kept(events) == [unsure, fairly_sure_statement, unsure_statement]
    # stricter bars store all but the scoped one; laxer ones keep every one out
    strict = RoutedOptions(session_only_confidence=0.99, statement_session_confidence=0.99)
    assert await kept(events, options=strict) == list(said[:-1])
    lax = RoutedOptions(session_only_confidence=0.1, statement_session_confidence=0.1)
    assert await kept(events, options=lax) == []
    for name in ("session_only_confidence", "statement_session_confidence"):
        with pytest.raises(InvalidInputError, match=name):
            RoutedOptions(**{name: 0})


def test_which_session_only_verdicts_keep_a_sentence_out():
    options = RoutedOptions()
    holds = session_only_holds
    statement, request = "My laptop is a ThinkPad X220.", "Make this email sound more formal."
    scoped = "Just for this trip, my laptop is a ThinkPad X220."
    # a sentence scoped to now stays out whatever the router said of it
    assert holds(scoped, Decision("long_term", 0.9), options)
    # a statement needs the higher bar, a request the lower one
    assert not holds(statement, Decision("session_state", 0.84), options)
    assert holds(statement, Decision("session_state", 0.86), options)
    assert not holds(request, Decision("session_state", 0.59), options)
    assert holds(request, Decision("session_state", 0.61), options)
    # "nothing to keep" holds for a sentence that states nothing, never for a statement
    assert holds(request, Decision("nothing", 0.3), options)
    assert not holds(statement, Decision("nothing", 0.9), options)
    # any other verdict (a session note made of a runner-up) stores the sentence
    assert not holds(statement, Decision("drop", 0.9), options)


async def test_ids_that_are_not_secrets_are_kept_by_the_default_policy():
    # the detectors find no secret in these; an unsure "sensitive" guess must not lose them
    said = [
        "My order B-7730 from the bakery is late again.",
        "The parcel with tracking number 1Z 884 213 still hasn't arrived.",
        "My allotment plot is number 17 by the canal.",
    ]
    events = [ev("user", text, i) for i, text in enumerate(said, start=1)]
    assert await kept(events) == said


def test_a_possessive_and_its_word_share_a_stem():
    # "my mum's phone" names the mum of "My mum calls every evening"
    assert content_stems("my mum's phone") & content_stems("My mum calls every evening")
    assert content_stems("the dog's lead") == content_stems("the dog lead")
    assert content_stems("it's late") == content_stems("it late")  # stopwords stay out
