"""Clean exits: SIGTERM / SIGINT / SIGKILL to a process that started the embedded server stops the
server, unless another live process still uses it. Real subprocesses, real servers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adk_memory_kit.db import embedded

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
# The child starts (or joins) the embedded server in HOME, prints its postmaster pid, and
# waits; SIGTERM keeps Python's default action (no atexit), SIGINT its KeyboardInterrupt.
CHILD = """
import signal, sys, time
# a Ctrl-C reaches the child as KeyboardInterrupt even when the test runs in the background,
# where the shell starts every process with SIGINT ignored (which Python would keep)
signal.signal(signal.SIGINT, signal.default_int_handler)
from adk_memory_kit.db import embedded
embedded.embedded_db_url(sys.argv[1])
pid = embedded._lock_file_pid(embedded.Path(sys.argv[1]).resolve() / "pgdata" / "postmaster.pid")
print(pid, flush=True)
while True:
    time.sleep(0.2)
"""


def start_child(home: Path) -> tuple[subprocess.Popen, int]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("ADK_MEMORY_KIT_NO_REAPER", None)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(home)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    line = child.stdout.readline()
    assert line.strip().isdigit(), "the child did not start the server"
    return child, int(line)


def wait_until(check, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return check()


# docs/getting-started.md promises all three: "however it ends ... even SIGKILL"
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_signal_stops_the_server_the_process_started(tmp_path, sig):
    home = tmp_path / "home"
    child, postmaster = start_child(home)
    assert embedded._running(postmaster)
    child.send_signal(sig)
    child.wait(timeout=30)
    assert wait_until(lambda: not embedded._running(postmaster)), "the server was left running"


def test_a_server_another_live_process_uses_keeps_running(tmp_path):
    home = tmp_path / "home"
    first, postmaster = start_child(home)
    second, same = start_child(home)
    assert same == postmaster  # the second joined the running server
    try:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=30)
        time.sleep(3)  # the watcher polls twice a second
        assert embedded._running(postmaster), "stopped while another process used it"
    finally:
        second.send_signal(signal.SIGTERM)
        second.wait(timeout=30)
    assert wait_until(lambda: not embedded._running(postmaster)), "the last user left it running"


# The child starts the embedded server, kills its postmaster, waits until it is gone, then
# exits normally (the wheel's atexit hook runs).
KILLS_ITS_SERVER = """
import os, signal, sys, time
from adk_memory_kit.db import embedded
embedded.embedded_db_url(sys.argv[1])
pid = embedded._lock_file_pid(embedded.Path(sys.argv[1]).resolve() / "pgdata" / "postmaster.pid")
os.kill(pid, signal.SIGKILL)
deadline = time.monotonic() + 30
while embedded._running(pid) and time.monotonic() < deadline:
    time.sleep(0.1)
print("killed", flush=True)
"""


def test_a_process_whose_server_was_killed_exits_quietly(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", KILLS_ITS_SERVER, str(tmp_path / "home")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    took = time.monotonic() - started
    assert done.returncode == 0 and done.stdout.strip() == "killed", done.stderr[-2000:]
    # no psutil.NoSuchProcess traceback from the wheel's exit hook, no failed pg_ctl stop
    assert "Traceback" not in done.stderr and "NoSuchProcess" not in done.stderr, done.stderr
    assert "Failed" not in done.stderr, done.stderr[-2000:]
    assert took < 45, f"exit waited {took:.0f} s for a dead server to shut down"
