"""``adk-memory-kit reindex``: one user's store cleaned under the policy, nobody else touched."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
from google.adk.events.event import Event
from google.genai import types
from sqlalchemy import text

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.session_policy import WritePolicy
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.lifecycle.reindex import reindex
from adk_memory_kit.memory.tables import TABLE

pytestmark = pytest.mark.slow

TURNS = [
    ("user", "Hi! Stop asking me to confirm prices."),
    ("agent", "[offline scripted model] Noted."),
    ("user", "My sister Mia visits in June. Our budget is 15 euros today."),
    ("agent", "Mia's visit is on the calendar for June 14, table for three at Green Leaf."),
    ("user", "Thanks, that's all, bye!"),
]


async def seed(sessions, app: str, user: str) -> None:
    session = await sessions.create_session(app_name=app, user_id=user)
    for n, (author, said) in enumerate(TURNS):
        await sessions.append_event(
            session,
            Event(
                invocation_id=f"inv{n}",
                author=author,
                content=types.Content(
                    role="user" if author == "user" else "model", parts=[types.Part(text=said)]
                ),
            ),
        )


async def rows(memory, app: str, user: str) -> list[tuple]:
    async with operator_connect(memory.engine) as conn:
        result = await conn.execute(
            text(
                f"SELECT id, text, source_hash, ingested_at FROM {TABLE}"
                " WHERE app_name = :app AND user_id = :user ORDER BY id"
            ),
            {"app": app, "user": user},
        )
        return [tuple(r) for r in result]


async def test_reindex_rewrites_only_that_users_rows(sessions, embedder, db_url):
    app, other_app = f"ri_{uuid.uuid4().hex[:8]}", f"ri_{uuid.uuid4().hex[:8]}"
    old = PgVectorMemoryService.from_url(
        db_url, embedder=embedder, write_policy=WritePolicy.FULL_TRANSCRIPT
    )  # today's store
    try:
        for a, u in ((app, "alice"), (app, "bob"), (other_app, "alice")):
            await seed(sessions, a, u)
            listed = await sessions.list_sessions(app_name=a, user_id=u)
            for s in listed.sessions:
                full = await sessions.get_session(app_name=a, user_id=u, session_id=s.id)
                await old.add_session_to_memory(full)
        assert len(await rows(old, app, "alice")) == len(TURNS)
        bob_before = await rows(old, app, "bob")
        other_before = await rows(old, other_app, "alice")

        # a dry run writes nothing
        async with PgVectorMemoryService(db_url, embedder=embedder) as routed:
            dry = await reindex(sessions, routed, app_name=app, user_id="alice", dry_run=True)
        assert dry.users[0].sentences["kept"] == 2
        # ... but says what the count would become (the real run below agrees)
        assert (dry.users[0].rows_before, dry.users[0].rows_after) == (5, 2)
        assert "1 session, rows 5 -> 2 (dry run: nothing written)" in dry.lines()[0]
        assert len(await rows(old, app, "alice")) == len(TURNS)

        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([os.getcwd(), env.get("PYTHONPATH", "")])
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "adk_memory_kit.cli",
                "--db-url",
                db_url,
                "reindex",
                "--app",
                app,
                "--user",
                "alice",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert f"{app}/alice: 1 session, rows 5 -> 2;" in done.stdout

        texts = sorted(r[1] for r in await rows(old, app, "alice"))
        assert texts == [
            "Mia's visit is on the calendar for June 14, table for three at Green Leaf.",
            "My sister Mia visits in June.",
        ]
        assert await rows(old, app, "bob") == bob_before  # same rows, not even re-written
        assert await rows(old, other_app, "alice") == other_before
    finally:
        await old.close()
