"""The write policy end to end: a real Runner with the routing and checkpoint plugins and the
closer on default settings, then a new session; and the idle job in a second process."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid

import pytest
from google.adk.apps.app import App
from google.adk.runners import Runner
from google.genai import types
from sqlalchemy import text

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.session_policy import WritePolicy
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.demo.concierge import build_concierge_agent
from adk_memory_kit.lifecycle import MemoryCheckpointPlugin, SessionCloser
from adk_memory_kit.memory.tables import TABLE
from adk_memory_kit.routing import MemoryApplier, MemoryRoutingPlugin, ReviewQueue
from adk_memory_kit.routing.records import ROUTING_RECORD_KEY
from adk_memory_kit.testing import ScriptedLlm, offline_concierge_responder

pytestmark = pytest.mark.slow

MONDAY = [
    "Hi! I'm vegetarian, and please always deliver to the Pune office reception.",
    "Our budget is 15 euros today.",
    "Which one is cheaper, the thali or the wrap?",
    "My card is 4111 1111 1111 1111.",
    "Stop asking me to confirm prices.",
    "My colleague Anita joins us on Fridays.",
]
THURSDAY = ["Can you order lunch for me?", "Yes please. Thanks, that's all, bye!"]

# what must never be searchable afterwards (lower-case fragments of stored row text)
NEVER = {
    "review-queued instruction": "confirm prices",
    "session-only fact": "15 euros",
    "dropped sensitive turn": "card",
    "redaction marker": "redacted",
    "scratch comparison": "cheaper",
    "agent filler": "noted",
    "user filler": "that's all",
    "question without a fact": "can you order lunch",
    "echo of recalled memory": "from memory (",
}


async def say(runner: Runner, user: str, session_id: str, said: str) -> list:
    message = types.Content(role="user", parts=[types.Part(text=said)])
    return [
        e async for e in runner.run_async(user_id=user, session_id=session_id, new_message=message)
    ]


async def stored_texts(memory: PgVectorMemoryService, app: str, user: str) -> list[str]:
    async with operator_connect(memory.engine) as conn:
        rows = await conn.execute(
            text(f"SELECT text FROM {TABLE} WHERE app_name = :app AND user_id = :user"),
            {"app": app, "user": user},
        )
        return [r.text for r in rows]


def assert_nothing_unwanted(texts: list[str]) -> None:
    assert texts, "nothing was stored at all"
    for what, fragment in NEVER.items():
        offending = [t for t in texts if fragment in t.lower()]
        assert not offending, f"{what} is searchable: {offending}"


async def assert_delivery_on_top(memory: PgVectorMemoryService, app: str, user: str) -> None:
    found = await memory.search_memory(app_name=app, user_id=user, query="delivery address")
    top = found.memories[0]
    assert "deliver to the Pune office reception" in top.content.parts[0].text
    assert top.timestamp  # dated


def concierge_app(app_name: str, queue: ReviewQueue) -> App:
    model = ScriptedLlm(responder=offline_concierge_responder)
    return App(
        name=app_name,
        root_agent=build_concierge_agent(model),
        plugins=[
            MemoryRoutingPlugin(applier=MemoryApplier(review_queue=queue)),
            MemoryCheckpointPlugin(),
        ],
    )


async def test_runner_closer_checkpoint_and_a_new_session_store_only_routed_content(
    sessions, embedder, db_url
):
    app_name, user = f"wp_{uuid.uuid4().hex[:8]}", "u1"
    memory = PgVectorMemoryService(db_url, embedder=embedder)  # default settings
    assert memory.config.write_policy is WritePolicy.ROUTED
    queue = ReviewQueue(db_url)
    runner = Runner(
        app=concierge_app(app_name, queue), session_service=sessions, memory_service=memory
    )
    try:
        monday = await sessions.create_session(app_name=app_name, user_id=user)
        for said in MONDAY:  # the checkpoint plugin ingests after the 5th turn
            await say(runner, user, monday.id, said)
        result = await SessionCloser(sessions, memory).close(app_name, user, monday.id)
        assert result.ok
        items = await queue.list(app_name=app_name, user_id=user)
        assert [i.text for i in items] == ["Stop asking me to confirm prices."]
        reloaded = await sessions.get_session(app_name=app_name, user_id=user, session_id=monday.id)
        recorded = [e for e in reloaded.events if ROUTING_RECORD_KEY in (e.custom_metadata or {})]
        assert not [e for e in reloaded.events if ROUTING_RECORD_KEY in e.actions.state_delta]
        # one durable record per turn that had candidates, read back from the DB: every Monday
        # turn has one (the default learned router keeps Anita's as a lasting fact)
        assert len(recorded) == len(MONDAY)
        assert reloaded.state["user:pref_diet"] == "vegetarian"

        thursday = await sessions.create_session(app_name=app_name, user_id=user)
        events = await say(runner, user, thursday.id, THURSDAY[0])
        replies = " ".join(
            p.text for e in events if e.content for p in e.content.parts or [] if p.text
        )
        assert "From memory (" in replies  # the agent restated recall (dated)
        assert "deliver to Pune office reception" in replies
        await say(runner, user, thursday.id, THURSDAY[1])  # end_session closes Thursday

        texts = await stored_texts(memory, app_name, user)
        assert_nothing_unwanted(texts)
        assert "My colleague Anita joins us on Fridays." in texts  # a user turn with content
        await assert_delivery_on_top(memory, app_name, user)
        # the session fact and the profile value did not leak into a later session's search
        budget = await memory.search_memory(app_name=app_name, user_id=user, query="budget")
        assert all("15" not in m.content.parts[0].text for m in budget.memories)
    finally:
        await runner.close()
        await queue.close()
        await memory.close()


async def test_the_same_session_in_full_transcript_mode_stores_everything_said(
    sessions, embedder, db_url
):
    app_name, user = f"wp_{uuid.uuid4().hex[:8]}", "u1"
    memory = PgVectorMemoryService.from_url(
        db_url, embedder=embedder, write_policy=WritePolicy.FULL_TRANSCRIPT
    )
    queue = ReviewQueue(db_url)
    runner = Runner(
        app=concierge_app(app_name, queue), session_service=sessions, memory_service=memory
    )
    try:
        monday = await sessions.create_session(app_name=app_name, user_id=user)
        for said in MONDAY:
            await say(runner, user, monday.id, said)
        await SessionCloser(sessions, memory).close(app_name, user, monday.id)
        texts = " ".join(await stored_texts(memory, app_name, user)).lower()
        assert "confirm prices" in texts and "15 euros" in texts and "noted" in texts
    finally:
        await runner.close()
        await queue.close()
        await memory.close()


async def test_idle_job_in_a_second_process_applies_the_recorded_decisions(
    sessions, embedder, db_url
):
    app_name, user = f"wp_{uuid.uuid4().hex[:8]}", "u2"
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    queue = ReviewQueue(db_url)
    app = concierge_app(app_name, queue)
    app.plugins = [p for p in app.plugins if not isinstance(p, MemoryCheckpointPlugin)]
    runner = Runner(app=app, session_service=sessions, memory_service=memory)
    try:
        monday = await sessions.create_session(app_name=app_name, user_id=user)
        for said in MONDAY:
            await say(runner, user, monday.id, said)
        # only the router's dated facts are stored so far (the delivery instruction, and the
        # colleague fact the default learned router keeps as a long-term fact): the runner
        # writes no transcript
        routed = await stored_texts(memory, app_name, user)
        assert len(routed) == 2 and "My colleague Anita joins us on Fridays." in routed
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([os.getcwd(), env.get("PYTHONPATH", "")])
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "adk_memory_kit.cli",
                "--db-url",
                db_url,
                "ingest-idle",
                "--app",
                app_name,
                "--once",
                "--idle-minutes",
                "0",
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert "ingested 1" in done.stdout + done.stderr
        texts = await stored_texts(memory, app_name, user)
        assert_nothing_unwanted(texts)
        assert "My colleague Anita joins us on Fridays." in texts
        await assert_delivery_on_top(memory, app_name, user)
    finally:
        await runner.close()
        await queue.close()
        await memory.close()
