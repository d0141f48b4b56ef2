"""The ``adk-memory-kit`` command line: its commands and its one-line errors."""

from __future__ import annotations

import pytest

from adk_memory_kit.cli import build_parser, main
from adk_memory_kit.db.rls import operator_begin

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it


def test_every_command_is_registered():
    commands = build_parser()._subparsers._group_actions[0].choices  # argparse's subparsers
    assert {
        "demo",
        "search",
        "purge-expired",
        "purge-stale",
        "ingest-idle",
        "forget",
        "review",
        "db",
    } <= set(commands)


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "demo" in capsys.readouterr().out


def test_a_bad_database_url_is_one_clear_line(capsys):
    assert main(["--db-url", "mysql://x/y", "search", "--app", "a", "--user", "u", "q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unsupported database URL scheme 'mysql'")
    assert "Traceback" not in err and err.count("\n") == 1


def test_an_unreachable_server_is_one_clear_line(capsys):
    url = "postgresql+psycopg://nobody@127.0.0.1:1/db"
    assert main(["--db-url", url, "search", "--app", "a", "--user", "u", "q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "database" in err and "Traceback" not in err


@pytest.mark.usefixtures("db_url")
def test_search_prints_what_it_found(db_url, capsys):
    assert main(["--db-url", db_url, "search", "--app", "cli-empty", "--user", "u", "x"]) == 0
    assert "no memories found" in capsys.readouterr().out


@pytest.mark.usefixtures("db_url")
def test_ingest_idle_once_without_pgvector_is_one_error_line_and_exit_2(db_url, capsys):
    import uuid

    from sqlalchemy import create_engine, text
    from sqlalchemy.engine import make_url

    name = f"novector_{uuid.uuid4().hex[:8]}"
    admin = create_engine(db_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f"CREATE ROLE {name} LOGIN NOSUPERUSER"))
            conn.execute(text(f"CREATE DATABASE {name} OWNER {name}"))
        url = make_url(db_url).set(username=name, database=name)
        argv = ["--db-url", url.render_as_string(hide_password=False)]
        assert main([*argv, "ingest-idle", "--app", "a", "--once"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1
        assert "pgvector extension is not available" in err and "Traceback" not in err
    finally:
        with admin.connect() as conn:
            conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            conn.execute(text(f"DROP ROLE IF EXISTS {name}"))
        admin.dispose()


async def test_the_unreachable_hint_suggests_the_embedded_default_only_when_a_url_was_given(
    monkeypatch,
):
    from adk_memory_kit.assembly import PgVectorMemoryService
    from adk_memory_kit.errors import DatabaseUnavailableError

    class Tiny:
        model_id, dim = "tiny", 2

        async def embed(self, texts):
            return [[0.0, 1.0] for _ in texts]

    monkeypatch.delenv("ADK_MEMORY_KIT_DB_URL", raising=False)
    service = PgVectorMemoryService("postgresql+psycopg://nobody@127.0.0.1:1/db", embedder=Tiny())
    try:
        with pytest.raises(DatabaseUnavailableError, match="pass no URL") as raised:
            await service.ready()
        assert raised.value.transient
    finally:
        await service.close()

    from adk_memory_kit.db.engine import make_engine
    from adk_memory_kit.memory.store import _check_reachable

    engine = make_engine("postgresql+psycopg://nobody@127.0.0.1:1/db")
    try:
        with pytest.raises(DatabaseUnavailableError) as raised:
            await _check_reachable(engine, url_given=False)  # the embedded server failed
        assert "pass no URL" not in str(raised.value)
        assert "pgdata" in str(raised.value) and "log" in str(raised.value)
    finally:
        await engine.dispose()


def test_purge_stale_dry_run_lists_and_keeps(db_url, capsys):
    import asyncio

    from google.adk.memory.memory_entry import MemoryEntry
    from google.genai import types
    from sqlalchemy import text

    from adk_memory_kit import PgVectorMemoryService

    async def seed() -> None:
        async with PgVectorMemoryService(db_url) as memory:
            await memory.add_memory(
                app_name="cli-stale",
                user_id="u",
                memories=[
                    MemoryEntry(content=types.Content(parts=[types.Part(text="Old trivia")]))
                ],
            )
            async with operator_begin(memory.engine) as conn:
                await conn.execute(
                    text(
                        "UPDATE adk_memory_items SET recorded_at = now() - interval '200 days'"
                        " WHERE app_name = 'cli-stale' AND user_id = 'u'"
                    )
                )

    asyncio.run(seed())
    args = ["--db-url", db_url, "purge-stale", "--app", "cli-stale", "--days", "90"]
    assert main([*args, "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would remove 1 memory of cli-stale" in out and "Old trivia" not in out
    assert main(args) == 0
    assert "removed 1 memory of cli-stale" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--days", "-1", "argument --days: must be a positive number of days"),
        ("--days", "0", "argument --days: must be a positive number of days"),
        ("--days", "nan", "argument --days: must be a positive number of days"),
        ("--days", "1e300", "argument --days: must be a positive number of days"),
        ("--max-importance", "1.5", "argument --max-importance: must be a number from 0 to 1"),
        ("--max-importance", "x", "argument --max-importance: must be a number from 0 to 1"),
    ],
)
def test_purge_stale_names_the_bad_option(option, value, says, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["purge-stale", "--app", "a", option, value])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert says in err and "timedelta" not in err


def test_purge_stale_help_shows_the_defaults(capsys):
    with pytest.raises(SystemExit):
        main(["purge-stale", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "(default: 90.0)" in out and "(default: 0.7)" in out


def test_search_results_say_one_memory():
    from google.adk.memory.memory_entry import MemoryEntry
    from google.genai import types

    from adk_memory_kit.recall.framing import format_search_results

    entry = MemoryEntry(content=types.Content(parts=[types.Part(text="x")]), custom_metadata={})
    assert format_search_results([entry], app="a", user="u")[0].startswith("1 memory of u in a")
    two = format_search_results([entry, entry], app="a", user="u")
    assert two[0].startswith("2 memories of u in a")


def test_a_closed_stdout_is_not_a_database_fault(tmp_path):
    """``adk-memory-kit db status | head -0``: the reader is gone before the first write."""
    import os
    import subprocess
    import sys

    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader went away, as `head` does after its lines
    env = {**os.environ, "ADK_MEMORY_KIT_HOME": str(tmp_path)}
    env.pop("ADK_MEMORY_KIT_DB_URL", None)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "adk_memory_kit.cli", "db", "status"],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert done.returncode == 1 and done.stderr == "", done.stderr[-2000:]
