"""ADK's defaults, through the real Runner: routing with ADK's default memory service
(``InMemoryMemoryService``) logs one clear line naming what to configure and routes the
other homes as usual; the checkpoint's events carry an author ADK knows, so ADK's agent
router never warns "Event from an unknown agent"."""

from __future__ import annotations

import logging

import pytest
from google.adk.agents.llm_agent import LlmAgent
from google.adk.memory.in_memory_memory_service import InMemoryMemoryService
from google.adk.sessions.database_session_service import DatabaseSessionService

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.lifecycle import CHECKPOINT_STATE_KEY, MemoryCheckpointPlugin
from adk_memory_kit.routing import (
    MemoryApplier,
    MemoryHome,
    MemoryRoutingPlugin,
    RuleBasedExtractor,
    apply,
)
from adk_memory_kit.testing import ScriptedLlm
from tests.support.routing import Harness

pytestmark = pytest.mark.slow

TURNS = [
    "I'm vegetarian. The hotel in Porto last time was really noisy.",
    "I'm allergic to peanuts. The flight to Oslo was delayed by three hours.",
    "My sister lives in Madrid. The train to Lyon had no wifi at all.",
]


async def test_routing_with_adks_default_memory_service_logs_one_clear_line(
    db_url, caplog, monkeypatch
):
    monkeypatch.setattr(apply, "_warned_no_long_term", False)
    caplog.set_level(logging.INFO)
    sessions = DatabaseSessionService(db_url=db_url)
    outcomes: list = []
    plugin = MemoryRoutingPlugin(RuleBasedExtractor(), MemoryApplier(), on_outcomes=outcomes.append)
    agent = LlmAgent(name="helper", model=ScriptedLlm(responder=lambda _: "Noted."))
    try:
        h = Harness(agent, sessions, memory=InMemoryMemoryService(), plugins=[plugin])
        await h.start()
        for text in TURNS:
            await h.turn(text)
        lines = [r for r in caplog.records if r.name.startswith("adk_memory_kit")]
        warned = [r for r in lines if "cannot store long-term memories" in r.getMessage()]
        assert len(warned) == 1  # one line for the process, not one per turn
        assert "PgVectorMemoryService" in warned[0].getMessage()
        assert "--memory_service_uri=pgvector://" in warned[0].getMessage()
        assert not any("NotImplementedError" in r.getMessage() and r not in warned for r in lines)
        homes = [(o.home, o.status) for turn in outcomes for o in turn]
        assert (MemoryHome.USER_STATE, "stored") in homes  # the other homes as usual
        assert all(status != "failed" for _, status in homes), homes
        assert any(home is MemoryHome.SESSION_STATE for home, _ in homes)  # long-term kept
        state = await h.state()
        assert state["user:pref_diet"] == "vegetarian"
        for record in caplog.records:  # no user text in any log line
            assert "Porto" not in record.getMessage() and "peanuts" not in record.getMessage()
    finally:
        await sessions.close()


async def test_checkpoint_events_never_make_adk_warn_about_an_unknown_agent(
    db_url, embedder, caplog
):
    caplog.set_level(logging.WARNING)
    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    agent = LlmAgent(name="concierge", model=ScriptedLlm(responder=lambda _: "Sure."))
    try:
        h = Harness(agent, sessions, memory=memory, plugins=[MemoryCheckpointPlugin(1)])
        await h.start()
        for text in ("Book a table for two.", "Make it at eight.", "Thanks!"):
            await h.turn(text)
        state = await h.state()
        assert state[CHECKPOINT_STATE_KEY]["trigger"] == "checkpoint"
        unknown = [r for r in caplog.records if "unknown agent" in r.getMessage()]
        assert unknown == []
        stored = await sessions.get_session(app_name=h.app, user_id=h.user, session_id=h.session_id)
        authors = {e.author for e in stored.events}
        assert authors <= {"user", "concierge"}
    finally:
        await memory.close()
        await sessions.close()
