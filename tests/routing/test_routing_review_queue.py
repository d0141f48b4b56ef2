"""The procedural review queue: its table, decisions, and the ``review`` CLI."""

from __future__ import annotations

import argparse

import pytest
from sqlalchemy import text

from adk_memory_kit.cli import main as cli_main
from adk_memory_kit.cli.review import register
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.routing import ReviewQueue
from adk_memory_kit.routing.review_queue import STEPS, TABLE
from tests.support.routing import unique

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it

STOP = "Please stop asking me to confirm prices."


@pytest.fixture
async def queue(db_url):
    q = ReviewQueue(db_url)
    yield q
    await q.close()


async def test_submit_is_keyed_by_app_and_user_and_deduplicates_pending(queue):
    app = unique("app")
    first = await queue.submit(app_name=app, user_id="u1", text=STOP, session_id="s1")
    again = await queue.submit(
        app_name=app, user_id="u1", text="please STOP asking me to confirm  prices."
    )
    other_user = await queue.submit(app_name=app, user_id="u2", text=STOP)
    assert again.id == first.id and other_user.id != first.id
    assert [i.id for i in await queue.list(app_name=app, user_id="u1")] == [first.id]
    assert [i.user_id for i in await queue.list(app_name=app)] == ["u1", "u2"]
    assert await queue.list(app_name=unique("other_app")) == []


async def test_an_approved_instruction_said_again_is_that_item_and_revoke_undoes_it(queue):
    app = unique("app")
    first = await queue.submit(app_name=app, user_id="u1", text=STOP)
    await queue.approve(first.id, by="ops")
    again = await queue.submit(app_name=app, user_id="u1", text=STOP)
    assert again.id == first.id and again.status == "approved"  # no second item to approve
    assert [i.id for i in await queue.approved_instructions(app, "u1")] == [first.id]
    # an app-wide approval applies to another user who says it too
    shared = await queue.submit(app_name=app, user_id="u2", text="Always quote prices in euros.")
    await queue.approve(shared.id, by="ops", applies_to="app")
    mine = await queue.submit(app_name=app, user_id="u3", text="Always quote prices in euros.")
    assert mine.id == shared.id
    # revoked, then approved again: the instruction is back
    await queue.revoke(first.id, by="ops")
    assert await queue.approved_instructions(app, "u1") == [
        i for i in await queue.approved_instructions(app, "u1") if i.id != first.id
    ]
    back = await queue.approve(first.id, by="ops2")
    assert back.status == "approved" and back.revoked_at is None and back.decided_by == "ops2"
    assert first.id in [i.id for i in await queue.approved_instructions(app, "u1")]


async def test_revoking_an_instruction_revokes_its_approved_copies(queue):
    """A copy approved before repeats were merged (a row of an older version, made here by
    SQL) stops reaching the agent when the other is revoked; the block shows it once."""
    from sqlalchemy import text as sql

    from adk_memory_kit.db.rls import operator_begin
    from adk_memory_kit.routing.review_queue import TABLE

    app = unique("app")
    a = await queue.submit(app_name=app, user_id="u1", text=STOP)
    await queue.approve(a.id, by="ops")
    async with operator_begin(await queue._ensure_ready()) as conn:
        await conn.execute(
            sql(
                f"INSERT INTO {TABLE} (app_name, user_id, text, text_hash, source, status,"
                " decided_at, decided_by) SELECT app_name, user_id, text, text_hash, source,"
                f" 'approved', now(), 'ops2' FROM {TABLE} WHERE id = :id"
            ),
            {"id": a.id},
        )
    theirs = await queue.submit(app_name=app, user_id="u9", text=STOP)
    await queue.approve(theirs.id, by="ops")
    other = await queue.submit(app_name=app, user_id="u1", text="Always book aisle seats.")
    await queue.approve(other.id, by="ops")
    texts = [i.text for i in await queue.approved_instructions(app, "u1")]
    assert texts.count(a.text) == 1 and len(texts) == 2
    await queue.revoke(a.id, by="ops")
    assert [i.id for i in await queue.approved_instructions(app, "u1")] == [other.id]
    # another user's own approval is theirs: not revoked by this user's revocation
    assert [i.id for i in await queue.approved_instructions(app, "u9")] == [theirs.id]


async def test_approve_and_reject_record_who_and_when(queue):
    app = unique("app")
    a = await queue.submit(app_name=app, user_id="u1", text=STOP)
    b = await queue.submit(app_name=app, user_id="u1", text="Always book business class.")
    approved = await queue.approve(a.id, by="alice", note="added confirm_prices=false pref")
    rejected = await queue.reject(b.id, by="bob")
    assert (approved.status, approved.decided_by, approved.note) == (
        "approved", "alice", "added confirm_prices=false pref",
    )  # fmt: skip
    assert approved.decided_at >= approved.created_at
    assert (rejected.status, rejected.decided_by) == ("rejected", "bob")
    assert await queue.list(app_name=app) == []  # nothing pending
    assert [i.status for i in await queue.list(app_name=app, status=None)] == [
        "approved",
        "rejected",
    ]
    # "all" means any status, as the CLI and the console spell it
    assert await queue.list(app_name=app, status="all") == await queue.list(
        app_name=app, status=None
    )
    with pytest.raises(InvalidInputError, match="already approved by alice"):
        await queue.reject(a.id, by="carol")
    # a rejected request may be asked for again and is queued anew (an approved one said
    # again is the approved item: test_an_approved_instruction_said_again_is_that_item...)
    fresh = await queue.submit(app_name=app, user_id="u1", text="Always book business class.")
    assert fresh.id != b.id and fresh.status == "pending"


async def test_decisions_check_scope_and_input(queue):
    app = unique("app")
    item = await queue.submit(app_name=app, user_id="u1", text=STOP)
    with pytest.raises(InvalidInputError, match="no review item"):
        await queue.approve(item.id, by="alice", app_name=unique("other"))
    with pytest.raises(InvalidInputError, match="no review item"):
        await queue.approve(10**12, by="alice")
    with pytest.raises(InvalidInputError):
        await queue.approve(item.id, by="")
    with pytest.raises(InvalidInputError):
        await queue.list(status="maybe")
    with pytest.raises(InvalidInputError):
        await queue.submit(app_name=app, user_id="u1", text="  ")
    assert (await queue.list(app_name=app))[0].status == "pending"


async def test_the_table_is_migrated_once_and_versioned(queue):
    await queue.list()
    engine = queue._engine
    async with engine.connect() as conn:
        step = await conn.scalar(
            text("SELECT step FROM adk_memory_kit_schema WHERE component = 'review_queue'")
        )
        indexes = await conn.scalar(
            text("SELECT count(*) FROM pg_indexes WHERE tablename = :t"), {"t": TABLE}
        )
        comment = await conn.scalar(
            text("SELECT obj_description(CAST(:t AS regclass))"), {"t": TABLE}
        )
        key = await conn.scalar(
            text(
                "SELECT pg_get_constraintdef(oid) FROM pg_constraint"
                " WHERE conrelid = CAST(:t AS regclass) AND contype = 'p'"
            ),
            {"t": TABLE},
        )
    # one statement per step; the comment marks the table as a kit home for forget/data_map
    assert step == len(STEPS) == 10 and indexes == 5
    assert key == "PRIMARY KEY (app_name, user_id, id)"  # keyed by its user (sharding)
    assert comment == "adk_memory_kit home: review_queue"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="adk-memory-kit")
    p.add_argument("--db-url", default=None)
    register(p.add_subparsers(dest="command"))
    return p


async def test_cli_list_approve_reject(db_url, queue, capsys):
    app = unique("app")
    a = await queue.submit(app_name=app, user_id="u1", text=STOP)
    b = await queue.submit(app_name=app, user_id="u7", text="Never show me fees.")

    async def run(*argv: str) -> int:
        args = parser().parse_args(["--db-url", db_url, "review", *argv])
        return await args.func(args)

    assert await run("list", "--app", app) == 0
    out = capsys.readouterr().out
    assert f"{a.id:>6}  pending" in out and STOP in out and f"{app}/u7" in out

    assert await run("approve", str(a.id), "--by", "alice", "--note", "pref added") == 0
    out = capsys.readouterr().out
    assert "approved" in out and "the agent of u1 follows it" in out
    assert await run("reject", str(b.id), "--by", "bob", "--app", app) == 0
    with pytest.raises(InvalidInputError, match="already rejected by bob"):
        await run("approve", str(b.id), "--by", "alice")

    assert await run("list", "--app", app) == 0
    assert "no review items" in capsys.readouterr().out
    assert await run("list", "--app", app, "--status", "all", "--user", "u1") == 0
    out = capsys.readouterr().out
    assert "approved" in out and "alice" in out and "Never show me fees" not in out

    # revoke takes an approval back (and only an approval); --for-app instructs every user
    assert await run("revoke", str(a.id), "--by", "carol") == 0
    assert "revoked: the agent no longer follows it" in capsys.readouterr().out
    assert await queue.approved_instructions(app, "u1") == []
    with pytest.raises(InvalidInputError, match="only an approved item can be revoked"):
        await run("revoke", str(b.id), "--by", "carol")
    c = await queue.submit(app_name=app, user_id="u7", text="Quote prices in euros.")
    assert await run("approve", str(c.id), "--by", "alice", "--for-app") == 0
    assert f"every user of {app}" in capsys.readouterr().out
    (shared,) = await queue.approved_instructions(app, "someone-new")
    assert (shared.id, shared.applies_to) == (c.id, "app")


def test_cli_errors_go_to_stderr_with_exit_code_2(db_url, capsys):
    """README: a refused command prints one ``error: ...`` line on stderr and exits 2."""
    argv = ["--db-url", db_url, "review"]
    assert cli_main([*argv, "approve", "987654321", "--by", "alice"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("error: no review item 987654321")
    assert captured.err.count("\n") == 1
    assert cli_main([*argv, "list", "--limit", "0"]) == 2
    assert capsys.readouterr().err.startswith("error: limit must be positive")


def test_cli_requires_an_action():
    with pytest.raises(SystemExit):
        parser().parse_args(["review"])
