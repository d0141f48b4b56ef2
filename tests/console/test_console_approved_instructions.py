"""Issue 46: procedural memory with a person in the loop, through the console. A standing
order said in a Runner turn waits in the review queue; approved in the console, the next
session's model request carries it; revoked in the console, the next one does not."""

from __future__ import annotations

import uuid

import pytest
from fastapi.testclient import TestClient
from google.adk.agents import LlmAgent
from google.genai import types

from adk_memory_kit import MemoryKit, PgVectorMemoryService
from adk_memory_kit.console import create_app
from adk_memory_kit.routing.approved_instructions import BLOCK_START
from adk_memory_kit.testing import ScriptedLlm

pytestmark = pytest.mark.slow

ORDER = "Never book red-eye flights without asking me."


async def test_approve_then_revoke_in_the_console_reaches_then_leaves_the_agent(db_url, embedder):
    app_name, user = f"proc_{uuid.uuid4().hex[:8]}", "ana"
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    kit = MemoryKit(db_url, memory_service=memory)
    llm = ScriptedLlm(responder=lambda request: "Noted.")
    runner = kit.runner(LlmAgent(name="travel", model=llm), app_name=app_name)

    async def turn(text: str) -> str:
        session = await kit.session_service.create_session(app_name=app_name, user_id=user)
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in runner.run_async(user_id=user, session_id=session.id, new_message=message):
            pass
        return str(llm.requests[-1].config.system_instruction or "")

    assert BLOCK_START not in await turn(ORDER)
    client = TestClient(
        create_app(db_url, embedder=embedder, operator="dana"), base_url="http://127.0.0.1"
    )
    with client:
        token = client.get("/api/csrf").json()["csrf_token"]
        (item,) = client.get("/api/review", params={"app": app_name}).json()["items"]
        assert item["text"] == ORDER and item["status"] == "pending"
        page = client.get(f"/review?app={app_name}").text
        assert 'value="approve"' in page and 'value="approve_app"' in page
        approved = client.post(
            f"/apps/{app_name}/users/{user}/review/{item['id']}",
            data={"csrf_token": token, "decision": "approve", "by": "erin"},
            follow_redirects=False,
        )
        assert approved.status_code == 303
        shown = await turn("Find me a flight to Lisbon on Friday.")
        assert BLOCK_START in shown and ORDER in shown and "by erin" in shown
        page = client.get(f"/review?app={app_name}&status=approved").text
        assert 'value="revoke"' in page and "for this user" in page
        revoked = client.post(
            f"/api/apps/{app_name}/users/{user}/review/{item['id']}",
            json={"decision": "revoke"},
            headers={"X-CSRF-Token": token},
        ).json()["item"]
        assert revoked["status"] == "revoked" and revoked["revoked_by"] == "dana"
    assert ORDER not in await turn("Find me a flight to Porto on Monday.")
    await runner.close()
    await kit.close()
    await memory.close()
