"""The embedded server's life cycle: reuse, a killed user, ``adk-memory-kit db``."""

from __future__ import annotations

import os
import subprocess
import sys

START_AND_DIE = (
    "import os, signal\n"
    "from adk_memory_kit import embedded_db_url\n"
    "print(embedded_db_url(), flush=True)\n"
    "os.kill(os.getpid(), signal.SIGKILL)\n"  # no atexit: the server is left running
)


def _cli(home, *args):
    env = {**os.environ, "ADK_MEMORY_KIT_HOME": str(home)}
    env.pop("ADK_MEMORY_KIT_DB_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "adk_memory_kit.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_killed_process_does_not_keep_the_server_running_forever(tmp_path):
    env = {**os.environ, "ADK_MEMORY_KIT_HOME": str(tmp_path)}
    env.pop("ADK_MEMORY_KIT_DB_URL", None)
    subprocess.run([sys.executable, "-c", START_AND_DIE], env=env, timeout=120)
    assert "running" in _cli(tmp_path, "db", "status").stdout
    # the next user of the server exits normally: the dead handle is forgotten and it stops
    assert _cli(tmp_path, "db", "url").stdout.startswith("postgresql+psycopg://")
    assert "stopped" in _cli(tmp_path, "db", "status").stdout


def test_db_stop_stops_a_server_left_running(tmp_path):
    env = {**os.environ, "ADK_MEMORY_KIT_HOME": str(tmp_path)}
    env.pop("ADK_MEMORY_KIT_DB_URL", None)
    subprocess.run([sys.executable, "-c", START_AND_DIE], env=env, timeout=120)
    assert "running" in _cli(tmp_path, "db", "status").stdout
    stop = _cli(tmp_path, "db", "stop")
    assert stop.returncode == 0 and "stopped" in stop.stdout
    assert "stopped" in _cli(tmp_path, "db", "status").stdout
    assert "not running" in _cli(tmp_path, "db", "stop").stdout
