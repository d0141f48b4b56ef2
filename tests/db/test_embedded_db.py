"""The embedded server's life cycle: reuse, a killed user, ``adk-memory-kit db``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it

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
    # without its watcher (db/reaper.py, which would stop the server at once: see
    # tests/db/test_clean_exit.py), as when the watcher dies with the process (a container)
    env["ADK_MEMORY_KIT_NO_REAPER"] = "1"
    subprocess.run([sys.executable, "-c", START_AND_DIE], env=env, timeout=120)
    assert "running" in _cli(tmp_path, "db", "status").stdout
    # the next user of the server exits normally: the dead handle is forgotten and it stops
    reuse = "from adk_memory_kit import embedded_db_url\nprint(embedded_db_url())\n"
    done = subprocess.run(
        [sys.executable, "-c", reuse], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.stdout.startswith("postgresql+psycopg://")
    assert "stopped" in _cli(tmp_path, "db", "status").stdout


@pytest.fixture
def kill_leftover_server(tmp_path):
    """Whatever the test does, no server it started outlives it."""
    yield tmp_path
    pid_file = tmp_path / "home" / "pgdata" / "postmaster.pid"
    try:
        pid = int(pid_file.read_text().splitlines()[0])
        os.kill(pid, signal.SIGKILL)
    except (OSError, ValueError, IndexError):
        pass


def test_db_stop_stops_a_server_left_running(kill_leftover_server):
    outer = kill_leftover_server
    home = outer / "home"
    env = {**os.environ, "ADK_MEMORY_KIT_HOME": str(home)}
    env.pop("ADK_MEMORY_KIT_DB_URL", None)
    env["ADK_MEMORY_KIT_NO_REAPER"] = "1"  # a server left running: no watcher stops it
    subprocess.run([sys.executable, "-c", START_AND_DIE], env=env, timeout=120)
    assert "running" in _cli(home, "db", "status").stdout
    # as pytest does to /tmp/pytest-of-root at each session start: a folder above the data
    # is closed to others after the server started (as root, pg_ctl runs as another user)
    outer.chmod(0o700)
    tmp_path = home
    stop = _cli(tmp_path, "db", "stop")
    assert stop.returncode == 0 and "stopped" in stop.stdout
    assert "stopped" in _cli(tmp_path, "db", "status").stdout
    assert "not running" in _cli(tmp_path, "db", "stop").stdout


CONNECT = (
    "import sys\n"
    "import psycopg\n"
    "url = sys.argv[1].replace('postgresql+psycopg://', 'postgresql://')\n"
    "with psycopg.connect(url) as conn:\n"
    "    print(conn.execute('SELECT 41 + 1').fetchone()[0])\n"
)


def test_db_url_leaves_the_server_running_for_other_processes(kill_leftover_server):
    home = kill_leftover_server / "home"
    url = _cli(home, "db", "url")
    assert url.returncode == 0, url.stderr[-2000:]
    assert url.stdout.startswith("postgresql+psycopg://")
    # the `db url` process has exited; the server it started is still there for others
    assert "running" in _cli(home, "db", "status").stdout
    env = {**os.environ, "ADK_MEMORY_KIT_HOME": str(home)}
    env.pop("ADK_MEMORY_KIT_DB_URL", None)
    connect = subprocess.run(
        [sys.executable, "-c", CONNECT, url.stdout.strip()],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert connect.stdout.strip() == "42", connect.stderr[-2000:]
    # another user of the server coming and going does not stop it either
    reuse = "from adk_memory_kit import embedded_db_url\nprint(embedded_db_url())\n"
    subprocess.run([sys.executable, "-c", reuse], env=env, timeout=120, check=True)
    assert "running" in _cli(home, "db", "status").stdout
    stop = _cli(home, "db", "stop")
    assert stop.returncode == 0 and "stopped" in stop.stdout
    assert "stopped" in _cli(home, "db", "status").stdout


def test_db_url_help_says_the_server_stays_up(tmp_path):
    help_text = " ".join(_cli(tmp_path, "db", "--help").stdout.split())
    assert "leave it running after this command exits, until `adk-memory-kit db stop`" in help_text
