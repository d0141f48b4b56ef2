"""``adk-memory-kit share / unshare / grant / revoke`` and ``search --agent`` (issue 47), on
the embedded server."""

from __future__ import annotations

import re
import uuid

import pytest

from adk_memory_kit.cli.main import main

pytestmark = pytest.mark.slow


def test_an_operator_shares_grants_and_unshares_from_the_command_line(db_url, capsys):
    app = f"cli_scopes_{uuid.uuid4().hex[:8]}"
    base = ["--db-url", db_url]
    assert main([*base, "share", "--app", app, "The canteen closes at 3pm on Fridays"]) == 0
    out = capsys.readouterr().out
    assert f"shared 1 memory in {app} (app)" in out
    (memory_id,) = re.findall(r"[0-9a-f-]{36}", out)
    assert main([*base, "share", "--app", app, "--scope", "group:chefs", "Knives: drawer 4"]) == 0
    capsys.readouterr()

    assert main([*base, "search", "--app", app, "--user", "u1", "canteen Friday knives"]) == 0
    out = capsys.readouterr().out
    assert "canteen closes" in out and "(shared by the app)" in out and "Knives" not in out

    assert main([*base, "grant", "--app", app, "--user", "u1", "--group", "chefs"]) == 0
    assert "granted: group chefs to u1" in capsys.readouterr().out
    assert main([*base, "search", "--app", app, "--user", "u1", "--agent", "cook", "knives"]) == 0
    assert "(shared with group chefs)" in capsys.readouterr().out
    assert main([*base, "revoke", "--app", app, "--user", "u1", "--group", "chefs"]) == 0
    assert "revoked" in capsys.readouterr().out

    assert main([*base, "unshare", "--app", app, memory_id]) == 0
    assert "deleted 1 shared memory" in capsys.readouterr().out
    assert main([*base, "search", "--app", app, "--user", "u1", "canteen Friday"]) == 0
    assert "canteen" not in capsys.readouterr().out


def test_a_bad_scope_is_one_clear_line(db_url, capsys):
    assert main(["--db-url", db_url, "share", "--app", "a", "--scope", "user", "x"]) == 2
    err = capsys.readouterr().err
    assert "scope must be 'app' or 'group:<name>'" in err
