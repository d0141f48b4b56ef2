"""The server killed (SIGKILL) under every memory method, a console request and the
episodic writer: each caller sees a kit error or its answer (the kit reconnects), never a
raw SQLAlchemy / psycopg error, and the console answers its documented 503; a Runner turn
with ``EpisodicLogPlugin`` ends normally while the log's server is dead. Real embedded
server (a dedicated one), real embedder, real ADK Runner.
"""

from __future__ import annotations

# ruff: noqa: F811 - the fault fixtures are imported from test_fault_injection
import logging
import uuid
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.runners import Runner
from google.adk.sessions.in_memory_session_service import InMemorySessionService
from google.genai import types

from adk_memory_kit.console import create_app
from adk_memory_kit.episodic import EpisodicLog, EpisodicLogPlugin
from adk_memory_kit.errors import MemoryKitError
from adk_memory_kit.testing import ScriptedLlm
from tests.faults.test_fault_injection import (  # noqa: F401 - fixtures
    assert_clean,
    assert_logs_clean,
    fault_server,
    killed_before_statement,
    services,
    words,
)

pytestmark = pytest.mark.slow


def fact(text: str) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=text)]))


async def seeded(memory, secret: list[str]) -> tuple[str, str]:
    """(app, memory id) of one stored fact holding ``secret[0]``."""
    app = f"fd_{uuid.uuid4().hex[:8]}"
    await memory.add_memory(
        app_name=app, user_id="ann", memories=[fact(f"ann's shelf label {secret[0]}")]
    )
    found = await memory.search(app_name=app, user_id="ann", query=secret[0], record_access=False)
    return app, found.memories[0].id


CALLS = {
    "search": lambda m, app, mid, s: m.search(app_name=app, user_id="ann", query=s[1]),
    "search_memory": lambda m, app, mid, s: m.search_memory(
        app_name=app, user_id="ann", query=s[1]
    ),
    "correct_memory": lambda m, app, mid, s: m.curator.correct_memory(
        app_name=app, user_id="ann", memory_id=mid, new_text=f"shelf label {s[1]}", reason="moved"
    ),
    "pin_memory": lambda m, app, mid, s: m.curator.pin_memory(
        app_name=app, user_id="ann", memory_id=mid, reason="keep"
    ),
    "purge_stale": lambda m, app, mid, s: m.curator.purge_stale(
        app, older_than=timedelta(days=1), max_importance=1.0
    ),
    "add_memory": lambda m, app, mid, s: m.add_memory(
        app_name=app, user_id="ann", memories=[fact(f"ann likes {s[1]}")]
    ),
    "delete_memory": lambda m, app, mid, s: m.delete_memory(
        app_name=app, user_id="ann", memory_id=mid
    ),
    "count_memories": lambda m, app, mid, s: m.count_memories(app_name=app, user_id="ann"),
    "list_users": lambda m, app, mid, s: m.list_users(app),
    "delete_user_memories": lambda m, app, mid, s: m.delete_user_memories(
        app_name=app, user_id="ann"
    ),
    "purge_expired": lambda m, app, mid, s: m.purge_expired(),
}


@pytest.mark.parametrize("method", sorted(CALLS))
async def test_killed_under_each_memory_method(method, fault_server, services, caplog):
    caplog.set_level(logging.DEBUG, logger="adk_memory_kit")
    _, pgdata = fault_server
    _, memory, _ = services
    secret = words(2)
    app, mid = await seeded(memory, secret)
    with killed_before_statement(memory.engine, pgdata, "adk_memory_items") as killed:
        try:
            await CALLS[method](memory, app, mid, secret)
        except MemoryKitError as exc:
            assert_clean(exc, secret)
        # anything else (a raw OperationalError) fails the test here
    assert killed, "the server was not killed under the call"
    # the same service answers afterwards
    assert isinstance(await memory.count_memories(app_name=app, user_id="ann"), dict)
    assert_logs_clean(caplog, secret)


async def test_killed_under_flush_access(fault_server, services, caplog):
    caplog.set_level(logging.DEBUG, logger="adk_memory_kit")
    _, pgdata = fault_server
    _, memory, _ = services
    secret = words(2)
    app, _ = await seeded(memory, secret)
    await memory.search(app_name=app, user_id="ann", query=secret[0])  # queues an access
    with killed_before_statement(memory.engine, pgdata, "adk_memory_items") as killed:
        try:
            await memory.flush_access()
        except MemoryKitError as exc:
            assert_clean(exc, secret)
    assert killed
    assert_logs_clean(caplog, secret)


def test_killed_under_a_console_get_answers_503(fault_server, services, embedder):
    url, pgdata = fault_server
    _, memory, _ = services
    app = create_app(url, embedder=embedder, memory_service=memory, episodic_log=False)
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=True) as client:
        name = f"fd_{uuid.uuid4().hex[:8]}"
        client.portal.call(
            lambda: memory.add_memory(app_name=name, user_id="bo", memories=[fact("bo's note")])
        )
        assert client.get(f"/api/apps/{name}/users/bo/memories").status_code == 200
        answered = []
        for path, marker in (
            (f"/api/apps/{name}/users/bo/memories?q=note", "adk_memory_items"),
            (f"/apps/{name}/users/bo?q=note", "adk_memory_items"),
            (f"/api/apps/{name}/users", "adk_memory_items"),
        ):
            with killed_before_statement(memory.engine, pgdata, marker) as killed:
                response = client.get(path)
            assert killed, path
            # 200: the kit reconnected (restarting the server) in time; else the 503
            assert response.status_code in (200, 503), (path, response.status_code)
            if response.status_code == 503:
                assert "database is unavailable" in response.text
            answered.append(response.status_code)
        assert 503 in answered  # at least one request met the dead server
        client.portal.call(app.state.console.close)


async def test_a_runner_turn_with_the_episodic_log_survives_a_dead_server(fault_server, caplog):
    caplog.set_level(logging.DEBUG, logger="adk_memory_kit")
    url, pgdata = fault_server
    log = EpisodicLog(url)
    plugin = EpisodicLogPlugin(log, flush_after_run=True)
    agent = LlmAgent(name="helper", model=ScriptedLlm(responder=lambda _: "noted"))
    sessions = InMemorySessionService()
    app = App(name="fd_ep", root_agent=agent, plugins=[plugin])
    runner = Runner(app=app, session_service=sessions)
    secret = words(2)
    try:
        session = await sessions.create_session(app_name="fd_ep", user_id="cy")

        async def turn(text: str) -> list[str]:
            replies = []
            async for event in runner.run_async(
                user_id="cy",
                session_id=session.id,
                new_message=types.Content(role="user", parts=[types.Part(text=text)]),
            ):
                if event.content and event.content.parts and event.content.parts[0].text:
                    replies.append(event.content.parts[0].text)
            return replies

        assert await turn("hello") == ["noted"]
        await log.flush()
        before = await log.count_for_user("fd_ep", "cy")
        with killed_before_statement(log.engine, pgdata, "INSERT") as killed:
            assert await turn(f"my code is {secret[0]}") == ["noted"]  # the turn ends normally
            await log.flush()
        assert killed
        assert plugin.callback_errors == 0
        # the log recovers on its own afterwards
        assert await turn("again") == ["noted"]
        await log.flush()
        assert await log.count_for_user("fd_ep", "cy") > before
        assert_logs_clean(caplog, secret)
    finally:
        await runner.close()
        await log.close()
