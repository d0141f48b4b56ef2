"""``adk-memory-kit demo`` runs end to end offline and shows every memory home."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys


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
    # the card number appears once: where the user typed it; stored and recalled text is redacted
    assert out.count("4111 1111 1111 1111") == 1 and "[REDACTED:payment_card]" in out
    assert "review queue #" in out and "(pending)" in out
    # the Runner wrote no transcript; the idle job did
    assert "long-term memory after Monday: {'fact': 1}" in out
    assert "idle job: considered 1, ingested 1, failed 0" in out
    # pruning: the last research turn is far smaller
    last = re.search(r"last turn ([\d,]+) -> ([\d,]+) tokens", out)
    before, after = (int(x.replace(",", "")) for x in last.groups())
    assert after < 0.4 * before

    again = _run_demo(tmp_path)  # a re-run starts the story clean (forget) and ends the same
    line = re.compile(r"LONG_TERM \(after idle job\)\s+(.*)")
    assert line.search(again).group(1) == line.search(out).group(1)
