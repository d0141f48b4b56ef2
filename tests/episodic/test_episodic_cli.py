"""``adk-memory-kit trace / costs / log-export / log-purge`` on the embedded Postgres."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import datetime, timedelta, timezone

import pytest

from adk_memory_kit.cli import build_parser, main
from adk_memory_kit.cli.episodic import parse_when
from adk_memory_kit.episodic.store import EpisodicLog, PendingEntry
from adk_memory_kit.errors import InvalidInputError

pytestmark = pytest.mark.slow


def seed(db_url: str, app: str, when: datetime | None = None) -> None:
    """One invocation: the user's task, a model call, a tool call, a tool error, an answer."""
    t = (when or datetime.now(timezone.utc)).timestamp()

    def entry(kind, name, **kw):
        return PendingEntry(app, "ann", "s1", "inv-1", "shop", kind, name, time=t, **kw)

    async def write() -> None:
        log = EpisodicLog(db_url)
        for e in (
            entry("user_message", "user", payload={"text": "Where is order A1?"}),
            entry("model_call", "gemini-2.5-flash", input_tokens=1000, output_tokens=200,
                  latency_ms=41.0, payload={"text": "", "function_calls": [{"name": "find"}]}),
            entry("tool_call", "find", latency_ms=3.0,
                  payload={"args": {"order": "A1"}, "result": {"status": "shipped"}}),
            entry("model_call", "scripted-offline", input_tokens=50, output_tokens=5,
                  payload={"text": "It shipped."}),
        ):  # fmt: skip
            log.append(e)
        await log.close()

    asyncio.run(write())


def test_commands_are_registered():
    commands = build_parser()._subparsers._group_actions[0].choices
    assert {"trace", "costs", "log-export", "log-purge"} <= set(commands)


def test_trace_prints_a_timeline(db_url, capsys):
    app = f"cli-{uuid.uuid4().hex[:6]}"
    seed(db_url, app)
    assert main(["--db-url", db_url, "trace", "--app", app, "--session", "s1"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"app {app}  user ann  session s1"
    assert lines[1].startswith("invocation inv-1")
    assert "user_message" in lines[2] and "'Where is order A1?'" in lines[2]
    assert "model_call" in lines[3] and "1,000 in / 200 out tok" in lines[3]
    assert "$0.000800" in lines[3] and "calls find" in lines[3] and "41 ms" in lines[3]
    assert "tool_call" in lines[4] and '"status":"shipped"' in lines[4]
    assert "unknown" in lines[5]
    assert lines[-1] == (
        "4 entries, 2 model calls, 1,050 in / 205 out tokens, cost $0.000800 (+1 unpriced)"
    )
    assert main(["--db-url", db_url, "trace", "--app", app, "--session", "nope"]) == 2
    err = capsys.readouterr().err
    assert f"no episodic log entries for session 'nope' in app '{app}'" in err
    assert "--user" not in err  # no user has the session: --user would not help
    assert main(["--db-url", db_url, "trace", "--app", app, "--session", "s1", "--user", "x"]) == 2
    assert "no episodic log entries for session 's1' of user 'x'" in capsys.readouterr().err


def test_trace_asks_for_the_user_only_when_several_have_the_session(db_url, capsys):
    app = f"cli-{uuid.uuid4().hex[:6]}"
    seed(db_url, app)

    async def other_user() -> None:
        log = EpisodicLog(db_url)
        log.append(
            PendingEntry(app, "bob", "s1", "inv-2", "shop", "user_message", "user",
                         payload={"text": "hi"})
        )  # fmt: skip
        await log.close()

    asyncio.run(other_user())
    assert main(["--db-url", db_url, "trace", "--app", app, "--session", "s1"]) == 2
    err = capsys.readouterr().err
    assert "has log entries of 2 users (ann, bob); pass --user" in err
    assert (
        main(["--db-url", db_url, "trace", "--app", app, "--session", "s1", "--user", "bob"]) == 0
    )


def test_costs_prints_a_table(db_url, capsys):
    app = f"cli-{uuid.uuid4().hex[:6]}"
    seed(db_url, app)
    assert main(["--db-url", db_url, "costs", "--app", app, "--since", "1d"]) == 0
    rows = {tuple(line.split()[:2]): line for line in capsys.readouterr().out.splitlines()[2:]}
    assert "$0.000800 (+1 unpriced)" in rows[("total", "-")]
    assert "unknown" in rows[("model", "scripted-offline")]
    assert rows[("model", "gemini-2.5-flash")].split()[2:6] == ["1", "0", "1,000", "200"]
    assert main(["--db-url", db_url, "costs", "--app", app, "--since", "yesterday"]) == 2
    assert "cannot read the time 'yesterday'" in capsys.readouterr().err


def test_export_and_purge(db_url, tmp_path, capsys):
    app = f"cli-{uuid.uuid4().hex[:6]}"
    seed(db_url, app, datetime.now(timezone.utc) - timedelta(days=400))
    out = tmp_path / "t.jsonl"
    assert main(["--db-url", db_url, "log-export", "--app", app, "--out", str(out)]) == 0
    (line,) = [json.loads(x) for x in out.read_text().splitlines()]
    assert line["task"] == "Where is order A1?" and line["final_answer"] == "It shipped."
    assert line["cost_usd"] is None  # one model call has no price: the total is unknown
    assert main(["--db-url", db_url, "log-purge", "--days", "365"]) == 0
    assert "deleted" in capsys.readouterr().out
    assert main(["--db-url", db_url, "trace", "--app", app, "--session", "s1"]) == 2


def test_parse_when():
    assert parse_when("2026-11-30") == datetime(2026, 11, 30, tzinfo=timezone.utc)
    ago = datetime.now(timezone.utc) - parse_when("2h")
    assert abs(ago - timedelta(hours=2)) < timedelta(minutes=1)
    with pytest.raises(InvalidInputError):
        parse_when("soon")
