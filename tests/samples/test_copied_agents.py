"""Each ``agents/<name>/`` copied alone into an empty folder runs as ``adk web`` runs it.

In process: ADK's own loader (``NestedAgentLoader``, what ``adk web`` uses) loads the copy,
and one README turn runs through a ``Runner`` on the kit's ``pgvector://`` services. As a
server: ``adk web <folder>`` in a subprocess lists the app and answers one ``/run`` request.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from google.adk.apps import App
from google.adk.cli.utils._nested_agent_loader import NestedAgentLoader  # what `adk web` uses
from google.adk.cli.utils.service_factory import (
    create_memory_service_from_options,
    create_session_service_from_options,
)
from google.adk.runners import Runner
from google.genai import types

from adk_memory_kit import PgVectorMemoryService, register_pgvector_services
from tests.support.samples import (
    ADK,
    AGENT_NAMES,
    AGENTS_DIR,
    FIRST_TURN,
    MODEL_ENV_VARS,
    OFFLINE,
    REPO,
    copy_agent_alone,
    free_port,
    offline_env,
)

pytestmark = pytest.mark.slow

AGENT_NAMES_SORTED = sorted(AGENT_NAMES)


@pytest.fixture
def fresh_modules(monkeypatch: pytest.MonkeyPatch):
    """Agent packages imported by a test are dropped afterwards (the copies share names)."""
    for name in MODEL_ENV_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ADK_DISABLE_LOAD_DOTENV", "1")
    before = set(sys.modules)
    for name in AGENT_NAMES:
        for module in [m for m in sys.modules if m.split(".")[0] == name]:
            monkeypatch.delitem(sys.modules, module)
    yield
    for module in set(sys.modules) - before:
        if module.split(".")[0] in AGENT_NAMES:
            del sys.modules[module]


@pytest.mark.parametrize("name", AGENT_NAMES)
async def test_copied_agent_loads_and_answers_on_pgvector_services(
    name, tmp_path, fresh_modules, monkeypatch, db_url
):
    folder = tmp_path / "my_agents"
    copy_agent_alone(name, folder)
    monkeypatch.syspath_prepend(str(folder))
    loaded = NestedAgentLoader(str(folder)).load_agent(name)
    assert Path(sys.modules[f"{name}.agent"].__file__).parent == folder / name  # the copy
    app = loaded if isinstance(loaded, App) else App(name=name, root_agent=loaded)

    register_pgvector_services()  # what agents/services.py does for `adk web`
    uri = "pgvector://" + db_url.split("://", 1)[1]
    sessions = create_session_service_from_options(base_dir=folder, session_service_uri=uri)
    memory = create_memory_service_from_options(base_dir=folder, memory_service_uri=uri)
    assert isinstance(memory, PgVectorMemoryService)
    runner = Runner(app=app, session_service=sessions, memory_service=memory)
    try:
        session = await sessions.create_session(app_name=name, user_id="user")
        message = types.Content(role="user", parts=[types.Part(text=FIRST_TURN[name])])
        texts, calls = [], []
        async for event in runner.run_async(
            user_id="user", session_id=session.id, new_message=message
        ):
            calls += [c.name for c in event.get_function_calls()]
            if event.is_final_response() and event.content:
                texts += [p.text for p in event.content.parts or [] if p.text]
    finally:
        await runner.close()
        await memory.close()
        await sessions.close()
    assert texts and texts[-1].startswith(OFFLINE)
    assert calls  # every README first turn calls a tool


def _wait_for_server(base: str, server: subprocess.Popen, limit_s: float = 120) -> list[str]:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"adk web exited with {server.returncode}")
        try:
            return httpx.get(f"{base}/list-apps", timeout=5).json()
        except httpx.TransportError:
            time.sleep(0.5)
    raise AssertionError("adk web did not answer /list-apps in time")


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_copied_agent_serves_under_adk_web(name, tmp_path):
    folder = tmp_path / "my_agents"
    copy_agent_alone(name, folder)
    port = free_port()
    log = (tmp_path / "adk_web.log").open("w")
    server = subprocess.Popen(
        [ADK, "web", str(folder), "--host", "127.0.0.1", "--port", str(port)],
        env=offline_env(),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        assert _wait_for_server(base, server) == [name]
        created = httpx.post(f"{base}/apps/{name}/users/user/sessions", json={}, timeout=60)
        created.raise_for_status()
        message = {"role": "user", "parts": [{"text": FIRST_TURN[name]}]}
        body = {"appName": name, "userId": "user", "sessionId": created.json()["id"]}
        run = httpx.post(f"{base}/run", json={**body, "newMessage": message}, timeout=180)
        run.raise_for_status()
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
    events = run.json()
    texts = [p.get("text") for e in events for p in (e.get("content") or {}).get("parts", [])]
    assert any(t and t.startswith(OFFLINE) for t in texts), (tmp_path / "adk_web.log").read_text()
    calls = [
        p["functionCall"]["name"]
        for e in events
        for p in (e.get("content") or {}).get("parts", [])
        if p.get("functionCall")
    ]
    assert calls


def test_deploy_main_serves_the_agents_on_pgvector_services(tmp_path):
    """``docs/deploy/main.py`` (the Cloud Run entry point) registers the scheme and serves.

    The agents folder is a copy without ``services.py`` (as in an ``adk deploy`` image), so
    ``pgvector://`` resolves only because ``main.py`` registers it.
    """
    folder = tmp_path / "agents"
    for name in AGENT_NAMES:
        shutil.copytree(AGENTS_DIR / name, folder / name, ignore=shutil.ignore_patterns(".adk"))
    assert not (folder / "services.py").exists()
    port = free_port()
    env = {**offline_env(), "PORT": str(port), "AGENTS_DIR": str(folder)}
    log = (tmp_path / "main.log").open("w")
    server = subprocess.Popen(
        [sys.executable, str(REPO / "docs" / "deploy" / "main.py")],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        assert _wait_for_server(base, server) == list(AGENT_NAMES_SORTED)
        created = httpx.post(f"{base}/apps/rebooker/users/u1/sessions", json={}, timeout=60)
        created.raise_for_status()
        message = {"role": "user", "parts": [{"text": FIRST_TURN["rebooker"]}]}
        body = {"appName": "rebooker", "userId": "u1", "sessionId": created.json()["id"]}
        run = httpx.post(f"{base}/run", json={**body, "newMessage": message}, timeout=180)
        run.raise_for_status()
        stored = httpx.get(f"{base}/apps/rebooker/users/u1/sessions/{body['sessionId']}")
        stored.raise_for_status()
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()
    assert stored.json()["state"]["wm"]["constraints"] == ["no red-eye", "aisle seat"]
