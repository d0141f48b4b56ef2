"""forget_user, data_map and the lifecycle command line on the embedded Postgres."""

from __future__ import annotations

import argparse
import json
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from google.adk.events.event import Event
from google.adk.memory.in_memory_memory_service import InMemoryMemoryService
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions.in_memory_session_service import InMemorySessionService
from google.genai import types
from sqlalchemy import text as sql

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.cli import lifecycle as lifecycle_cli
from adk_memory_kit.cli import main as cli_main
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.errors import DatabaseUnavailableError, InvalidInputError
from adk_memory_kit.lifecycle import (
    FunctionDataHome,
    IdleIngestJob,
    data_map,
    forget_user,
    pending_forgets,
)
from adk_memory_kit.memory.lifecycle_schema import FORGET_LOG
from adk_memory_kit.routing.review_queue import ReviewQueue

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it

PAST = datetime.now(timezone.utc) - timedelta(hours=2)


def new_app() -> str:
    return f"lc_{uuid.uuid4().hex[:10]}"


async def seed_user(sessions, app: str, user: str, secret: str, n_sessions: int = 2) -> None:
    """Sessions with text events, a user: preference and an explicit memory."""
    for i in range(n_sessions):
        s = await sessions.create_session(
            app_name=app, user_id=user, state={"user:diet": f"{user}-diet"} if i == 0 else None
        )
        await sessions.append_event(
            s,
            Event(
                author="user",
                content=types.Content(role="user", parts=[types.Part(text=f"{secret} #{i}")]),
                timestamp=(PAST + timedelta(seconds=i)).timestamp(),
            ),
        )


async def seed_app(sessions, memory) -> str:
    app = new_app()
    await seed_user(sessions, app, "alice", "alice's passport number is X-1234")
    await seed_user(sessions, app, "bob", "bob's passport number is Y-9876")
    job = IdleIngestJob(sessions, memory, app_name=app)
    assert len((await job.run_once()).ingested) == 4  # creates watermarks too
    for user in ("alice", "bob"):
        await memory.add_memory(
            app_name=app,
            user_id=user,
            memories=[
                MemoryEntry(
                    content=types.Content(parts=[types.Part(text=f"{user} likes window seats")])
                )
            ],
        )
    return app


def counts(found) -> dict[str, int | None]:
    return {loc.kind: loc.count for loc in found.locations}


async def test_forget_leaves_nothing_for_the_user_and_touches_no_one_else(sessions, memory):
    app = await seed_app(sessions, memory)
    before_alice = await data_map(app, "alice", session_service=sessions, memory_service=memory)
    before_bob = await data_map(app, "bob", session_service=sessions, memory_service=memory)
    found = {k: n for k, n in counts(before_alice).items() if n}
    # the per-user BM25 statistics hold the user's words too: they are homes of their own
    assert found.pop("memory_user_stats") == 1 and found.pop("memory_term_stats") > 0
    assert found == {
        "sessions": 2,
        "user_state": 1,
        "memory_items": 3,
        "session_snapshots": 2,
        "idle_watermarks": 2,
    }
    assert counts(before_alice)["forget_log"] == 0
    assert before_alice.holds_user_data

    report = await forget_user(app, "alice", session_service=sessions, memory_service=memory)

    assert len(report.sessions_deleted) == 2
    assert report.memory_items_deleted == 3
    assert report.user_state_keys_deleted == ["diet"]
    assert report.watermarks_deleted == 2
    assert report.verified and report.user_state == "deleted" and report.completed_at
    after = await data_map(app, "alice", session_service=sessions, memory_service=memory)
    assert not after.holds_user_data
    assert counts(after)["forget_log"] == 1 and "completed" in after.locations[-1].detail
    for query in ("passport number X-1234", "window seats", "alice"):
        found = await memory.search_memory(app_name=app, user_id="alice", query=query)
        assert found.memories == []
    assert await sessions.get_user_state(app_name=app, user_id="alice") == {}
    assert (await sessions.list_sessions(app_name=app, user_id="alice")).sessions == []
    # bob is untouched
    assert (
        await data_map(app, "bob", session_service=sessions, memory_service=memory)
    ).as_dict() == before_bob.as_dict()
    bob_hits = await memory.search_memory(app_name=app, user_id="bob", query="passport Y-9876")
    assert bob_hits.memories
    # forgetting again is harmless and reports nothing more
    again = await forget_user(app, "alice", session_service=sessions, memory_service=memory)
    assert again.verified and not again.sessions_deleted and again.memory_items_deleted == 0


async def test_an_interrupted_forget_stays_visible_and_a_retry_finishes_it(
    sessions, memory, db_url, embedder
):
    class CrashingMemory(PgVectorMemoryService):
        async def delete_user_memories(self, *, app_name: str, user_id: str) -> int:
            raise ConnectionError("database went away mid-forget")

    app = await seed_app(sessions, memory)
    crashing = CrashingMemory(db_url, embedder=embedder)
    try:
        with pytest.raises(DatabaseUnavailableError) as raised:
            await forget_user(app, "alice", session_service=sessions, memory_service=crashing)
        assert isinstance(raised.value.__cause__, ConnectionError)
    finally:
        await crashing.close()

    pending = await pending_forgets(app, memory_service=memory)
    assert [(p.app_name, p.user_id) for p in pending] == [(app, "alice")]
    half = await data_map(app, "alice", session_service=sessions, memory_service=memory)
    assert half.holds_user_data and counts(half)["memory_items"] == 3
    assert half.locations[-1].detail == "pending"

    # while the forget is open the idle job leaves alice alone
    await seed_user(sessions, app, "alice", "alice came back", n_sessions=1)
    for sql_listing in (None, False):
        job = IdleIngestJob(sessions, memory, app_name=app, use_sql_listing=sql_listing)
        assert (await job.run_once()).ingested == []

    report = await forget_user(app, "alice", session_service=sessions, memory_service=memory)
    assert report.verified and report.memory_items_deleted == 3
    assert len(report.sessions_deleted) == 1  # the session created after the crash
    assert await pending_forgets(app, memory_service=memory) == []
    after = await data_map(app, "alice", session_service=sessions, memory_service=memory)
    assert not after.holds_user_data
    assert (
        counts(await data_map(app, "bob", session_service=sessions, memory_service=memory))[
            "memory_items"
        ]
        == 3
    )


async def test_forget_refuses_a_memory_service_that_cannot_delete(sessions):
    app = new_app()
    await seed_user(sessions, app, "alice", "kept")
    with pytest.raises(InvalidInputError, match="delete_user_memories"):
        await forget_user(
            app, "alice", session_service=sessions, memory_service=InMemoryMemoryService()
        )
    assert len((await sessions.list_sessions(app_name=app, user_id="alice")).sessions) == 2


async def test_forget_with_in_memory_sessions_and_an_extra_data_home(memory):
    app = new_app()
    store = InMemorySessionService()
    await store.create_session(app_name=app, user_id="alice", state={"user:lang": "de"})
    await store.create_session(app_name=app, user_id="bob", state={"user:lang": "fr"})
    queue = {("alice", 1), ("alice", 2), ("bob", 3)}

    async def queue_count(a: str, u: str) -> int:
        return sum(1 for user, _ in queue if user == u)

    async def queue_delete(a: str, u: str) -> int:
        gone = {row for row in queue if row[0] == u}
        queue.difference_update(gone)
        return len(gone)

    home = FunctionDataHome("outbox", queue_count, queue_delete)  # a home outside Postgres
    found = await data_map(
        app, "alice", session_service=store, memory_service=memory, extra_homes=[home]
    )
    assert counts(found)["outbox"] == 2 and counts(found)["user_state"] == 1
    report = await forget_user(
        app, "alice", session_service=store, memory_service=memory, extra_homes=[home]
    )
    assert report.user_state_keys_deleted == ["lang"]
    assert report.extra_deleted == {"outbox": 2} and report.verified
    assert queue == {("bob", 3)}
    assert await store.get_user_state(app_name=app, user_id="alice") == {}
    assert await store.get_user_state(app_name=app, user_id="bob") == {"lang": "fr"}


async def test_forget_needs_a_way_to_delete_user_state(memory, monkeypatch):
    import adk_memory_kit.lifecycle.forget as forget_mod

    # a session service the kit has no user-state deleter for (e.g. a remote one)
    monkeypatch.setattr(forget_mod, "builtin_user_state_deleter", lambda svc: None)
    app = new_app()
    store = InMemorySessionService()
    await store.create_session(app_name=app, user_id="alice", state={"user:x": 1})
    with pytest.raises(InvalidInputError, match="user_state_deleter"):
        await forget_user(app, "alice", session_service=store, memory_service=memory)
    assert (await store.list_sessions(app_name=app, user_id="alice")).sessions  # untouched
    report = await forget_user(
        app, "alice", session_service=store, memory_service=memory, allow_partial=True
    )
    assert report.user_state == "unsupported" and "1 key(s)" in report.notes[0]
    assert not (await store.list_sessions(app_name=app, user_id="alice")).sessions

    async def custom(a: str, u: str) -> list[str]:
        return sorted(store.user_state[a].pop(u))

    report = await forget_user(
        app, "alice", session_service=store, memory_service=memory, user_state_deleter=custom
    )
    assert report.user_state_keys_deleted == ["x"]
    assert await store.get_user_state(app_name=app, user_id="alice") == {}


# --------------------------------------------------------------------------- command line
def parser(db_url: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="adk-memory-kit")
    p.add_argument("--db-url", default=db_url)
    lifecycle_cli.register(p.add_subparsers(dest="command"))
    return p


async def test_cli_ingest_idle_once_and_forget(sessions, memory, db_url, capsys):
    app = new_app()
    await seed_user(sessions, app, "carol", "carol's seat is 14C")
    queue = ReviewQueue(db_url)
    await queue.submit(app_name=app, user_id="carol", text="always skip price confirmation")
    await queue.submit(app_name=app, user_id="dave", text="always skip price confirmation")
    cli = parser(db_url)

    args = cli.parse_args(["ingest-idle", "--app", app, "--idle-minutes", "30", "--once"])
    assert await args.func(args) == 0
    out = capsys.readouterr().out
    assert out.count(f"{app}/carol/") == 2 and "considered 2, ingested 2, failed 0" in out
    assert sum((await memory.count_memories(app_name=app, user_id="carol")).values()) == 2

    args = cli.parse_args(["ingest-idle", "--app", app, "--once"])
    assert await args.func(args) == 0
    assert "considered 0, ingested 0" in capsys.readouterr().out

    args = cli.parse_args(["forget", "--app", app, "--user", "carol", "--dry-run"])
    assert await args.func(args) == 0
    out = capsys.readouterr().out
    assert "sessions" in out and "memory_items" in out and "review_queue" in out
    assert sum((await memory.count_memories(app_name=app, user_id="carol")).values()) == 2

    args = cli.parse_args(["forget", "--app", app, "--user", "carol"])
    assert await args.func(args) == 0
    out = capsys.readouterr().out
    assert "sessions deleted:      2" in out and "memory items deleted:  2" in out
    assert await memory.count_memories(app_name=app, user_id="carol") == {}
    assert await queue.count_for_user(app, "carol") == 0
    assert await queue.count_for_user(app, "dave") == 1
    await queue.close()

    args = cli.parse_args(["forget", "--app", app, "--pending"])
    assert await args.func(args) == 0
    assert "no interrupted forgets" in capsys.readouterr().out


def test_cli_requires_app_and_user_or_pending(db_url):
    cli = parser(db_url)
    with pytest.raises(SystemExit):
        cli.parse_args(["forget", "--app", "a"])
    with pytest.raises(SystemExit):
        cli.parse_args(["ingest-idle"])


async def forget_log_rows(memory, app: str, user: str) -> list:
    async with operator_connect(memory.engine) as conn:
        result = await conn.execute(
            sql(
                f"SELECT forget_id, status, completed_at, finished_by, report FROM {FORGET_LOG}"
                " WHERE app_name = :app AND user_id = :user ORDER BY forget_id"
            ),
            {"app": app, "user": user},
        )
        return result.all()


async def test_an_unverified_forget_stays_open_until_a_retry_verifies_it(
    sessions, memory, db_url, capsys
):
    app = await seed_app(sessions, memory)
    stuck = {"alice": 2}  # rows this data home fails to delete

    async def stuck_count(a: str, u: str) -> int:
        return stuck.get(u, 0) if a == app else 0

    async def stuck_delete(a: str, u: str) -> int:
        return 0  # a broken delete: nothing goes away

    home = FunctionDataHome("stuck_home", stuck_count, stuck_delete)
    report = await forget_user(
        app, "alice", session_service=sessions, memory_service=memory, extra_homes=[home]
    )

    assert not report.verified and report.status == "unverified"
    assert report.completed_at is None and report.forget_id is not None
    assert len(report.sessions_deleted) == 2 and report.memory_items_deleted == 3
    assert "deleting again" in report.notes[0]
    assert "NOT verified: 2 stuck_home row(s) still present after 2 passes" in report.notes[1]
    assert "NOT finished (unverified)" in report.summary()
    pending = await pending_forgets(app, memory_service=memory)
    assert [(p.user_id, p.status, p.forget_id) for p in pending] == [
        ("alice", "unverified", report.forget_id)
    ]
    assert "stuck_home" in pending[0].detail
    found = await data_map(
        app, "alice", session_service=sessions, memory_service=memory, extra_homes=[home]
    )
    assert found.holds_user_data and found.locations[-1].detail == "pending"

    # the idle job keeps away from alice while the forget is open
    await seed_user(sessions, app, "alice", "alice is back", n_sessions=1)
    for sql_listing in (None, False):
        job = IdleIngestJob(sessions, memory, app_name=app, use_sql_listing=sql_listing)
        assert (await job.run_once()).ingested == []
    assert counts(found)["memory_items"] == 0
    assert await memory.count_memories(app_name=app, user_id="alice") == {}

    cli = parser(db_url)
    args = cli.parse_args(["forget", "--app", app, "--pending"])
    assert await args.func(args) == 0
    assert "alice  unverified: NOT verified" in capsys.readouterr().out

    stuck["alice"] = 0  # the home works again: a re-run finishes the job
    retry = await forget_user(
        app, "alice", session_service=sessions, memory_service=memory, extra_homes=[home]
    )
    assert retry.verified and retry.status == "completed" and retry.completed_at
    assert len(retry.sessions_deleted) == 1  # the session created in between
    assert await pending_forgets(app, memory_service=memory) == []
    rows = await forget_log_rows(memory, app, "alice")
    assert [(r.forget_id, r.status, r.finished_by) for r in rows] == [
        (report.forget_id, "superseded", retry.forget_id),
        (retry.forget_id, "completed", None),
    ]
    assert rows[0].report["verified"] is False and rows[1].report["verified"] is True


async def test_an_unverified_run_leaves_the_record_a_newer_run_closed_alone(sessions, memory):
    app = await seed_app(sessions, memory)
    newer = []

    async def stuck_count(a: str, u: str) -> int:
        if not newer:  # a second worker forgets alice while this run is still deleting
            newer.append(
                await forget_user(app, "alice", session_service=sessions, memory_service=memory)
            )
        return 2  # this run's home never verifies empty

    async def stuck_delete(a: str, u: str) -> int:
        return 0

    home = FunctionDataHome("stuck_home", stuck_count, stuck_delete)
    report = await forget_user(
        app, "alice", session_service=sessions, memory_service=memory, extra_homes=[home]
    )
    (inner,) = newer
    assert inner.status == "completed" and inner.forget_id > report.forget_id
    assert report.status == "unverified" and not report.verified
    rows = await forget_log_rows(memory, app, "alice")
    assert [(r.forget_id, r.status, r.finished_by) for r in rows] == [
        (report.forget_id, "superseded", inner.forget_id),
        (inner.forget_id, "completed", None),
    ]
    assert all(r.completed_at is not None for r in rows)
    assert f"closed meanwhile by run {inner.forget_id} (status superseded)" in report.notes[-1]
    # the closed row still records what this run deleted (the newer run found nothing left)
    assert rows[0].report["verified"] is False and rows[0].report["memory_items_deleted"] == 3
    assert rows[0].report["notes"] == report.notes
    assert rows[1].report["memory_items_deleted"] == 0
    assert await pending_forgets(app, memory_service=memory) == []


async def test_forgetting_a_user_again_keeps_the_earlier_audit_record(sessions, memory):
    app = await seed_app(sessions, memory)
    first = await forget_user(app, "alice", session_service=sessions, memory_service=memory)
    await seed_user(sessions, app, "alice", "alice signed up again", n_sessions=1)
    second = await forget_user(app, "alice", session_service=sessions, memory_service=memory)

    assert first.forget_id != second.forget_id
    rows = await forget_log_rows(memory, app, "alice")
    assert [(r.forget_id, r.status) for r in rows] == [
        (first.forget_id, "completed"),
        (second.forget_id, "completed"),
    ]
    assert rows[0].completed_at == first.completed_at
    # the audit record keeps counts, never session ids or user: key names
    assert rows[0].report["sessions_deleted"] == 2
    assert rows[1].report["sessions_deleted"] == 1
    assert first.sessions_deleted[0] not in json.dumps(rows[0].report)
    found = await data_map(app, "alice", session_service=sessions, memory_service=memory)
    assert counts(found)["forget_log"] == 2 and "completed" in found.locations[-1].detail


@pytest.mark.parametrize(
    "scheme", ["sqlite+aiosqlite", "sqlite"], ids=["DatabaseSessionService", "SqliteSessionService"]
)
async def test_cli_with_a_sqlite_session_store(memory, db_url, tmp_path, capsys, scheme):
    app = new_app()
    url = f"{scheme}:///{tmp_path / 'sessions.db'}"

    def open_store():
        # the CLI's own factory: ADK's DatabaseSessionService / SqliteSessionService
        return lifecycle_cli.session_service_from_url(url, None)

    store = open_store()
    try:
        await seed_user(store, app, "erin", "erin's locker is 42")
        await seed_user(store, app, "frank", "frank's locker is 7", n_sessions=1)
    finally:
        await store.close()
    cli = parser(db_url)

    args = cli.parse_args(["ingest-idle", "--app", app, "--once", "--session-db-url", url])
    assert await args.func(args) == 0
    assert "considered 3, ingested 3, failed 0" in capsys.readouterr().out
    assert sum((await memory.count_memories(app_name=app, user_id="erin")).values()) == 2
    args = cli.parse_args(["ingest-idle", "--app", app, "--once", "--session-db-url", url])
    assert await args.func(args) == 0
    assert "considered 0, ingested 0" in capsys.readouterr().out

    args = cli.parse_args(["forget", "--app", app, "--user", "erin", "--session-db-url", url])
    assert await args.func(args) == 0
    out = capsys.readouterr().out
    assert "sessions deleted:      2" in out and "user: state deleted:   1 key(s)" in out
    assert await memory.count_memories(app_name=app, user_id="erin") == {}
    store = open_store()
    try:
        assert (await store.list_sessions(app_name=app, user_id="erin")).sessions == []
        assert await store.get_user_state(app_name=app, user_id="erin") == {}
        assert len((await store.list_sessions(app_name=app, user_id="frank")).sessions) == 1
        assert await store.get_user_state(app_name=app, user_id="frank") == {"diet": "frank-diet"}
    finally:
        await store.close()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--db-url", "sqlite+aiosqlite:///x.db", "ingest-idle", "--app", "a", "--once"],
            "error: unsupported database URL scheme 'sqlite+aiosqlite'",
        ),
        (
            ["ingest-idle", "--app", "a", "--once", "--session-db-url", "memory://"],
            "error: --session-db-url memory:// is empty outside the agent's own process",
        ),
        (
            ["ingest-idle", "--app", "a", "--once", "--session-db-url", "nosuchdb+x://h/d"],
            "error: cannot open the session store nosuchdb+x://",
        ),
        (
            ["forget", "--app", "a", "--user", "u", "--session-db-url", "memory://"],
            "error: --session-db-url memory://",
        ),
        (
            [
                "ingest-idle",
                "--app",
                "a",
                "--once",
                "--session-db-url",
                "sqlite+aiosqlite:///no/such/dir/s.db",
            ],
            "error: cannot open the session store sqlite+aiosqlite://... (",
        ),
    ],
    ids=["memory-db-not-postgres", "memory-sessions", "unknown-scheme", "forget", "no-file"],
)
def test_cli_reports_kit_errors_in_one_line(db_url, capsys, argv, message):
    """Through the real entry point: its one handler prints ``error: ...`` and exits 2."""
    assert cli_main(["--db-url", db_url, *argv]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(message) and captured.err.count("\n") == 1
    assert "Traceback" not in captured.err + captured.out
