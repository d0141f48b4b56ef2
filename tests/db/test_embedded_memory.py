"""A new embedded server's shared_buffers: sized for search, overridable, safe to get wrong."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from adk_memory_kit.db.embedded import SHARED_BUFFERS_ENV, shared_buffers_setting
from adk_memory_kit.errors import InvalidInputError

pytestmark = pytest.mark.slow

# Starts the embedded server in a new home, prints shared_buffers, twice (the second start
# finds the folder already made), then exits normally (the server stops with it).
SHOW = """
import psycopg
from sqlalchemy.engine import make_url
from adk_memory_kit import embedded_db_url
url = make_url(embedded_db_url())
with psycopg.connect(host=url.query["host"], port=int(url.query["port"]), user="postgres",
                     dbname="postgres") as conn:
    print(conn.execute("SHOW shared_buffers").fetchone()[0], flush=True)
"""


def _show(home, value=None):
    env = {**os.environ, "ADK_MEMORY_KIT_HOME": str(home)}
    env.pop("ADK_MEMORY_KIT_DB_URL", None)
    env.pop(SHARED_BUFFERS_ENV, None)
    if value is not None:
        env[SHARED_BUFFERS_ENV] = value
    return subprocess.run(
        [sys.executable, "-c", SHOW], env=env, capture_output=True, text=True, timeout=180
    )


def _pg(setting: str | None) -> str:
    """The value PostgreSQL shows for a setting in MB (None: its default)."""
    if setting is None:
        return "128MB"
    number, unit = int(setting[:-2]), setting[-2:]
    megabytes = {"kB": number / 1024, "MB": number, "GB": number * 1024}[unit]
    return f"{int(megabytes // 1024)}GB" if megabytes % 1024 == 0 else f"{int(megabytes)}MB"


def test_a_new_server_gets_the_sized_setting_and_keeps_it(tmp_path, monkeypatch):
    monkeypatch.delenv(SHARED_BUFFERS_ENV, raising=False)
    expected = _pg(shared_buffers_setting())
    first = _show(tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == expected
    # an existing folder is never changed: an explicit value given later is not applied
    again = _show(tmp_path, "256MB")
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == expected


@pytest.mark.parametrize(("value", "shown"), [("300MB", "300MB"), ("default", "128MB")])
def test_the_environment_variable_decides(tmp_path, value, shown):
    done = _show(tmp_path, value)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == shown


def test_a_size_the_machine_cannot_give_falls_back_to_the_default(tmp_path):
    done = _show(tmp_path, "4000GB")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "128MB"
    assert "did not restart with shared_buffers=4000GB" in done.stderr


@pytest.mark.parametrize("bad", ["lots", "512", "0MB", "1 GB", "512mb"])
def test_a_bad_value_is_refused_before_anything_starts(tmp_path, monkeypatch, bad):
    monkeypatch.setenv(SHARED_BUFFERS_ENV, bad)
    with pytest.raises(InvalidInputError, match=SHARED_BUFFERS_ENV):
        shared_buffers_setting()
    done = _show(tmp_path, bad)
    assert done.returncode != 0 and SHARED_BUFFERS_ENV in done.stderr
    assert not (tmp_path / "pgdata").exists()
