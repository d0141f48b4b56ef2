"""Writes at the database's pace (issue 45): one upsert statement per batch, the statistics
trigger touching only the batch's lexemes, and the migration that installs it.

Everything here checks stored results on the real server (no timings: the speed is measured
by benchmarks/write_rate.py).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import event, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.memory import term_stats
from adk_memory_kit.memory.schema import COMPONENT, _steps
from tests.support.memory import session_with, text_event, unique
from tests.support.term_counts import recounted_stats, stored_stats

pytestmark = pytest.mark.slow


async def _rows(memory, app, user, columns="text"):
    async with operator_connect(memory.engine) as conn:
        found = await conn.execute(
            text(
                f"SELECT event_id, {columns} FROM adk_memory_items"
                " WHERE app_name = :a AND user_id = :u ORDER BY event_id"
            ),
            {"a": app, "u": user},
        )
        return [dict(r) for r in found.mappings()]


class _Inserts:
    """Counts the statements that write to the memory table (INSERT) on an engine."""

    def __init__(self, engine) -> None:
        self.count = 0
        self.sync = engine.sync_engine
        event.listen(self.sync, "before_cursor_execute", self._seen)

    def _seen(self, conn, cursor, statement, params, context, executemany) -> None:
        if statement.lstrip().startswith("INSERT INTO adk_memory_items"):
            self.count += len(params) if executemany else 1

    def close(self) -> None:
        event.remove(self.sync, "before_cursor_execute", self._seen)


async def test_a_batch_of_events_is_one_statement_and_keeps_the_statistics(memory):
    app, user = unique("app"), unique("u")
    events = [text_event("user", f"Parcel {i} holds item{i} and the blue lamp") for i in range(60)]
    inserts = _Inserts(memory.engine)
    try:
        await memory.add_events_to_memory(app_name=app, user_id=user, events=events)
    finally:
        inserts.close()
    assert inserts.count == 1
    stored = await stored_stats(memory, app, user)
    assert stored == await recounted_stats(memory, app, user)
    assert stored[0] == 60 and stored[2]["lamp"] == 60


async def test_an_event_repeated_in_one_batch_is_stored_as_the_last_one(memory):
    app, user = unique("app"), unique("u")
    first = text_event("user", "My locker code changed to the green door", event_id="same")
    other = text_event("user", "The canteen opens at noon")
    last = text_event("user", "My locker moved to the basement hall", event_id="same")
    await memory.add_events_to_memory(app_name=app, user_id=user, events=[first, other, last])
    rows = await _rows(memory, app, user)
    assert sorted(r["text"] for r in rows) == [
        "My locker moved to the basement hall",
        "The canteen opens at noon",
    ]
    assert await stored_stats(memory, app, user) == await recounted_stats(memory, app, user)


async def test_a_session_repeating_an_event_id_keeps_the_last_text(memory):
    app, user = unique("app"), unique("u")
    session = session_with(app, user, [("user", "I moved to Porto in May")])
    session.events.append(text_event("user", "I moved to Braga in June", event_id="dup"))
    session.events.append(text_event("user", "I moved to Faro in July", event_id="dup"))
    await memory.add_session_to_memory(session)
    rows = await _rows(memory, app, user)
    assert [r["text"] for r in rows if r["event_id"] == "dup"] == ["I moved to Faro in July"]
    assert await stored_stats(memory, app, user) == await recounted_stats(memory, app, user)


async def test_every_value_of_an_explicit_add_round_trips(memory):
    app, user = unique("app"), unique("u")
    expires = datetime.now(timezone.utc) + timedelta(days=3)
    valid_from = datetime(2024, 5, 17, 8, 30, 1, 123456, tzinfo=timezone.utc)
    entry = MemoryEntry(
        content=types.Content(parts=[types.Part(text='Prefers "oat" milk — not soy\\dairy')]),
        custom_metadata={
            "importance": 0.7,
            "subject": "milk",
            "tags": ["diet", "café"],
            "expires_at": expires.isoformat(),
            "valid_from": valid_from.isoformat(),
            "note": {"quote": "it's", "n": [1, 2.5, None]},
        },
    )
    await memory.add_memory(app_name=app, user_id=user, memories=[entry])
    (row,) = await _rows(
        memory,
        app,
        user,
        "text, importance, subject, tags, expires_at, valid_from, metadata, embedding::text AS e",
    )
    assert row["text"] == 'Prefers "oat" milk — not soy\\dairy'
    assert row["importance"] == pytest.approx(np.float32(0.7))
    assert (row["subject"], sorted(row["tags"])) == ("milk", ["café", "diet"])
    assert row["expires_at"] == expires and row["valid_from"] == valid_from
    assert row["metadata"]["note"] == {"quote": "it's", "n": [1, 2.5, None]}
    (vector,) = await memory.embedder.embed([entry.content.parts[0].text])
    stored = np.array([float(x) for x in row["e"].strip("[]").split(",")], dtype=np.float32)
    assert np.allclose(stored, np.asarray(vector, dtype=np.float32), atol=1e-6)


async def test_lexemes_left_without_rows_go_and_the_others_stay(memory):
    app, user = unique("app"), unique("u")
    zebra = text_event("user", "The zebra sleeps near the giraffe", event_id="a")
    lion = text_event("user", "The giraffe watches the lion", event_id="b")
    for one in (zebra, lion):  # one call each: no row is the other's context
        await memory.add_events_to_memory(app_name=app, user_id=user, events=[one])
    assert (await stored_stats(memory, app, user))[2]["zebra"] == 1
    # an update: event b's words change (old lexemes -1, new +1)
    lion2 = text_event("user", "The giraffe watches the otter", event_id="b")
    await memory.add_events_to_memory(app_name=app, user_id=user, events=[lion2])
    stored = await stored_stats(memory, app, user)
    assert stored == await recounted_stats(memory, app, user)
    assert "lion" not in stored[2] and stored[2]["otter"] == 1 and stored[2]["giraff"] == 2
    # a delete: the row holding "zebra" goes
    async with operator_connect(memory.engine) as conn:
        await conn.execute(
            text(
                "DELETE FROM adk_memory_items WHERE app_name = :a AND user_id = :u"
                " AND event_id = 'a'"
            ),
            {"a": app, "u": user},
        )
        await conn.commit()
    stored = await stored_stats(memory, app, user)
    assert stored == await recounted_stats(memory, app, user)
    assert "zebra" not in stored[2] and stored[2]["giraff"] == 1
    assert all(df > 0 for df in stored[2].values())


def _function_step(dim: int) -> int:
    """How many steps ran before the one installing the current trigger function."""
    return [s.sql for s in _steps(dim)].index(term_stats.FUNCTION)


async def test_an_existing_database_gets_the_new_statistics_trigger(db_url, embedder):
    """A database migrated before issue 45 (its trigger function the first version) gets the
    new function from the appended step; its statistics stay right."""
    name = f"wr_{uuid.uuid4().hex[:10]}"
    admin = create_async_engine(db_url, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f"CREATE DATABASE {name}"))
    url = make_url(db_url).set(database=name).render_as_string(hide_password=False)
    try:
        first = PgVectorMemoryService.from_url(url, embedder=embedder)
        await first.ready()
        async with operator_connect(first.engine) as conn:  # back to the step before
            await conn.execute(text(term_stats._FUNCTION_V1))
            await conn.execute(
                text(
                    "UPDATE adk_memory_kit_schema SET step = :s, version = :s WHERE component = :c"
                ),
                # the step before the new trigger function (later steps run again too)
                {"s": _function_step(embedder.dim), "c": COMPONENT},
            )
            await conn.commit()
        app, user = unique("app"), unique("u")
        events = [text_event("user", "the yak grazes"), text_event("user", "the ibex climbs")]
        await first.add_events_to_memory(app_name=app, user_id=user, events=events)
        await first.close()

        second = PgVectorMemoryService.from_url(url, embedder=embedder)
        await second.ready()
        async with operator_connect(second.engine) as conn:
            body = await conn.scalar(
                text("SELECT prosrc FROM pg_proc WHERE proname = 'adk_memory_term_stats_apply'")
            )
            step = await conn.scalar(
                text("SELECT step FROM adk_memory_kit_schema WHERE component = :c"),
                {"c": COMPONENT},
            )
        assert "l.lexeme" in body.split("DELETE FROM", 1)[1]
        assert step == len(_steps(embedder.dim))
        async with operator_connect(second.engine) as conn:
            await conn.execute(
                text(
                    "DELETE FROM adk_memory_items WHERE app_name = :a AND user_id = :u"
                    " AND text LIKE '%yak%'"
                ),
                {"a": app, "u": user},
            )
            await conn.commit()
        stored = await stored_stats(second, app, user)
        assert stored == await recounted_stats(second, app, user) and stored[0] == 1
        await second.close()
    finally:
        async with admin.connect() as conn:
            await conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        await admin.dispose()


def test_the_batch_gate_redacts_like_the_store_gate():
    """The per-batch gate and its JSON walk give what the store's own gate gives, repeats and
    non-string keys included (a remembered answer never stands in for another text's)."""
    from adk_memory_kit.memory.items_sql import batch_gate, redact_json
    from adk_memory_kit.sensitive import redact_for_store, redact_value

    card = "4111 1111 1111 1111"
    value = {
        "note": f"my card is {card}",
        card: [card, ("password: hunter22", None), 4111111111111111],
        4111111111111111: {"nested": f"again {card}", "n": 1.5, "ok": True},
        "empty": "",
    }
    gate = batch_gate()
    for _ in range(2):  # the second pass answers from memory
        assert redact_json(value, gate) == redact_value(value)
        assert gate(f"my card is {card}") == redact_for_store(f"my card is {card}")
        assert gate(None) is None and gate("") == ""
    assert redact_json(value, gate) != value  # something was redacted
