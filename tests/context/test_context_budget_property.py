"""The budget's guarantee as a property: random sessions through the real Runner and database."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from context_support import make_app, pairs_intact, request_tokens, run_turn
from google.adk.runners import Runner
from google.adk.sessions import DatabaseSessionService
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adk_memory_kit import ContextBudgetExceededError, ContextBudgetPlugin
from adk_memory_kit.context import CUT_KEY, REPORT_KEY, SECTIONS

BUDGET = 1500

turn = st.one_of(
    st.tuples(st.just("talk"), st.integers(1, 300)),
    st.tuples(st.just("tool"), st.integers(50, 700)),
    st.tuples(st.just("huge"), st.integers(1600, 2400)),  # cannot fit: the clear error
)


@pytest.fixture(scope="module")
def loop_and_service(db_url):
    loop = asyncio.new_event_loop()
    service = DatabaseSessionService(db_url=db_url)
    yield loop, service
    loop.run_until_complete(service.close())
    loop.close()


def user_text(kind: str, size: int, index: int) -> str:
    if kind == "tool":
        return f"Turn {index}: please check [fetch {index} {size}] now."
    if kind == "huge":
        return f"Turn {index}: " + "z" * (size * 4)
    words = " ".join(f"w{index}x{k}" for k in range(size))  # ~1 token per 4 chars
    return f"Turn {index}: {words[: size * 4]}"


@pytest.mark.slow
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(turns=st.lists(turn, min_size=3, max_size=14))
def test_no_request_exceeds_the_budget_and_pairs_stay_intact(loop_and_service, turns):
    loop, service = loop_and_service
    plugin = ContextBudgetPlugin(max_tokens=BUDGET)
    app, llm = make_app(f"prop_{uuid.uuid4().hex[:8]}", plugins=[plugin])
    runner = Runner(app=app, session_service=service)

    async def scenario():
        session = await service.create_session(app_name=app.name, user_id="u1")
        for index, (kind, size) in enumerate(turns):
            text = user_text(kind, size, index)
            before = len(llm.requests)
            try:
                await run_turn(runner, "u1", session.id, text)
            except Exception as error:  # ADK wraps plugin errors in a RuntimeError
                assert kind == "huge"
                assert isinstance(error.__cause__, ContextBudgetExceededError)
                assert len(llm.requests) == before  # raised before any model call
                continue
            assert kind != "huge"
            for request in llm.requests[before:]:
                # the newest user message is never cut
                assert any(
                    p.text == text for c in request.contents for p in c.parts or () if p.text
                )
        return await service.get_session(app_name=app.name, user_id="u1", session_id=session.id)

    stored = loop.run_until_complete(scenario())
    for request in llm.requests:
        assert request_tokens(request) <= BUDGET
        assert pairs_intact(request.contents)
    if not llm.requests:
        return
    report = stored.state[REPORT_KEY]
    assert set(report["before"]) == set(SECTIONS) and set(report["after"]) == set(SECTIONS)
    assert report["estimate_after"] <= BUDGET
    total = sum(request_tokens(r) for r in llm.requests)
    unbounded = sum(r.estimate_before for r in plugin.report.records)
    if unbounded > total:  # the budget cut history at some point: the cut is in session state
        assert any(r.cut_moved or r.pruning_crossed for r in plugin.report.records)
    if any(r.cut_moved for r in plugin.report.records):
        assert CUT_KEY in stored.state
