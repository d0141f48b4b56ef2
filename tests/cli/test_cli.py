"""The ``adk-memory-kit`` command line: its commands and its one-line errors."""

from __future__ import annotations

import pytest

from adk_memory_kit.cli import build_parser, main

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
            async with memory.engine.begin() as conn:
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
    assert "would remove 1 memories" in out and "Old trivia" not in out
    assert main(args) == 0
    assert "removed 1 memories" in capsys.readouterr().out
