"""ADK's own session tables keep the raw user turn; UserMessageRedactionPlugin masks it (and
the agent's echo of it) before the Runner stores it, while the model still sees what the user
typed in that turn, and only in that turn."""

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


async def _run(sessions, plugins: list, then: str | None = None) -> tuple[str, list[str]]:
    """One turn saying SAID (the reply echoes it), then optionally a second turn; returns the
    app and every request's text as the model saw it (all contents joined)."""
    app_name = f"umr_{uuid.uuid4().hex[:8]}"
    seen: list[str] = []

    def responder(request):
        seen.append(
            " | ".join(p.text or "" for c in request.contents for p in c.parts or [] if p.text)
        )
        return f"Noted: {last_user_text(request)}"

    agent = LlmAgent(name="helper", model=ScriptedLlm(responder=responder))
    runner = Runner(agent=agent, app_name=app_name, session_service=sessions, plugins=plugins)
    session = await sessions.create_session(app_name=app_name, user_id="u1")
    for said in [SAID] if then is None else [SAID, then]:
        message = types.Content(role="user", parts=[types.Part(text=said)])
        async for _ in runner.run_async(user_id="u1", session_id=session.id, new_message=message):
            pass
    await runner.close()
    return app_name, seen


async def test_without_the_plugin_adk_keeps_the_raw_turn(sessions, db_url):
    app_name, seen = await _run(sessions, [])
    adk = await table_texts(db_url, include_adk=True, app=app_name)
    assert any(CARD in blob for blob in adk.values())  # ADK's events table, by design
    assert CARD in seen[0]


MASKED = "my card is [REDACTED:payment_card] and my password is [REDACTED:credential], thanks"


async def test_the_plugin_masks_the_turn_and_the_echo_before_adk_stores_them(sessions, db_url):
    app_name, seen = await _run(sessions, [UserMessageRedactionPlugin()], then="what's next?")
    adk = await table_texts(db_url, include_adk=True, app=app_name)
    assert adk, "no table holds the app's rows"
    for blob in adk.values():  # neither the user's turn nor the reply that echoed it
        assert CARD not in blob and PASSWORD.lower() not in blob
        assert CARD.replace(" ", "") not in blob.replace(" ", "")
    # the model saw what the user typed in that turn (a booking can use the card) ...
    assert SAID in seen[0] and "REDACTED" not in seen[0]
    # ... and only then: the next turn's request carries the stored, masked text
    assert CARD not in seen[1] and MASKED in seen[1]


async def test_the_model_can_be_kept_from_the_original_too(sessions, db_url):
    app_name, seen = await _run(sessions, [UserMessageRedactionPlugin(show_model_original=False)])
    assert MASKED in seen[0] and CARD not in seen[0]
    adk = await table_texts(db_url, include_adk=True, app=app_name)
    assert all(CARD not in blob for blob in adk.values())


async def test_a_secret_a_tool_saves_in_state_is_stored_masked(sessions, db_url):
    from google.adk.tools.tool_context import ToolContext

    from adk_memory_kit.testing import call

    used: list[str] = []

    def remember_payment(card_number: str, tool_context: ToolContext) -> dict:
        """Keep the card for the booking."""
        tool_context.state["payment_card"] = card_number
        tool_context.state["temp:card_for_booking"] = card_number  # never stored
        tool_context.state["seat"] = "14C"
        return {"status": "saved"}

    def book(tool_context: ToolContext) -> dict:
        """Book with the card saved in this invocation."""
        used.append(tool_context.state.get("temp:card_for_booking"))
        return {"status": "booked"}

    app_name = f"umr_{uuid.uuid4().hex[:8]}"
    model = ScriptedLlm(
        turns=[
            [call("remember_payment", card_number=CARD)],
            [call("book")],
            "Booked.",
        ]
    )
    agent = LlmAgent(name="helper", model=model, tools=[remember_payment, book])
    runner = Runner(
        agent=agent,
        app_name=app_name,
        session_service=sessions,
        plugins=[UserMessageRedactionPlugin()],
    )
    session = await sessions.create_session(app_name=app_name, user_id="u1")
    message = types.Content(role="user", parts=[types.Part(text="book it with my card")])
    async for _ in runner.run_async(user_id="u1", session_id=session.id, new_message=message):
        pass
    await runner.close()

    assert used == [CARD]  # the tool of the same invocation had it (temp: is left as it is)
    stored = await sessions.get_session(app_name=app_name, user_id="u1", session_id=session.id)
    assert stored.state["payment_card"] == "[REDACTED:payment_card]"
    assert stored.state["seat"] == "14C"  # nothing else changes
    adk = await table_texts(db_url, include_adk=True, app=app_name)
    assert not any(CARD.replace(" ", "") in b.replace(" ", "") for b in adk.values())
