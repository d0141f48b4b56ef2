"""The public lifecycle API covers the episodic log: ``data_map`` lists it, ``forget_user``
empties it for one user of one app and leaves every other user's and app's rows.

The log rows are written by ``EpisodicLogPlugin`` during real ``Runner`` turns on
``DatabaseSessionService``; ``forget_user`` and ``data_map`` are called exactly as an
application calls them (no homes passed): they find the log from the catalog comment on its
table (``adk_memory_kit home: episodic log``).
"""

from __future__ import annotations

import uuid

import pytest
from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.runners import Runner
from google.genai import types

from adk_memory_kit import EpisodicLog, EpisodicLogPlugin, data_map, forget_user
from adk_memory_kit.episodic.store import HOME_NAME, TABLE
from adk_memory_kit.testing import ScriptedLlm, call

pytestmark = pytest.mark.slow


def check_stock(item: str) -> dict:
    """Check how many of an item are in stock.

    Args:
      item: the item name.
    """
    return {"item": item, "in_stock": 4}


def _runner(app_name: str, sessions, log: EpisodicLog) -> Runner:
    agent = LlmAgent(
        name="clerk",
        model=ScriptedLlm(
            model="gemini-2.5-flash",
            turns=[[call("check_stock", item="lamp")], "4 lamps are in stock."],
        ),
        instruction="You answer stock questions.",
        tools=[check_stock],
    )
    app = App(name=app_name, root_agent=agent, plugins=[EpisodicLogPlugin(log)])
    return Runner(app=app, session_service=sessions)


async def _turn(app_name: str, user_id: str, sessions, log: EpisodicLog) -> str:
    runner = _runner(app_name, sessions, log)
    session = await sessions.create_session(app_name=app_name, user_id=user_id)
    message = types.Content(role="user", parts=[types.Part(text="Any lamps left?")])
    try:
        async for _ in runner.run_async(
            user_id=user_id, session_id=session.id, new_message=message
        ):
            pass
    finally:
        await runner.close()  # flushes the plugin's queue (the log stays open)
    return session.id


def _episodic(dmap):
    found = [loc for loc in dmap.locations if loc.kind == HOME_NAME]
    assert len(found) == 1, [loc.kind for loc in dmap.locations]
    return found[0]


async def test_forget_user_empties_the_users_log_and_nothing_else(db_url, sessions, memory):
    app, other_app = f"epi-forget-{uuid.uuid4().hex[:6]}", f"epi-keep-{uuid.uuid4().hex[:6]}"
    log = EpisodicLog(db_url)
    try:
        gone_sessions = [await _turn(app, "gone", sessions, log) for _ in range(2)]
        stays_session = await _turn(app, "stays", sessions, log)
        other_app_session = await _turn(other_app, "gone", sessions, log)

        trace = await log.trace(app, "gone", gone_sessions[0])
        assert [e.kind for e in trace] == [
            "user_message", "model_call", "tool_call", "model_call"
        ]  # fmt: skip
        gone_rows = await log.count_for_user(app, "gone")
        stays_rows = await log.count_for_user(app, "stays")
        other_app_rows = await log.count_for_user(other_app, "gone")
        assert gone_rows == 2 * len(trace) and stays_rows == len(trace) == other_app_rows

        before = await data_map(app, "gone", session_service=sessions, memory_service=memory)
        location = _episodic(before)
        assert location.count == gone_rows
        assert location.store == f"postgres table {TABLE}"
        assert before.holds_user_data

        report = await forget_user(app, "gone", session_service=sessions, memory_service=memory)
        assert report.status == "completed" and report.verified, report.notes
        assert report.homes_deleted[HOME_NAME] == gone_rows
        assert sorted(report.sessions_deleted) == sorted(gone_sessions)
        assert HOME_NAME in report.summary()

        assert await log.count_for_user(app, "gone") == 0
        assert await log.trace(app, "gone", gone_sessions[1]) == []
        # the other user of the app and the same user id in another app keep everything
        assert await log.count_for_user(app, "stays") == stays_rows
        assert await log.count_for_user(other_app, "gone") == other_app_rows
        assert [e.kind for e in await log.trace(app, "stays", stays_session)] == [
            e.kind for e in trace
        ]
        assert len(await log.trace(other_app, "gone", other_app_session)) == len(trace)

        after = await data_map(app, "gone", session_service=sessions, memory_service=memory)
        assert _episodic(after).count == 0
        assert not after.holds_user_data
        kept = await data_map(other_app, "gone", session_service=sessions, memory_service=memory)
        assert _episodic(kept).count == other_app_rows
    finally:
        await log.close()
