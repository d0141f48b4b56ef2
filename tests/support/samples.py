"""Helpers for the sample-agent tests: copy an agent folder alone, run ADK's CLI offline."""

from __future__ import annotations

import os
import shutil
import socket
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
AGENTS_DIR = REPO / "agents"
AGENT_NAMES = ("research_assistant", "rebooker", "concierge")
OFFLINE = "[offline scripted model]"
MODEL_ENV_VARS = ("GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "ADK_MEMORY_KIT_MODEL")
ADK = str(Path(sys.executable).parent / "adk")

FIRST_TURN = {
    "research_assistant": "EV charging market in Europe",
    "rebooker": "My Friday flight SFO to JFK was cancelled. Please rebook me: no red-eye, and I "
    "want an aisle seat.",
    "concierge": "I'm vegetarian, and please always deliver to the Pune office reception.",
}


def copy_agent_alone(name: str, into: Path) -> Path:
    """``agents/<name>/`` copied into the empty folder ``into`` (nothing else from the repo)."""
    into.mkdir(parents=True, exist_ok=False)
    shutil.copytree(
        AGENTS_DIR / name, into / name, ignore=shutil.ignore_patterns(".adk", "__pycache__", ".env")
    )
    return into / name


def offline_env() -> dict[str, str]:
    """This process's environment without model access and without .env loading.

    The kit comes from this checkout (``PYTHONPATH``), as an installed kit would; the database
    is the test session's (``ADK_MEMORY_KIT_HOME`` set by ``tests/conftest.py``).
    """
    env = {k: v for k, v in os.environ.items() if k not in MODEL_ENV_VARS}
    env["ADK_DISABLE_LOAD_DOTENV"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
