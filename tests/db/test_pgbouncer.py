"""The kit through PgBouncer in transaction mode: a real PgBouncer started by the test in
front of the embedded server (skipped, saying why, when the binary is missing).

In transaction mode each transaction may run on another server connection, so nothing may
outlive one. Checked here through the pooler: statements run many times (a server-side
prepared statement would be unknown on the next connection), the per-transaction settings of
row-level security (``set_config(..., true)``), transaction-scoped advisory locks (concurrent
writes of one user keep its statistics exact), and the refusal of index builds, which need a
session of their own.
"""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.scope import operator_scope
from adk_memory_kit.db.engine import behind_transaction_pooler, make_engine
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.ann import build_user_index

pytestmark = pytest.mark.slow

PGBOUNCER = shutil.which("pgbouncer") or next(
    (p for p in ("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer") if Path(p).exists()), None
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def pooler_url(db_url):
    """A PgBouncer in transaction mode in front of the embedded server; its URL."""
    if PGBOUNCER is None:
        pytest.skip("pgbouncer is not installed (Debian: apt-get install pgbouncer)")
    parts = urlsplit(db_url)
    query = parse_qs(parts.query)
    socket_dir, pg_port = query["host"][0], query.get("port", ["5432"])[0]
    user, dbname = parts.username or "postgres", parts.path.lstrip("/") or "postgres"
    # its own directory under the system temp (PgBouncer may run as the server's own user,
    # below, who must reach it)
    work = Path(tempfile.mkdtemp(prefix="kit-pgbouncer-"))
    work.chmod(0o777)
    port = _free_port()
    (work / "users.txt").write_text(f'"{user}" ""\n')
    ini = work / "pgbouncer.ini"
    ini.write_text(
        "[databases]\n"
        f"kit = host={socket_dir} port={pg_port} dbname={dbname} user={user}\n"
        "[pgbouncer]\n"
        f"listen_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n"
        f"auth_type = trust\nauth_file = {work / 'users.txt'}\n"
        "pool_mode = transaction\ndefault_pool_size = 4\nmax_client_conn = 200\n"
        "ignore_startup_parameters = extra_float_digits,options\n"
        f"logfile = {work / 'pgbouncer.log'}\npidfile = {work / 'pgbouncer.pid'}\n"
    )
    command = [PGBOUNCER, str(ini)]
    if os.geteuid() == 0:  # PgBouncer will not run as root: as the owner of the server's socket
        command[1:1] = ["-u", pwd.getpwuid(os.stat(socket_dir).st_uid).pw_name]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                err = process.stderr.read().decode() if process.stderr else ""
                pytest.fail(f"pgbouncer did not start: {err[-500:]}")
            time.sleep(0.1)
    yield f"postgresql+psycopg://{user}@127.0.0.1:{port}/kit"
    process.terminate()
    process.wait(timeout=10)
    shutil.rmtree(work, ignore_errors=True)


def _entry(words: str) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=words)]))


def texts(found) -> list[str]:
    return [" ".join(p.text or "" for p in m.content.parts) for m in found.memories]


async def test_prepared_statements_need_the_pooler_mode(pooler_url):
    """The set-up is a real transaction pooler: the driver's prepared statements break on it
    (psycopg prepares a statement run five times in committed transactions), and the kit's
    pooler mode never prepares."""
    plain = make_engine(pooler_url, pool_size=1, max_overflow=0)
    pooled = make_engine(f"{pooler_url}?adk_pooler=transaction", pool_size=1, max_overflow=0)
    assert behind_transaction_pooler(pooled) and not behind_transaction_pooler(plain)
    other = make_engine(f"{pooler_url}?adk_pooler=transaction", pool_size=1, max_overflow=0)
    sql = text("SELECT count(*) FROM pg_class WHERE relname = :n")

    async def run(engine) -> None:
        # committed transactions (a rollback makes the driver forget what it prepared)
        for n in range(12):
            if n % 2:  # another client holds a server connection: this one gets another
                async with other.begin() as held:
                    await held.execute(text("SELECT 1"))
                    async with engine.begin() as conn:
                        await conn.scalar(sql, {"n": f"t{n}"})
            else:
                async with engine.begin() as conn:
                    await conn.scalar(sql, {"n": f"t{n}"})

    try:
        await run(pooled)
        with pytest.raises(DBAPIError):
            await run(plain)
    finally:
        for engine in (plain, pooled, other):
            await engine.dispose()


async def test_the_memory_service_works_through_the_pooler_with_row_level_security(
    pooler_url, embedder
):
    engine = make_engine(pooler_url, pooler="transaction", rls_enabled=True)
    memory = PgVectorMemoryService(engine=engine, embedder=embedder)
    app = f"pool_{uuid.uuid4().hex[:8]}"
    said = {
        "ann": ["Ann keeps bees in Tromso", "Ann plays a 1920 Hopf violin"],
        "bob": ["Bob repairs tube radios", "Bob swims in the fjord every morning"],
    }
    try:
        for user, facts in said.items():
            await memory.add_memory(app_name=app, user_id=user, memories=[_entry(s) for s in facts])
        # interleaved searches of both users, many times each: every transaction sets its own
        # scope on whichever server connection it gets
        for _ in range(4):
            for user, facts in said.items():
                found = texts(await memory.search(app_name=app, user_id=user, query=facts[0]))
                assert facts[0] in found
                other = next(u for u in said if u != user)
                assert not set(found) & set(said[other])
        # another client of the pooler leaves operator mode on at session level (a kit engine
        # without RLS and not in pooler mode sets it on connect): it widens nothing here
        leaky = make_engine(pooler_url, pool_size=1, max_overflow=0)
        async with leaky.connect() as conn:
            await conn.scalar(text("SELECT 1"))
        await leaky.dispose()
        # a statement without a user filter sees no one outside a scope, through the pooler
        async with engine.connect() as conn:
            assert await conn.scalar(text("SELECT count(*) FROM adk_memory_items")) == 0
        deleted = await memory.delete_memories(app_name=app, user_id="ann")
        assert deleted == 2
        assert texts(await memory.search(app_name=app, user_id="bob", query="radios"))
    finally:
        await memory.close()
        await engine.dispose()


async def test_concurrent_writes_of_one_user_keep_exact_statistics_through_the_pooler(
    pooler_url, embedder
):
    """The per-user write locks are transaction-scoped advisory locks: they hold through
    the pooler, so concurrent writers of one user leave its row count exact."""
    engine = make_engine(pooler_url, pooler="transaction")
    memory = PgVectorMemoryService(engine=engine, embedder=embedder)
    app, user = f"pool_{uuid.uuid4().hex[:8]}", "carla"
    try:
        await asyncio.gather(
            *(
                memory.add_memory(
                    app_name=app, user_id=user, memories=[_entry(f"Carla note {n} on topic {n}")]
                )
                for n in range(12)
            )
        )
        with operator_scope():
            async with engine.connect() as conn:
                rows = await conn.scalar(
                    text(
                        "SELECT count(*) FROM adk_memory_items WHERE app_name = :a AND user_id = :u"
                    ),
                    {"a": app, "u": user},
                )
                counted = await conn.scalar(
                    text(
                        "SELECT n FROM adk_memory_user_stats WHERE app_name = :a AND user_id = :u"
                    ),
                    {"a": app, "u": user},
                )
        assert rows == counted == 12
    finally:
        await memory.close()
        await engine.dispose()


async def test_index_builds_refuse_the_pooler_and_name_the_fix(pooler_url, embedder):
    engine = make_engine(pooler_url, pooler="transaction")
    memory = PgVectorMemoryService(engine=engine, embedder=embedder)
    app, user = f"pool_{uuid.uuid4().hex[:8]}", "dan"
    try:
        await memory.add_memory(app_name=app, user_id=user, memories=[_entry("Dan sails")])
        with pytest.raises(InvalidInputError, match="server's own URL"):
            await build_user_index(engine, app, user)
        assert memory.store.index_builder.started == 0  # writes start no background build
    finally:
        await memory.close()
        await engine.dispose()


def test_a_pooler_mode_the_kit_does_not_know_is_refused():
    with pytest.raises(InvalidInputError, match="pooler must be one of"):
        make_engine("postgresql+psycopg://u@127.0.0.1:1/db?adk_pooler=statement")


async def test_the_recommended_stack_runs_a_turn_through_the_pooler(pooler_url, embedder):
    """``MemoryKit`` on a pooler URL: the kit's engines and ADK's ``DatabaseSessionService``
    (which makes its own engine) both work in transaction mode."""
    from google.adk.agents.llm_agent import LlmAgent

    from adk_memory_kit import MemoryKit
    from adk_memory_kit.testing import ScriptedLlm

    memory = PgVectorMemoryService(f"{pooler_url}?adk_pooler=transaction", embedder=embedder)
    kit = MemoryKit(f"{pooler_url}?adk_pooler=transaction", memory_service=memory)
    agent = LlmAgent(name="helper", model=ScriptedLlm(responder=lambda _: "Noted."))
    try:
        runner = kit.runner(agent, app_name="pooled_app")
        session = await runner.session_service.create_session(app_name="pooled_app", user_id="eve")
        message = types.Content(role="user", parts=[types.Part(text="I keep goats in Wales.")])
        for _ in range(6):  # the same statements, more than the driver's prepare threshold
            async for _event in runner.run_async(
                user_id="eve", session_id=session.id, new_message=message
            ):
                pass
        done = await runner.session_service.get_session(
            app_name="pooled_app", user_id="eve", session_id=session.id
        )
        assert len(done.events) >= 12
    finally:
        await kit.close()
        await memory.close()
