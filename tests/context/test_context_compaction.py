"""FactPreservingSummarizer inside ADK compaction, on the real Runner and DatabaseSessionService."""

from __future__ import annotations

import uuid

import pytest
from context_support import make_app, pairs_intact, request_text, request_tokens, run_turn
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
from google.adk.runners import Runner
from google.adk.sessions import DatabaseSessionService
from google.genai import types

from adk_memory_kit import ContextBudgetPlugin, FactPreservingSummarizer
from adk_memory_kit.context import parse_summary
from adk_memory_kit.testing import ScriptedLlm

PLANTED = ["QX7T2L", "https://example.com/reports/report-77", "$1,240.50", "14:00"]
CARD = "4111 1111 1111 1111"
OPENING = (
    "My booking reference is QX7T2L and the full report is at "
    "https://example.com/reports/report-77. We agreed the total must stay under $1,240.50. "
    "We must arrive before 14:00."
)
CARD_TURN = f"Pay with my card {CARD} please. I like window seats."
LOSSY = "Summary: the user talked about a trip and some reports."


def lossy_llm() -> ScriptedLlm:
    return ScriptedLlm(responder=lambda request: LOSSY)


def compaction(summarizer) -> EventsCompactionConfig:
    return EventsCompactionConfig(
        summarizer=summarizer, token_threshold=500, event_retention_size=4
    )


async def run_session(app, llm, service, turns):
    runner = Runner(app=app, session_service=service)
    session = await service.create_session(app_name=app.name, user_id="u1")
    for text in turns:
        await run_turn(runner, "u1", session.id, text)
    return session.id


def script() -> list[str]:
    turns = [OPENING, CARD_TURN]
    for index in range(12):
        if index % 3 == 0:
            turns.append(f"Check [fetch {index} 300] for me.")
        else:
            turns.append(f"Chatting about the weather and the view, part {index}.")
    turns.append("What was my booking reference, the report link, the cap and arrival time?")
    return turns


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["fact_preserving", "adk_lossy"])
async def test_exact_values_survive_compaction_and_reload(db_url, sessions, kind):
    summarizer = (
        FactPreservingSummarizer() if kind == "fact_preserving" else LlmEventSummarizer(lossy_llm())
    )
    app, llm = make_app(f"cmp_{kind}_{uuid.uuid4().hex[:6]}")
    app.events_compaction_config = compaction(summarizer)
    session_id = await run_session(app, llm, sessions, script())

    # compaction events persisted: a fresh service reloads them from the database
    fresh = DatabaseSessionService(db_url=db_url)
    try:
        stored = await fresh.get_session(app_name=app.name, user_id="u1", session_id=session_id)
    finally:
        await fresh.close()
    summaries = [e.actions.compaction for e in stored.events if e.actions and e.actions.compaction]
    assert summaries, "compaction never ran"
    latest = summaries[-1].compacted_content.parts[0].text
    last_request = llm.requests[-1]
    assert OPENING not in request_text(last_request)  # the opening turn was compacted away
    assert pairs_intact(last_request.contents)
    present = [value for value in PLANTED if value in request_text(last_request)]
    if kind == "fact_preserving":
        assert present == PLANTED
        assert all(value in latest for value in PLANTED)
        digest = parse_summary(latest)
        assert digest is not None and "QX7T2L" in {v.text for v in digest.values}
        # never copies what the sensitive detectors flag, in any summary
        assert all(CARD not in s.compacted_content.parts[0].text for s in summaries)
        assert all("4111" not in s.compacted_content.parts[0].text for s in summaries)
    else:
        assert len(present) < len(PLANTED)  # the lossy summary drops what we keep


async def test_pruned_and_distilled_results_are_not_summarised_again():
    summarizer = FactPreservingSummarizer()
    tombstone = {"status": "pruned", "tool": "web_search", "note": "ref ZZ9PLURAL removed"}
    contents = [
        ("user", types.Content(role="user", parts=[types.Part(text="Find the Lumen report.")])),
        (
            "assistant",
            types.Content(
                role="model",
                parts=[
                    types.Part(
                        function_response=types.FunctionResponse(
                            name="web_search", response=tombstone
                        )
                    ),
                    types.Part(
                        function_response=types.FunctionResponse(
                            name="save_finding", response={"saved": "Finding FND-7781 stored"}
                        )
                    ),
                    types.Part(
                        function_response=types.FunctionResponse(
                            name="lookup", response={"hotel": "HX-4410 at https://h.example/77"}
                        )
                    ),
                ],
            ),
        ),
    ]
    content = await summarizer.summarize_contents(contents)
    text = content.parts[0].text
    assert "ZZ9PLURAL" not in text and "FND-7781" not in text
    assert "HX-4410" in text and "https://h.example/77" in text


async def test_model_prose_is_filtered_and_values_still_kept():
    leaky = ScriptedLlm(
        responder=lambda request: f"The user paid with {CARD}. They chose a hotel near the sea."
    )
    summarizer = FactPreservingSummarizer(model=leaky)
    content = await summarizer.summarize_contents(
        [("user", types.Content(role="user", parts=[types.Part(text=OPENING + " " + CARD_TURN)]))]
    )
    text = content.parts[0].text
    assert CARD not in text and "4111" not in text
    assert "chose a hotel near the sea" in text
    assert all(value in text for value in PLANTED)
    # the model saw no flagged text either
    prompt = leaky.requests[0].contents[0].parts[0].text
    assert CARD not in prompt and "QX7T2L" in prompt


async def test_a_failing_summary_model_falls_back_to_extractive():
    def broken(request):
        raise ConnectionError("provider down")

    summarizer = FactPreservingSummarizer(model=ScriptedLlm(responder=broken))
    content = await summarizer.summarize_contents(
        [("user", types.Content(role="user", parts=[types.Part(text=OPENING)]))]
    )
    text = content.parts[0].text
    assert all(value in text for value in PLANTED)
    assert "must stay under" in text  # the extractive constraint sentence


@pytest.mark.slow
async def test_compaction_and_budget_compose(sessions):
    budget = ContextBudgetPlugin(max_tokens=1400)
    app, llm = make_app(f"cmpb_{uuid.uuid4().hex[:6]}", plugins=[budget])
    app.events_compaction_config = compaction(FactPreservingSummarizer())
    await run_session(app, llm, sessions, script())
    assert all(pairs_intact(r.contents) for r in llm.requests)
    assert all(request_tokens(r) <= 1400 for r in llm.requests)
    # the budget cut after ADK's summary or kept it: the planted values reach the last turn
    assert all(value in request_text(llm.requests[-1]) for value in PLANTED)
