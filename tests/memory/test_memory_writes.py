"""The write path's shape: one connection, one by-id read and one transaction per write; a
batched add_memory; stored fact keys stay valid. Real Postgres, real embedder (counted).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime, timezone

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import event, text

from adk_memory_kit import InvalidInputError, PgVectorMemoryService
from adk_memory_kit.core.ids import fact_key, legacy_text_fact_key, memory_row_id
from adk_memory_kit.db.rls import operator_begin, operator_connect
from adk_memory_kit.memory import items_sql
from tests.support.memory import session_with, texts, unique

pytestmark = pytest.mark.slow  # Postgres-heavy


class CountingEmbedder:
    """The real embedder, counting its batch calls and texts."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.calls: list[int] = []

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    async def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(len(texts))
        return await self.inner.embed(texts)


class StatementLog:
    """Statements and connection checkouts seen by an engine."""

    def __init__(self, engine) -> None:
        self.statements: list[str] = []
        self.checkouts = 0
        self._engine = engine.sync_engine
        event.listen(self._engine, "before_cursor_execute", self._on_statement)
        event.listen(self._engine.pool, "checkout", self._on_checkout)

    def _on_statement(self, conn, cursor, statement, params, context, executemany) -> None:
        self.statements.append(" ".join(statement.split()))

    def _on_checkout(self, *args) -> None:
        self.checkouts += 1

    def close(self) -> None:
        event.remove(self._engine, "before_cursor_execute", self._on_statement)
        event.remove(self._engine.pool, "checkout", self._on_checkout)

    def reset(self) -> None:
        self.statements.clear()
        self.checkouts = 0

    def count(self, fragment: str) -> int:
        return sum(fragment in s for s in self.statements)


@pytest.fixture
async def counted(db_url, embedder):
    service = PgVectorMemoryService(db_url, embedder=CountingEmbedder(embedder))
    await service.search_memory(app_name="warm", user_id="warm", query="schema ready")
    # one write first: the forget fence's table is created on first use, on its own connection
    # (a fresh database would count that once-per-database checkout against the write below)
    await service.add_memory(app_name="warm", user_id="warm", memories=[fact("warm-up")])
    service.embedder.calls.clear()
    log = StatementLog(service.engine)
    yield service, log
    log.close()
    await service.close()


def fact(text_: str, **kw) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=text_)]), **kw)


BY_IDS = "FROM unnest(CAST("  # the one by-id read (memory/items_sql.py)


async def test_a_session_write_uses_one_connection_one_read_and_one_embedding_call(counted):
    memory, log = counted
    app, user = unique("app"), unique("u")
    session = session_with(app, user, [("user", "I moved to Porto"), ("model", "Noted, Porto")])
    log.reset()
    await memory.add_session_to_memory(session)
    assert log.checkouts == 1
    assert log.count(BY_IDS) == 1
    assert memory.embedder.calls == [2]

    session.events[1].content.parts[0].text = "Noted: Porto, Portugal"
    log.reset()
    memory.embedder.calls.clear()
    await memory.add_session_to_memory(session)  # one turn changed: only it is embedded
    assert log.checkouts == 1 and log.count(BY_IDS) == 1
    assert memory.embedder.calls == [1]
    found = texts(await memory.search_memory(app_name=app, user_id=user, query="Porto"))
    assert sorted(found) == ["I moved to Porto", "Noted: Porto, Portugal"]


async def test_add_memory_embeds_all_entries_in_one_call_and_one_transaction(counted):
    memory, log = counted
    app, user = unique("app"), unique("u")
    entries = [fact(f"fact number {i} about the garden") for i in range(5)]
    log.reset()
    await memory.add_memory(app_name=app, user_id=user, memories=entries)
    assert memory.embedder.calls == [5]
    assert log.checkouts == 1 and log.count(BY_IDS) == 1
    assert log.count("INSERT INTO adk_memory_items") == 1  # one executemany
    assert sum((await memory.count_memories(app_name=app, user_id=user)).values()) == 5

    memory.embedder.calls.clear()
    await memory.add_memory(app_name=app, user_id=user, memories=entries)  # unchanged
    assert memory.embedder.calls == []


async def test_a_failing_entry_stores_none_of_the_batch(counted):
    memory, _ = counted
    app, user = unique("app"), unique("u")
    good = fact("the plumber comes on Friday")
    bad = fact("the electrician comes on Monday", custom_metadata={"importance": "very"})
    with pytest.raises(InvalidInputError):
        await memory.add_memory(app_name=app, user_id=user, memories=[good, bad])
    assert await memory.count_memories(app_name=app, user_id=user) == {}


async def test_entries_of_one_subject_in_one_call_are_ordered_by_date(counted):
    memory, _ = counted
    app, user = unique("app"), unique("u")
    older = fact("the trip goes to Rome", timestamp="2026-01-01T00:00:00+00:00")
    newer = fact("the trip goes to Oslo", timestamp="2026-02-01T00:00:00+00:00")
    await memory.add_memory(
        app_name=app, user_id=user, memories=[newer, older], custom_metadata={"subject": "trip"}
    )
    found = await memory.search_memory(app_name=app, user_id=user, query="trip")
    assert texts(found) == ["the trip goes to Oslo"]  # issue 29: superseded not returned
    then = await memory.search(
        app_name=app, user_id=user, query="trip", as_of=datetime(2026, 1, 15, tzinfo=timezone.utc)
    )
    rome = next(m for m in then.memories if "Rome" in m.content.parts[0].text)
    assert rome.custom_metadata["superseded_at"].startswith("2026-02-01")


async def test_the_last_of_two_entries_with_one_key_wins(counted):
    memory, _ = counted
    app, user = unique("app"), unique("u")
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[fact("seat 12A", id="seat"), fact("seat 3C", id="seat")],
    )
    found = texts(await memory.search_memory(app_name=app, user_id=user, query="seat"))
    assert found == ["seat 3C"]


def test_the_fact_key_is_the_normalized_text_hash():
    """One scheme (routing/apply and add_memory): case, punctuation and spacing do not
    matter; the digest is SHA-256 of the normalized text (the scheme stored rows use)."""
    assert fact_key("Seat: 12A!") == fact_key("  seat 12a ")
    expected = hashlib.sha256(b"seat 12a").hexdigest()[:32]
    assert fact_key("Seat 12A") == "fact:" + expected
    assert legacy_text_fact_key("Seat 12A") == (
        "fact:" + hashlib.sha256(b"Seat 12A").hexdigest()[:32]
    )


async def test_re_adding_the_same_fact_differently_spelled_updates_one_row(counted):
    memory, _ = counted
    app, user = unique("app"), unique("u")
    await memory.add_memory(app_name=app, user_id=user, memories=[fact("My seat is 12A.")])
    await memory.add_memory(app_name=app, user_id=user, memories=[fact("my seat is 12A")])
    assert await memory.count_memories(app_name=app, user_id=user) == {"fact": 1}


async def test_a_row_stored_under_the_older_text_key_is_updated_in_place(counted, db_url):
    """Rows written by releases that keyed an entry without id by its exact text keep their
    id: re-adding the fact updates that row instead of adding a second one."""
    memory, _ = counted
    app, user = unique("app"), unique("u")
    wording = "Dinner with Ana on Tuesday"
    await memory.add_memory(app_name=app, user_id=user, memories=[fact(wording)])
    # turn the stored row into one an older release wrote (its key and id)
    old_key = legacy_text_fact_key(wording)
    old_id = memory_row_id(app, user, "", old_key)
    async with operator_begin(memory.engine) as conn:
        await conn.execute(
            text(
                "UPDATE adk_memory_items SET id = :id, event_id = :key"
                " WHERE app_name = :app AND user_id = :user"
            ),
            {"id": old_id, "key": old_key, "app": app, "user": user},
        )
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[fact(wording, custom_metadata={"importance": 0.9})],
    )
    found = await memory.search_memory(app_name=app, user_id=user, query="dinner Ana")
    assert [m.id for m in found.memories] == [old_id]
    assert found.memories[0].custom_metadata["importance"] == pytest.approx(0.9)


async def test_an_entry_re_added_by_its_row_id_keeps_its_key(counted):
    memory, _ = counted
    app, user = unique("app"), unique("u")
    # (not a locker code: the routed default keeps a secret out of memory altogether)
    session = session_with(app, user, [("user", "my allotment plot is number 17 by the canal")])
    await memory.add_session_to_memory(session)
    (hit,) = (await memory.search_memory(app_name=app, user_id=user, query="allotment")).memories
    moved = types.Content(role="user", parts=[types.Part(text="allotment plot 23")])
    await memory.add_memory(
        app_name=app, user_id=user, memories=[hit.model_copy(update={"content": moved})]
    )
    found = (await memory.search_memory(app_name=app, user_id=user, query="allotment")).memories
    assert [(m.id, m.content.parts[0].text) for m in found] == [(hit.id, "allotment plot 23")]


async def test_the_by_id_read_returns_a_vector_only_where_it_is_reused(counted):
    """Unchanged rows cost no vector transfer; a row whose embedded text is unchanged but
    whose other fields changed gets its stored vector back (reused, not re-embedded)."""
    memory, _ = counted
    app, user = unique("app"), unique("u")
    session = session_with(app, user, [("user", "the boat is moored in Sines")])
    await memory.add_session_to_memory(session)
    (doc,) = memory.pipeline._session_documents(session, list(session.events))[0]
    other = doc.source_hash.split(":")[0] + ":" + "0" * 32
    new_text = "f" * 32 + ":" + "0" * 32
    async with operator_connect(memory.engine) as conn:
        same = await items_sql.read_by_ids(
            conn, app, user, [(doc.id, doc.source_hash)], same_too=False
        )
        assert same[doc.id].embedding is None
        forced = await items_sql.read_by_ids(
            conn, app, user, [(doc.id, doc.source_hash)], same_too=True
        )
        assert len(forced[doc.id].embedding) == memory.embedder.dim
        moved = await items_sql.read_by_ids(conn, app, user, [(doc.id, other)], same_too=False)
        assert len(moved[doc.id].embedding) == memory.embedder.dim
        fresh = await items_sql.read_by_ids(conn, app, user, [(doc.id, new_text)], same_too=True)
        assert fresh[doc.id].embedding is None
