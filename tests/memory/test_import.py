"""Bulk import (issue 45): JSON lines, ADK's own SQLite memory service, a Mem0 export, through
the service's own doors (redaction gate, write policy), resumable and never duplicating.

Real parts: the embedded PostgreSQL, the real MiniLM embedder, ADK's ``SqliteMemoryService``
writing the file that is imported, the kit's CLI in a subprocess.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import uuid

import pytest
from google.adk.events.event import Event
from google.adk.memory import SqliteMemoryService
from google.adk.sessions.session import Session
from google.genai import types

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.errors import InvalidInputError

pytestmark = pytest.mark.slow

CARD = "4111 1111 1111 1111"


@pytest.fixture
async def memory(db_url, embedder):
    service = PgVectorMemoryService.from_url(
        db_url, embedder=embedder, write_policy="full_transcript"
    )
    yield service
    await service.close()


def _texts(found) -> list[str]:
    return [" ".join(p.text or "" for p in m.content.parts) for m in found.memories]


async def _count(memory, app: str, user: str) -> int:
    return sum((await memory.count_memories(app_name=app, user_id=user)).values())


def _jsonl(path, rows) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


async def test_json_lines_are_imported_redacted_and_a_second_run_adds_no_copies(memory, tmp_path):
    app = f"imp_{uuid.uuid4().hex[:8]}"
    source = tmp_path / "memories.jsonl"
    _jsonl(
        source,
        [
            {"user_id": "ana", "text": "Ana keeps two ferrets called Salt and Pepper",
             "timestamp": "2024-03-02T10:00:00Z"},
            {"user_id": "ana", "text": f"Ana's card for the gym is {CARD}"},
            {"user_id": "ben", "text": "Ben climbs at the Castle wall on Thursdays",
             "timestamp": 1709373600},
        ],
    )  # fmt: skip
    report = await memory.import_memories(source, app_name=app, state_file=tmp_path / "s.json")
    assert (report.read, report.written, report.rejected, report.complete) == (3, 3, 0, True)
    found = _texts(await memory.search(app_name=app, user_id="ana", query="ferrets"))
    assert "Ana keeps two ferrets called Salt and Pepper" in found
    stored = _texts(await memory.search(app_name=app, user_id="ana", query="gym card"))
    assert stored and not any(CARD in t for t in stored)  # the redaction gate ran
    assert not _texts(await memory.search(app_name=app, user_id="ben", query="ferrets"))
    again = await memory.import_memories(source, app_name=app, resume=False)
    assert again.written == 3
    assert await _count(memory, app, "ana") == 2 and await _count(memory, app, "ben") == 1


async def test_an_interrupted_import_resumes_after_its_last_batch(memory, tmp_path):
    app = f"imp_{uuid.uuid4().hex[:8]}"
    source = tmp_path / "many.jsonl"
    _jsonl(source, [{"user_id": "cat", "text": f"Cat's note number {n} about topic {n}"}
                    for n in range(7)])  # fmt: skip
    state = tmp_path / "state.json"

    def stop_after_the_first_batch(report) -> None:
        raise KeyboardInterrupt  # the operator's Ctrl-C, after the batch was written

    with pytest.raises(KeyboardInterrupt):
        await memory.import_memories(
            source, app_name=app, batch=3, state_file=state, progress=stop_after_the_first_batch
        )
    assert json.loads(state.read_text())["done"] == 3
    report = await memory.import_memories(source, app_name=app, batch=3, state_file=state)
    assert (report.skipped, report.written, report.complete) == (3, 4, True)
    assert await _count(memory, app, "cat") == 7


async def test_adk_sqlite_memory_is_imported_session_by_session(memory, tmp_path):
    app = f"imp_{uuid.uuid4().hex[:8]}"
    db = tmp_path / "adk_memory.db"
    adk = SqliteMemoryService(db_path=str(db))
    said = ["I moved to Leipzig last spring", "My daughter starts school in August"]
    events = [
        Event(
            id=f"e{n}",
            author="user",
            invocation_id="i",
            timestamp=1_700_000_000 + n,
            content=types.Content(role="user", parts=[types.Part(text=text)]),
        )
        for n, text in enumerate(said)
    ]
    await adk.add_session_to_memory(Session(id="s1", app_name=app, user_id="dora", events=events))
    await adk.close()

    report = await memory.import_memories(db, format="adk-sqlite", state_file=tmp_path / "st")
    assert (report.read, report.sessions) == (2, 1)
    found = _texts(await memory.search(app_name=app, user_id="dora", query="Leipzig"))
    assert any("Leipzig" in t for t in found)


async def test_a_mem0_export_is_imported_as_facts(memory, tmp_path):
    app = f"imp_{uuid.uuid4().hex[:8]}"
    export = tmp_path / "mem0.json"
    export.write_text(
        json.dumps(
            {
                "results": [
                    {"id": "m-1", "memory": "Prefers window seats on long flights",
                     "user_id": "eli", "created_at": "2024-05-01T08:00:00-07:00",
                     "metadata": {"category": "travel"}},
                    {"id": "m-2", "memory": "Allergic to penicillin", "user_id": "eli"},
                ]
            }
        )
    )  # fmt: skip
    report = await memory.import_memories(export, format="mem0", app_name=app,
                                          state_file=tmp_path / "st")  # fmt: skip
    assert report.read == 2
    found = _texts(await memory.search(app_name=app, user_id="eli", query="window seat"))
    assert "Prefers window seats on long flights" in found


async def test_bad_input_names_the_record_never_its_text(memory, tmp_path):
    source = tmp_path / "bad.jsonl"
    source.write_text('{"user_id": "fay", "text": "fine"}\nmy secret diary, not json\n')
    with pytest.raises(InvalidInputError) as caught:
        await memory.import_memories(source, app_name="imp_bad", state_file=tmp_path / "st")
    assert "line 2" in str(caught.value) and "diary" not in str(caught.value)
    when = tmp_path / "when.jsonl"
    when.write_text('{"user_id": "fay", "text": "fine", "timestamp": "last tuesday"}\n')
    with pytest.raises(InvalidInputError, match="line 1: the time is neither"):
        await memory.import_memories(when, app_name="imp_bad", state_file=tmp_path / "st2")
    with pytest.raises(InvalidInputError, match="format must be one of"):
        await memory.import_memories(source, format="csv")
    with pytest.raises(InvalidInputError, match="not a readable file"):
        await memory.import_memories(tmp_path / "missing.jsonl")


def test_the_cli_imports_and_reports(db_url, tmp_path):
    app = f"imp_{uuid.uuid4().hex[:8]}"
    source = tmp_path / "cli.jsonl"
    _jsonl(source, [{"user_id": "gus", "text": "Gus rebuilds old Vespa scooters"}])
    env = {**os.environ, "ADK_MEMORY_KIT_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "adk_memory_kit.cli", "--db-url", db_url, "import", str(source),
         "--app", app],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert "import complete: 1 records, 1 written" in done.stdout


async def test_an_import_waits_for_a_heavy_work_slot_and_holds_one(memory, tmp_path):
    """An import is heavy work (issue 49's admission control): while builds or purges hold
    every server-wide slot it writes nothing, and while it runs it holds one itself."""
    from adk_memory_kit.memory.admission import release_slot, slots_in_use, try_take_slot

    app = f"imp_{uuid.uuid4().hex[:8]}"
    source = tmp_path / "slot.jsonl"
    _jsonl(source, [{"user_id": "hal", "text": "Hal restores church organs in Lincolnshire"}])
    engine = await memory.store.ready()
    async with engine.connect() as holder:
        slot = await try_take_slot(holder)
        await holder.commit()
        assert slot is not None
        task = asyncio.create_task(memory.import_memories(source, app_name=app))
        await asyncio.sleep(1.0)
        assert not task.done() and await _count(memory, app, "hal") == 0
        await release_slot(holder, slot)
        await holder.commit()
        report = await asyncio.wait_for(task, timeout=60)
    assert report.written == 1 and await _count(memory, app, "hal") == 1
    async with engine.connect() as conn:
        assert await slots_in_use(conn) == 0  # given back at the end
