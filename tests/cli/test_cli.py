"""The ``adk-memory-kit`` command line: its commands and its one-line errors."""

from __future__ import annotations

import pytest

from adk_memory_kit.cli import build_parser, main

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it


def test_every_command_is_registered():
    commands = build_parser()._subparsers._group_actions[0].choices  # argparse's subparsers
    assert {"demo", "search", "purge-expired", "ingest-idle", "forget", "review", "db"} <= set(
        commands
    )


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
