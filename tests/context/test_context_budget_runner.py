"""ContextBudget on the real Runner: the clear error, sections, and composition with windowing."""

from __future__ import annotations

import uuid

import pytest
from context_support import (
    fetch_report,
    make_app,
    pairs_intact,
    request_text,
    request_tokens,
    responder,
    run_turn,
)
from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.plugins.context_filter_plugin import ContextFilterPlugin
from google.adk.runners import Runner

from adk_memory_kit import (
    ContextBudget,
    ContextBudgetExceededError,
    ContextBudgetPlugin,
    InvalidInputError,
    ToolPayloadPruningPlugin,
)
from adk_memory_kit.context import REPORT_KEY, SECTIONS
from adk_memory_kit.testing import ScriptedLlm

SECRET_MESSAGE = "Please keep this private text out of errors and logs, thanks."


@pytest.mark.slow
async def test_plugin_raises_before_any_model_call_when_minimum_cannot_fit(sessions, caplog):
    app, llm = make_app(
        f"err_{uuid.uuid4().hex[:6]}",
        plugins=[ContextBudgetPlugin(max_tokens=300)],
        instruction="Follow the house rules. " * 60,  # ~360 tokens of instruction alone
    )
    runner = Runner(app=app, session_service=sessions)
    session = await sessions.create_session(app_name=app.name, user_id="u1")
    with pytest.raises(Exception) as raised:
        await run_turn(runner, "u1", session.id, SECRET_MESSAGE)
    error = raised.value
    while error is not None and not isinstance(error, ContextBudgetExceededError):
        error = error.__cause__  # ADK wraps plugin errors in a RuntimeError
    assert isinstance(error, ContextBudgetExceededError)
    assert error.max_tokens == 300 and error.needed > 300
    assert error.sections["system"] > 300
    assert "max_tokens" in str(error) and SECRET_MESSAGE not in str(error)
    assert not llm.requests  # no model call was made
    assert all(SECRET_MESSAGE not in record.getMessage() for record in caplog.records)


@pytest.mark.slow
async def test_callback_raises_the_kit_error_for_a_huge_new_message(sessions):
    budget = ContextBudget(max_tokens=400)
    app, llm = make_app(
        f"err2_{uuid.uuid4().hex[:6]}",
        before_model_callback=budget,
        after_model_callback=budget.after_model_callback,
    )
    runner = Runner(app=app, session_service=sessions)
    session = await sessions.create_session(app_name=app.name, user_id="u1")
    await run_turn(runner, "u1", session.id, "hello there")
    assert len(llm.requests) == 1
    with pytest.raises(ContextBudgetExceededError):
        await run_turn(runner, "u1", session.id, "word " * 400)  # ~500 tokens on its own
    assert len(llm.requests) == 1


@pytest.mark.slow
async def test_sections_are_reported_in_state_and_newest_message_is_kept(sessions):
    plugin = ContextBudgetPlugin(max_tokens=900)
    app, llm = make_app(f"sec_{uuid.uuid4().hex[:6]}", plugins=[plugin])
    runner = Runner(app=app, session_service=sessions)
    session = await sessions.create_session(app_name=app.name, user_id="u1")
    for index in range(8):
        await run_turn(runner, "u1", session.id, f"Turn {index}: [fetch {index} 250] please.")
    stored = await sessions.get_session(app_name=app.name, user_id="u1", session_id=session.id)
    report = stored.state[REPORT_KEY]
    assert set(report["after"]) == set(SECTIONS)  # (JSON storage may reorder keys)
    assert report["before"]["tool_payloads"] > report["after"]["tool_payloads"]
    assert all(request_tokens(r) <= 900 for r in llm.requests)
    assert all(pairs_intact(r.contents) for r in llm.requests)
    assert "Turn 7: [fetch 7 250] please." in request_text(llm.requests[-1])
    # big steps: far fewer history cuts than calls
    cuts = sum(r.cut_moved for r in plugin.report.records)
    assert 1 <= cuts <= len(plugin.report.records) // 3


@pytest.mark.slow
async def test_composes_with_context_filter_and_pruner_without_double_trimming(sessions):
    budget = ContextBudgetPlugin(max_tokens=4000)
    plugins = [
        ContextFilterPlugin(num_invocations_to_keep=3),
        ToolPayloadPruningPlugin(prunable={"fetch_report"}, keep_recent=2),
        budget,
    ]
    app, llm = make_app(f"win_{uuid.uuid4().hex[:6]}", plugins=plugins)
    runner = Runner(app=app, session_service=sessions)
    session = await sessions.create_session(app_name=app.name, user_id="u1")
    for index in range(10):
        await run_turn(runner, "u1", session.id, f"Turn {index}: [fetch {index} 400] please.")
    records = list(budget.report.records)
    # the window and the pruner already keep requests small: the budget changes nothing
    assert not any(r.cut_moved for r in records)
    assert all(r.estimate_after == r.estimate_before for r in records)
    assert all(pairs_intact(r.contents) for r in llm.requests)
    assert all(request_tokens(r) <= 4000 for r in llm.requests)
    assert "Turn 0:" not in request_text(llm.requests[-1])  # the window did its job


def test_bad_arguments_raise_kit_errors():
    with pytest.raises(InvalidInputError, match="max_tokens"):
        ContextBudget(max_tokens=0)
    with pytest.raises(InvalidInputError, match="target_ratio"):
        ContextBudget(max_tokens=100, target_ratio=0)


class InflatedLlm(ScriptedLlm):
    """Reports 1.5x the kit's estimate as prompt tokens, like a tokenizer denser than chars/4."""

    async def generate_content_async(self, llm_request, stream=False):
        async for response in super().generate_content_async(llm_request, stream):
            usage = response.usage_metadata
            usage.prompt_token_count = int(usage.prompt_token_count * 1.5)
            yield response


@pytest.mark.slow
async def test_calibrates_from_usage_metadata(sessions):
    budget = ContextBudget(max_tokens=1500)
    llm = InflatedLlm(responder=responder)
    agent = LlmAgent(
        name="assistant",
        model=llm,
        instruction="Help the user.",
        tools=[fetch_report],
        before_model_callback=budget,
        after_model_callback=budget.after_model_callback,
    )
    app = App(name=f"cal_{uuid.uuid4().hex[:6]}", root_agent=agent)
    runner = Runner(app=app, session_service=sessions)
    session = await sessions.create_session(app_name=app.name, user_id="u1")
    for index in range(10):
        await run_turn(runner, "u1", session.id, f"Turn {index}: [fetch {index} 300] please.")
    assert budget.ratio == pytest.approx(1.5, rel=0.01)
    # from the second call on, what the provider counts stays within the budget
    assert all(request_tokens(r) * 1.5 <= 1500 for r in llm.requests[1:])
    # the budget was exercised: unedited, later requests would have been over in provider tokens
    assert max(r.estimate_before for r in budget.report.records) * 1.5 > 1500


@pytest.mark.slow
async def test_a_restarted_process_repeats_the_same_edits(sessions):
    first = ContextBudgetPlugin(max_tokens=1200)
    app, llm = make_app(f"rst_{uuid.uuid4().hex[:6]}", plugins=[first])
    runner = Runner(app=app, session_service=sessions)
    session = await sessions.create_session(app_name=app.name, user_id="u1")
    for index in range(9):
        await run_turn(runner, "u1", session.id, f"Turn {index}: [fetch {index} 250] please.")
    assert any(r.cut_moved for r in first.report.records)
    before_restart = llm.requests[-1].contents
    # a new process: new plugin object, same database session
    second = ContextBudgetPlugin(max_tokens=1200)
    app2, llm2 = make_app(app.name, plugins=[second])
    runner2 = Runner(app=app2, session_service=sessions)
    await run_turn(runner2, "u1", session.id, "And one more short question.")
    after_restart = llm2.requests[0].contents
    assert not second.report.records[0].history_rewritten
    assert after_restart[: len(before_restart)] == before_restart  # the same cut and tombstones
    assert all(request_tokens(r) <= 1200 for r in llm2.requests)
