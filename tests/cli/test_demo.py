"""``adk-memory-kit demo`` runs end to end offline and shows every memory home."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it


def _run_demo(home) -> str:
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in {
            "GOOGLE_API_KEY",
            "ADK_MEMORY_KIT_MODEL",
            "GOOGLE_GENAI_USE_VERTEXAI",
            "ADK_MEMORY_KIT_DB_URL",
        }
    }
    env["ADK_MEMORY_KIT_HOME"] = str(home)
    exe = shutil.which("adk-memory-kit", path=os.path.dirname(sys.executable))
    command = [exe, "demo"] if exe else [sys.executable, "-m", "adk_memory_kit.cli", "demo"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def _search(home, query: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "ADK_MEMORY_KIT_DB_URL"}
    env["ADK_MEMORY_KIT_HOME"] = str(home)
    command = [
        sys.executable,
        "-m",
        "adk_memory_kit.cli",
        "search",
        "--app",
        "concierge",
        "--user",
        "user-17",
        query,
    ]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return [line.strip() for line in done.stdout.splitlines() if line.strip()]


def test_demo_runs_offline_and_names_every_memory_home(tmp_path):
    out = _run_demo(tmp_path)
    assert "NO API KEY FOUND" in out and "scripted offline model" in out
    for home in (
        "USER_STATE",
        "SESSION_STATE",
        "TURN_SCRATCH",
        "LONG_TERM",
        "PROCEDURAL_REVIEW",
        "DROP",
        "WORKING_MEMORY",
        "IN-CONTEXT",
    ):
        assert re.search(rf"^\s+{home}\b", out, re.MULTILINE), f"{home} missing from the table"
    # Monday -> Thursday: the diet by key, the delivery address by search into working memory
    assert "user:pref_diet = 'vegetarian'" in out
    assert "delivery_address = Pune office reception [load_memory]" in out
    # the card number appears once: where the user typed it; the dropped turn is not stored
    assert out.count("4111 1111 1111 1111") == 1 and "REDACTED" not in out
    assert "search 'my card' finds 0 memories holding it" in out
    assert "review queue #" in out and "(pending)" in out
    # the Runner wrote no transcript, only the router's dated facts (delivery, restaurant)
    assert "long-term memory after Monday: 2 facts" in out
    # the kit's bookkeeping state keys and raw count dicts are not shown to a new user
    assert "_adk_memory_kit" not in out and "{'fact'" not in out
    assert not re.search(r"\b1 memories\b|\b[02-9] memory\b", out)
    assert re.search(r"^.*3\. Trace and cost of this run", out, re.MULTILINE)
    assert "idle job: considered 1, ingested 1, failed 0" in out
    # pruning: the last research turn is far smaller
    last = re.search(r"last turn ([\d,]+) -> ([\d,]+) tokens", out)
    before, after = (int(x.replace(",", "")) for x in last.groups())
    assert after < 0.4 * before

    # the summary's long-term lines are what `adk-memory-kit search` finds afterwards
    summary = out.split("LONG_TERM, everything searchable now", 1)[1].split("\n-- ", 1)[0]
    shown = [line.strip() for line in summary.splitlines()[1:] if line.strip()]
    searched = _search(tmp_path, "delivery address")
    assert shown == searched and len(shown) >= 3
    assert "deliver to the Pune office reception" in shown[2]  # the top result
    assert not any(w in line.lower() for line in shown for w in ("noted", "card", "confirm"))

    again = _run_demo(tmp_path)  # a re-run starts the story clean (forget) and ends the same
    line = re.compile(r"LONG_TERM \(after idle job\)\s+(.*)")
    assert line.search(again).group(1) == line.search(out).group(1)
