"""ADK's own session tables keep the raw user turn; the opt-in UserMessageRedactionPlugin
masks it before the Runner stores it (and the agent then sees the masked text too)."""

from __future__ import annotations

import uuid

import pytest
from google.adk.agents import LlmAgent
from google.adk.runners import Runner
from google.genai import types

from adk_memory_kit.sensitive import UserMessageRedactionPlugin
from adk_memory_kit.testing import ScriptedLlm, last_user_text
from tests.support.privacy_scan import table_texts

pytestmark = pytest.mark.slow

CARD = "4539 1488 0343 6467"
PASSWORD = "Kx9!mTq2Lw"
SAID = f"my card is {CARD} and my password is {PASSWORD}, thanks"


async def _run(sessions, plugins: list) -> tuple[str, list[str]]:
    app_name = f"umr_{uuid.uuid4().hex[:8]}"
    seen: list[str] = []

    def responder(request):
        seen.append(last_user_text(request))
        return "Got it."

    agent = LlmAgent(name="helper", model=ScriptedLlm(responder=responder))
    runner = Runner(agent=agent, app_name=app_name, session_service=sessions, plugins=plugins)
    session = await sessions.create_session(app_name=app_name, user_id="u1")
    message = types.Content(role="user", parts=[types.Part(text=SAID)])
    async for _ in runner.run_async(user_id="u1", session_id=session.id, new_message=message):
        pass
    await runner.close()
    return app_name, seen


async def test_without_the_plugin_adk_keeps_the_raw_turn(sessions, db_url):
    app_name, seen = await _run(sessions, [])
    adk = await table_texts(db_url, include_adk=True, app=app_name)
    assert any(CARD in blob for blob in adk.values())  # ADK's events table, by design
    assert CARD in seen[0]


async def test_the_plugin_masks_the_turn_before_adk_stores_it(sessions, db_url):
    app_name, seen = await _run(sessions, [UserMessageRedactionPlugin()])
    adk = await table_texts(db_url, include_adk=True, app=app_name)
    assert adk, "no table holds the app's rows"
    for blob in adk.values():
        assert CARD not in blob and PASSWORD.lower() not in blob
    # what the agent loses: the model sees the masked turn, the sentence is kept
    assert seen[0] == (
        "my card is [REDACTED:payment_card] and my password is [REDACTED:credential], thanks"
    )
