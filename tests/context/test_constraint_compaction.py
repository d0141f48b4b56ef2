"""The user's constraints and instructions survive lossy compaction verbatim.

FactPreservingSummarizer keeps every user sentence stating a constraint (a negation, a limit, a
deadline, an always/never rule) in its "Kept exactly" block. Checked on varied phrasings, and
end to end: constraints planted early survive 40 turns of compaction on the real Runner and
DatabaseSessionService, with a scripted summary model whose prose drops them.
"""

from __future__ import annotations

import uuid

import pytest
from context_support import make_app, request_text, run_turn
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
from google.adk.runners import Runner
from google.genai import types

from adk_memory_kit import FactPreservingSummarizer
from adk_memory_kit.context import parse_summary
from adk_memory_kit.context.summarizer import CONSTRAINT
from adk_memory_kit.context.values import is_constraint
from adk_memory_kit.testing import ScriptedLlm

RULES = [
    "Never put me on a train that leaves before 06:30.",
    "Keep the catering bill under 2,000 euros.",
    "The slides have to reach Priya by Wednesday noon.",
    "Always cc the finance inbox on anything with an invoice.",
    "Do not book hotels without a refundable rate.",
    "No lamb dishes for the Saturday dinner.",
    "At most three stops on the return leg.",
    "I would rather not sit in the front row, whatever the price.",
    "Make sure the venue is reachable by wheelchair.",
    "Spend no more than $35 a day on taxis.",
]
CHATTER = [
    "The weather in Porto was lovely last spring.",
    "My brother just adopted a grey kitten.",
    "Thanks, that sounds good.",
    "Can you remind me what the museum is called?",
    "We watched a documentary about octopuses yesterday.",
    "No problem, take your time.",
    "I went over to the market this morning.",
    "Never mind, I found the link myself.",
]


@pytest.mark.parametrize("rule", RULES)
def test_constraint_phrasings_are_recognised(rule):
    assert is_constraint(rule)


@pytest.mark.parametrize("line", CHATTER)
def test_chatter_questions_and_pleasantries_are_not_constraints(line):
    assert not is_constraint(line)


def _content(role: str, text: str) -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=text)])


async def test_user_constraints_are_kept_verbatim_and_agent_ones_are_not():
    lossy = ScriptedLlm(responder=lambda request: "The user chatted about travel.")
    summarizer = FactPreservingSummarizer(model=lossy)
    items = [("user", _content("user", f"{CHATTER[0]} {RULES[0]} {CHATTER[1]}"))]
    items.append(("assistant", _content("model", "I never book trains before dawn anyway.")))
    items.append(("user", _content("user", f"{RULES[1]} {RULES[2]}")))
    text = (await summarizer.summarize_contents(items)).parts[0].text
    digest = parse_summary(text)
    kept = [v.text for v in digest.values if v.kind == CONSTRAINT]
    assert kept == RULES[:3]
    assert "I never book trains before dawn anyway." not in kept
    assert CHATTER[0] not in kept


async def test_constraints_are_carried_from_summary_to_summary_within_the_cap():
    summarizer = FactPreservingSummarizer(max_constraints=4)
    first = await summarizer.summarize_contents([("user", _content("user", " ".join(RULES[:3])))])
    second = await summarizer.summarize_contents(
        [("user", first), ("user", _content("user", f"{RULES[3]} {RULES[4]} {CHATTER[2]}"))]
    )
    kept = [v.text for v in parse_summary(second.parts[0].text).values if v.kind == CONSTRAINT]
    assert kept == RULES[1:5]  # newest four; the oldest went over the cap


LOSSY = "Summary: the user is planning an offsite and talked about various things."


def _turns() -> list[str]:
    """40 user turns: three constraints planted in the first turns, then chatter, with
    other numbers and names that the value block also has to hold."""
    turns = [
        f"Hi! I am organising the team offsite. {RULES[0]}",
        f"Quick thing about money: {RULES[1]}",
        f"{RULES[5]} Thanks for keeping track.",
    ]
    topics = ["the venue", "the playlist", "a podcast", "the garden", "a novel", "the bus"]
    for i in range(37):
        topic = topics[i % len(topics)]
        turns.append(f"Chatting about {topic}, item {i}: it was nice and the photos came out well.")
    return turns


def _compaction(summarizer) -> EventsCompactionConfig:
    return EventsCompactionConfig(
        summarizer=summarizer, token_threshold=250, event_retention_size=4
    )


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fact_preserving", "adk_lossy"])
async def test_planted_constraints_survive_40_turns_of_lossy_compaction(sessions, kind):
    lossy = ScriptedLlm(responder=lambda request: LOSSY)
    summarizer = (
        FactPreservingSummarizer(model=lossy)
        if kind == "fact_preserving"
        else LlmEventSummarizer(lossy)
    )
    app, llm = make_app(f"rules_{kind}_{uuid.uuid4().hex[:6]}")
    app.events_compaction_config = _compaction(summarizer)
    runner = Runner(app=app, session_service=sessions)
    session = await sessions.create_session(app_name=app.name, user_id="u1")
    turns = _turns()
    assert len(turns) == 40
    for text in turns:
        await run_turn(runner, "u1", session.id, text)

    stored = await sessions.get_session(app_name=app.name, user_id="u1", session_id=session.id)
    summaries = [e.actions.compaction for e in stored.events if e.actions and e.actions.compaction]
    assert len(summaries) >= 5, "compaction ran too rarely to test anything"
    planted = [RULES[0], RULES[1], RULES[5]]
    last = request_text(llm.requests[-1])
    assert turns[0] not in last  # the planting turn itself was compacted away long ago
    if kind == "fact_preserving":
        assert lossy.requests, "the lossy summary model was used"
        assert all(rule in last for rule in planted)
        digest = parse_summary(summaries[-1].compacted_content.parts[0].text)
        kept = [v.text for v in digest.values if v.kind == CONSTRAINT]
        assert len(kept) == len(planted)  # the chatter added none
        assert all(rule in line for rule, line in zip(planted, kept, strict=True))
    else:
        assert not any(rule in last for rule in planted)  # what a lossy summary does
