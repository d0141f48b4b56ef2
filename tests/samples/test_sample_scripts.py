"""Every script in ``samples/`` runs as ``samples/README.md`` shows, on the data of the others.

One temp ``ADK_MEMORY_KIT_HOME`` (its own embedded server), the README's order:
``wire_runner.py`` creates ``wire_demo`` / ``traveller-1``; ``run_idle_job.py`` ingests that
session; ``forget_user.py`` deletes everything of that user. The commands are read from
``samples/README.md`` itself, so the README and the scripts cannot drift apart.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.support.samples import REPO, offline_env

pytestmark = pytest.mark.slow

README = REPO / "samples" / "README.md"


def readme_commands() -> list[str]:
    """``python samples/...`` commands in the README's table, in order."""
    return re.findall(r"^\| `(python samples/[^`]+)` \|", README.read_text(), re.MULTILINE)


def run(command: str, home: str) -> str:
    env = offline_env()
    env.pop("ADK_MEMORY_KIT_DB_URL", None)
    env["ADK_MEMORY_KIT_HOME"] = home
    argv = [sys.executable, *command.split()[1:]]
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    return done.stdout


def test_readme_lists_every_script():
    scripts = {c.split()[1] for c in readme_commands()}
    assert scripts == {f"samples/{p.name}" for p in (REPO / "samples").glob("*.py")}


def test_samples_run_as_the_readme_shows_on_each_others_data():
    commands = [c for c in readme_commands() if "--once" in c or "run_idle_job" not in c]
    assert [c.split()[1] for c in commands] == [
        "samples/wire_runner.py",
        "samples/working_memory_agent.py",
        "samples/run_idle_job.py",
        "samples/forget_user.py",
        "samples/scoped_memory_agent.py",
    ]
    with tempfile.TemporaryDirectory(prefix="amk_s_") as home:  # short: the socket is in it
        out = run(commands[0], home)
        assert (Path(home) / "pgdata").is_dir()  # its own embedded server, under the tmp home
        assert "model: scripted-offline" in out
        assert "[assistant] calls web_search" in out and "[assistant] calls save_finding" in out
        assert "tool results pruned: 1;" in out
        assert "routing: seat -> user_state (stored)" in out
        assert "'user:pref_seat': 'aisle'" in out
        stored = re.search(r"^checkpoint: ingested, .*traveller-1: (\d+) ", out, re.MULTILINE)
        assert stored and int(stored.group(1)) >= 1
        # rows stored for the session (the routed policy's selection), never an event count;
        # the user has this one session; the router put the seat in user state and may keep a
        # lasting fact as its own dated row (the learned router does), so the user has at
        # least the session's rows
        session_rows = re.search(
            r"^checkpoint: .*: (\d+) memory rows stored for the session;", out, re.M
        )
        assert session_rows and int(session_rows.group(1)) <= int(stored.group(1))
        assert "events" not in session_rows.group(0)
        found = re.search(r"^memory search 'Lisbon hotels': (\d+) memories$", out, re.MULTILINE)
        assert found and int(found.group(1)) >= 1

        out = run(commands[1], home)
        assert "--- wm_view after the turn" in out and "QX7T2L" in out

        out = run(commands[2], home)  # the idle job, 0 minutes: wire_runner's session
        assert "considered 1, ingested 1, failed 0" in out
        rows = re.search(r"^ingested session \S+ of traveller-1: .* now (\d+) ", out, re.M)
        assert rows and int(rows.group(1)) == int(stored.group(1))  # an upsert: same rows

        out = run(commands[3], home)
        assert re.search(r"sessions deleted:\s+1", out)
        assert re.search(rf"memory items deleted:\s+{stored.group(1)}\b", out)
        assert out.rstrip().endswith("nothing left")

        again = run(commands[2], home)  # nothing left for the idle job either
        assert "considered 0, ingested 0, failed 0" in again

        out = run(commands[4], home)  # memory scopes: its own app
        concierge = out.split("concierge agent recalls:")[1].split("billing agent recalls:")[0]
        billing = out.split("billing agent recalls:")[1]
        assert "shared by the app" in concierge and "closed on Fridays" in concierge
        assert "PDF" not in concierge  # the billing agent's note is private to it
        assert "| private to this agent]" in billing and "PDF, sent to the finance" in billing
        assert "ADK search_memory (no agent) reads scopes: app" in out
