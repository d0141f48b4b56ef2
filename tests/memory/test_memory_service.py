"""PgVectorMemoryService against the real embedded PostgreSQL and the real local embedder."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta, timezone

import pytest
from google.adk.memory.base_memory_service import BaseMemoryService
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import text

from adk_memory_kit import InvalidInputError, PgVectorMemoryService
from adk_memory_kit.core.session_policy import WritePolicy
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.memory import IndexingOptions, SearchOptions
from tests.support.memory import session_with, text_event, texts, unique

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it


@pytest.fixture(scope="module")
async def memory(db_url, embedder):
    # storage mechanics on every event; the default ROUTED policy: tests/write_policy/
    service = PgVectorMemoryService.from_url(
        db_url, embedder=embedder, write_policy="full_transcript"
    )
    yield service
    await service.close()


async def _rows(memory, app, user) -> int:
    async with operator_connect(memory.engine) as conn:
        result = await conn.execute(
            text("SELECT count(*) FROM adk_memory_items WHERE app_name = :a AND user_id = :u"),
            {"a": app, "u": user},
        )
        return result.scalar_one()


def fact(text_: str, **kw) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=text_)]), **kw)


async def test_is_an_adk_memory_service(memory):
    assert isinstance(memory, BaseMemoryService)


async def test_readding_a_session_never_duplicates(memory):
    app, user = unique("app"), unique("u")
    session = session_with(
        app,
        user,
        [
            ("user", "I booked flight LH 1234 to Lisbon"),
            ("model", "Great, flight LH 1234 is noted"),
        ],
    )
    for _ in range(3):
        await memory.add_session_to_memory(session)
    assert await _rows(memory, app, user) == 2
    found = await memory.search_memory(app_name=app, user_id=user, query="flight to Lisbon")
    assert len(found.memories) == 2
    assert len({m.id for m in found.memories}) == 2


async def test_readding_drops_events_gone_from_the_session_and_updates_edited_ones(memory):
    app, user = unique("app"), unique("u")
    session = session_with(
        app, user, [("user", "first message about tulips"), ("user", "second message about roses")]
    )
    await memory.add_session_to_memory(session)
    session.events = session.events[1:]
    session.events[0].content.parts[0].text = "second message about orchids"
    await memory.add_session_to_memory(session)
    assert await _rows(memory, app, user) == 1
    found = texts(await memory.search_memory(app_name=app, user_id=user, query="flowers"))
    assert found == ["second message about orchids"]


async def test_delta_adds_upsert_and_leave_the_rest_alone(memory):
    app, user = unique("app"), unique("u")
    session = session_with(app, user, [("user", "my cat is called Miso")])
    await memory.add_session_to_memory(session)
    delta = [text_event("user", "my dog is called Pixel")]
    await memory.add_events_to_memory(
        app_name=app, user_id=user, events=delta, session_id=session.id
    )
    await memory.add_events_to_memory(
        app_name=app, user_id=user, events=delta, session_id=session.id
    )
    assert await _rows(memory, app, user) == 2
    found = texts(await memory.search_memory(app_name=app, user_id=user, query="Pixel"))
    assert found[0] == "my dog is called Pixel"


async def test_explicit_memories_are_dated_deduplicated_and_deletable(memory):
    app, user = unique("app"), unique("u")
    entry = fact(
        "User prefers aisle seats", author="extractor", timestamp="2026-09-28T10:00:00+00:00"
    )
    await memory.add_memory(app_name=app, user_id=user, memories=[entry])
    await memory.add_memory(app_name=app, user_id=user, memories=[entry])
    found = await memory.search_memory(app_name=app, user_id=user, query="seat preference")
    assert len(found.memories) == 1
    hit = found.memories[0]
    assert hit.timestamp == "2026-09-28T10:00:00+00:00"
    assert hit.author == "extractor"
    assert hit.custom_metadata["kind"] == "fact"
    assert hit.custom_metadata["score"] > 0
    await memory.delete_memory(app_name=app, user_id=user, memory_id=hit.id)
    assert (await memory.search_memory(app_name=app, user_id=user, query="seat")).memories == []


async def test_entry_metadata_carries_id_author_iso_time_score_session_and_kind(memory):
    app, user = unique("app"), unique("u")
    when = datetime(2026, 3, 2, 9, 30, tzinfo=timezone.utc).timestamp()
    session = session_with(app, user, [])
    session.events = [text_event("user", "deliver lunch to the Pune office reception", ts=when)]
    await memory.add_session_to_memory(session)
    (hit,) = (await memory.search_memory(app_name=app, user_id=user, query="delivery")).memories
    assert hit.timestamp == "2026-03-02T09:30:00+00:00"
    assert hit.author == "user"
    assert hit.custom_metadata["session_id"] == session.id
    assert hit.custom_metadata["kind"] == "event"
    assert hit.custom_metadata["event_id"] == session.events[0].id
    assert hit.id


async def test_delete_session_and_user_memories(memory):
    app, user, other = unique("app"), unique("u"), unique("u")
    s1 = session_with(app, user, [("user", "alpha one"), ("user", "alpha two")])
    s2 = session_with(app, user, [("user", "beta one")])
    s3 = session_with(app, other, [("user", "alpha of someone else")])
    for s in (s1, s2, s3):
        await memory.add_session_to_memory(s)
    assert await memory.delete_session_memories(app_name=app, user_id=user, session_id=s1.id) == 2
    assert await _rows(memory, app, user) == 1
    assert await memory.delete_user_memories(app_name=app, user_id=user) == 1
    assert await _rows(memory, app, user) == 0
    assert await _rows(memory, app, other) == 1


async def test_delete_memory_rejects_foreign_ids_and_garbage(memory):
    app, user, other = unique("app"), unique("u"), unique("u")
    await memory.add_memory(app_name=app, user_id=other, memories=[fact("secret of other")])
    (hit,) = (await memory.search_memory(app_name=app, user_id=other, query="secret")).memories
    await memory.delete_memory(app_name=app, user_id=user, memory_id=hit.id)  # not user's: no-op
    assert await _rows(memory, app, other) == 1
    with pytest.raises(InvalidInputError, match="memory_id"):
        await memory.delete_memory(app_name=app, user_id=other, memory_id="not-an-id")


@pytest.mark.parametrize(
    ("wanted", "decoy"),
    [
        ("A-4521", "A-4512"),
        ("QX7T2L", "QX7T2J"),
        ("maya.patel@example.com", "maya.pate@example.com"),
    ],
)
async def test_exact_tokens_are_found_and_beat_near_misses(memory, wanted, decoy):
    app, user = unique("app"), unique("u")
    filler = [("user", f"we talked about the weather on day {i}") for i in range(20)]
    session = session_with(
        app,
        user,
        [
            *filler,
            ("user", f"Please track {decoy} for me, it is the older one"),
            ("user", f"My reference is {wanted}, please look it up"),
            *filler[:5],
        ],
    )
    await memory.add_session_to_memory(session)
    for _ in range(3):  # stable ranking, not luck
        found = texts(await memory.search_memory(app_name=app, user_id=user, query=wanted))
        assert wanted in found[0]
        decoy_pos = (
            next(i for i, t in enumerate(found) if decoy in t)
            if any(decoy in t for t in found)
            else len(found)
        )
        assert decoy_pos > 0


async def test_no_user_ever_sees_another_users_memories(memory):
    apps = [unique("app"), unique("app")]
    users = [unique("u") for _ in range(12)]
    for app in apps:
        sessions = [
            session_with(
                app,
                user,
                [
                    ("user", f"my shelf label is {app[-4:]}{i:02d} for {user}"),
                    ("user", "I like hiking and locker rooms"),
                ],
            )
            for i, user in enumerate(users)
        ]
        await asyncio.gather(*(memory.add_session_to_memory(s) for s in sessions))
    for app in apps:
        for i, user in enumerate(users):
            found = await memory.search_memory(
                app_name=app, user_id=user, query="shelf label hiking"
            )
            assert found.memories, "own memories must be found"
            for entry in found.memories:
                body = " ".join(p.text for p in entry.content.parts)
                assert "hiking" in body or user in body
                assert "for u-" not in body or user in body
            other_code = f"{app[-4:]}{(i + 1) % len(users):02d}"
            hits = texts(await memory.search_memory(app_name=app, user_id=user, query=other_code))
            assert all(other_code not in t for t in hits)
    # an unknown user or app sees nothing at all
    empty = await memory.search_memory(app_name=apps[0], user_id="nobody", query="locker")
    assert empty.memories == []
    empty = await memory.search_memory(app_name="no-such-app", user_id=users[0], query="locker")
    assert empty.memories == []


async def test_concurrent_writers_lose_nothing_and_duplicate_nothing(memory):
    app = unique("app")
    users = [unique("u") for _ in range(4)]
    sessions = [
        session_with(app, u, [("user", f"note {k} of {u}") for k in range(5)])
        for u in users
        for _ in range(2)
    ]
    # every session written by three concurrent workers, plus concurrent searches
    jobs = [memory.add_session_to_memory(s) for s in sessions for _ in range(3)]
    jobs += [memory.search_memory(app_name=app, user_id=u, query="note") for u in users]
    await asyncio.gather(*jobs)
    for u in users:
        assert await _rows(memory, app, u) == 10


async def test_result_cap_default_and_override(memory):
    app, user = unique("app"), unique("u")
    await memory.add_session_to_memory(
        session_with(app, user, [("user", f"pizza topping idea number {i}") for i in range(25)])
    )
    assert (
        len((await memory.search_memory(app_name=app, user_id=user, query="pizza")).memories) == 10
    )
    capped = await memory.search_memory(app_name=app, user_id=user, query="pizza", limit=3)
    assert len(capped.memories) == 3
    small = PgVectorMemoryService.from_url(
        memory.engine.url.render_as_string(hide_password=False),
        embedder=memory.embedder,
        search=SearchOptions(limit=4),
    )
    try:
        assert (
            len((await small.search_memory(app_name=app, user_id=user, query="pizza")).memories)
            == 4
        )
    finally:
        await small.close()


async def test_empty_and_whitespace_queries_return_nothing(memory):
    app, user = unique("app"), unique("u")
    await memory.add_session_to_memory(session_with(app, user, [("user", "something stored")]))
    for q in ["", "   ", "\n\t", "\x00"]:
        assert (await memory.search_memory(app_name=app, user_id=user, query=q)).memories == []


async def test_stopword_only_query_returns_nothing_unless_the_floor_is_off(memory):
    app, user = unique("app"), unique("u")
    await memory.add_session_to_memory(session_with(app, user, [("user", "it was what it was")]))
    found = await memory.search_memory(app_name=app, user_id=user, query="what was it")
    assert texts(found) == []  # ADK's contract: nothing is relevant to stop words
    memory.store.search_options = memory.store.search_options.model_copy(
        update={"relevance_floor": False}
    )
    try:
        found = await memory.search_memory(app_name=app, user_id=user, query="what was it")
    finally:
        memory.store.search_options = memory.store.search_options.model_copy(
            update={"relevance_floor": True}
        )
    assert texts(found) == ["it was what it was"]  # the vector half, as before


async def test_bad_input_gets_clear_errors_and_loses_nothing(memory):
    app, user = unique("app"), unique("u")
    await memory.add_session_to_memory(session_with(app, user, [("user", "keep me safe")]))
    with pytest.raises(InvalidInputError, match="user_id"):
        await memory.search_memory(app_name=app, user_id="", query="x")
    with pytest.raises(InvalidInputError, match="app_name"):
        await memory.add_memory(app_name=None, user_id=user, memories=[fact("x")])
    with pytest.raises(InvalidInputError, match="NUL"):
        await memory.add_memory(app_name=app, user_id="u\x00", memories=[fact("x")])
    with pytest.raises(InvalidInputError, match="query must be a string"):
        await memory.search_memory(app_name=app, user_id=user, query=42)
    with pytest.raises(InvalidInputError, match="MemoryEntry"):
        await memory.add_memory(app_name=app, user_id=user, memories=["plain string"])
    with pytest.raises(InvalidInputError, match="non-empty text"):
        await memory.add_memory(app_name=app, user_id=user, memories=[fact("   ")])
    with pytest.raises(InvalidInputError, match="ISO-8601"):
        await memory.add_memory(
            app_name=app, user_id=user, memories=[fact("dated", timestamp="last tuesday")]
        )
    with pytest.raises(InvalidInputError, match="ttl"):
        await memory.add_memory(
            app_name=app, user_id=user, memories=[fact("x")], custom_metadata={"ttl": -5}
        )
    with pytest.raises(InvalidInputError, match="Event"):
        await memory.add_events_to_memory(app_name=app, user_id=user, events=[{"text": "x"}])
    assert await _rows(memory, app, user) == 1
    assert texts(await memory.search_memory(app_name=app, user_id=user, query="safe")) == [
        "keep me safe"
    ]


async def test_huge_text_is_stored_whole_and_still_found(memory):
    app, user = unique("app"), unique("u")
    body = "The warehouse inventory report. " + ("lorem ipsum dolor sit amet " * 40_000)
    body += " closing word ZEBRA-9911"
    await memory.add_session_to_memory(session_with(app, user, [("user", body)]))
    (hit,) = (
        await memory.search_memory(app_name=app, user_id=user, query="warehouse inventory")
    ).memories
    assert hit.content.parts[0].text == body


async def test_nul_bytes_unicode_and_non_text_parts(memory):
    app, user = unique("app"), unique("u")
    session = session_with(
        app,
        user,
        [
            ("user", "zero\x00byte inside"),
            ("user", "Ünïcödé: 東京で寿司 🍣 and עברית"),
        ],
    )
    session.events.append(text_event("model", "placeholder"))
    session.events[-1].content = types.Content(
        role="model",
        parts=[types.Part(function_call=types.FunctionCall(name="lookup", args={"q": "x"}))],
    )
    session.events.append(text_event("user", "placeholder"))
    session.events[-1].content = types.Content(
        role="user",
        parts=[types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG"))],
    )
    session.events.append(text_event("user", "placeholder"))
    session.events[-1].content = None
    await memory.add_session_to_memory(session)
    assert await _rows(memory, app, user) == 2
    found = texts(await memory.search_memory(app_name=app, user_id=user, query="東京で寿司 🍣"))
    assert "Ünïcödé: 東京で寿司 🍣 and עברית" in found
    found = texts(await memory.search_memory(app_name=app, user_id=user, query="byte inside"))
    assert "zero\ufffdbyte inside" in found


async def test_function_calls_are_indexed_only_when_asked(db_url, embedder):
    app, user = unique("app"), unique("u")
    event = text_event("model", "x")
    event.content = types.Content(
        role="model",
        parts=[types.Part(function_call=types.FunctionCall(name="book_table", args={"guests": 4}))],
    )
    session = session_with(app, user, [])
    session.events = [event]
    service = (
        PgVectorMemoryService.from_url(  # function calls are stored in full-transcript mode only
            db_url,
            embedder=embedder,
            indexing=IndexingOptions(index_function_calls=True),
            write_policy="full_transcript",
        )
    )
    try:
        await service.add_session_to_memory(session)
        found = texts(await service.search_memory(app_name=app, user_id=user, query="book_table"))
        assert found and "book_table" in found[0]
    finally:
        await service.close()


async def test_ttl_and_expiry(memory):
    app, user = unique("app"), unique("u")
    past = (datetime.now(timezone.utc) - timedelta(minutes=1)).isoformat()
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[fact("expired parking spot B7")],
        custom_metadata={"expires_at": past},
    )
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[fact("parking spot C3 today")],
        custom_metadata={"ttl": 3600, "importance": 0.9},
    )
    found = (await memory.search_memory(app_name=app, user_id=user, query="parking spot")).memories
    assert [m.content.parts[0].text for m in found] == ["parking spot C3 today"]
    assert found[0].custom_metadata["importance"] == pytest.approx(0.9)
    assert "expires_at" in found[0].custom_metadata
    assert await memory.purge_expired() >= 1
    assert await _rows(memory, app, user) == 1


async def test_supersession_keeps_history_and_ranks_current_first(memory):
    app, user = unique("app"), unique("u")
    await memory.add_memory(
        app_name=app,
        user_id=user,
        custom_metadata={"subject": "diet"},
        memories=[fact("User's diet: vegetarian", timestamp="2026-09-01T00:00:00Z")],
    )
    await memory.add_memory(
        app_name=app,
        user_id=user,
        custom_metadata={"subject": "diet"},
        memories=[
            fact("User's diet: pescatarian (eats fish now)", timestamp="2026-09-28T00:00:00Z")
        ],
    )
    found = (
        await memory.search_memory(app_name=app, user_id=user, query="vegetarian diet")
    ).memories
    # issue 29: the superseded fact is not returned by default; as_of reaches it
    assert len(found) == 1
    assert "pescatarian" in found[0].content.parts[0].text
    assert "superseded_at" not in found[0].custom_metadata
    then = await memory.search(
        app_name=app,
        user_id=user,
        query="vegetarian diet",
        as_of=datetime(2026, 9, 10, tzinfo=timezone.utc),
    )
    assert [m.content.parts[0].text for m in then.memories] == ["User's diet: vegetarian"]
    assert "superseded_at" in then.memories[0].custom_metadata


async def test_survives_a_real_server_restart(tmp_path):
    """Write with one process on the embedded default, read with another after it stopped."""
    script = (
        "import asyncio, sys\n"
        "from google.genai import types\n"
        "from google.adk.memory.memory_entry import MemoryEntry\n"
        "from adk_memory_kit import PgVectorMemoryService\n"
        "async def main(mode):\n"
        "    async with PgVectorMemoryService() as m:\n"
        "        if mode == 'write':\n"
        "            part = types.Part(text='gate colour 4471')\n"
        "            e = MemoryEntry(content=types.Content(parts=[part]))\n"
        "            await m.add_memory(app_name='a', user_id='u', memories=[e])\n"
        "        else:\n"
        "            r = await m.search_memory(app_name='a', user_id='u', query='gate colour')\n"
        "            print(r.memories[0].content.parts[0].text)\n"
        "asyncio.run(main(sys.argv[1]))\n"
    )
    import os
    import subprocess
    import sys

    env = {**os.environ, "ADK_MEMORY_KIT_HOME": str(tmp_path)}
    env.pop("ADK_MEMORY_KIT_DB_URL", None)
    run = [sys.executable, "-c", script]
    subprocess.run([*run, "write"], env=env, check=True, timeout=120)
    assert not (tmp_path / "pgdata" / "postmaster.pid").exists(), "server should stop on exit"
    out = subprocess.run(
        [*run, "read"], env=env, check=True, timeout=120, capture_output=True, text=True
    )
    assert out.stdout.strip() == "gate colour 4471"


class _OtherDimEmbedder:
    model_id = "other-model"
    dim = 8

    async def embed(self, texts_):
        return [[0.0] * 8 for _ in texts_]


class _OtherModelSameDim:
    model_id = "some-other-384-model"
    dim = 384

    async def embed(self, texts_):
        return [[0.0] * 384 for _ in texts_]


async def test_embedder_mismatch_is_refused_with_a_clear_error(memory, db_url):
    from adk_memory_kit import EmbeddingDimensionError

    await memory.search_memory(app_name="a", user_id="u", query="warm up the schema")
    for bad, pattern in [
        (_OtherDimEmbedder(), "dimension 8 does not match the stored 384"),
        (_OtherModelSameDim(), "not comparable"),
    ]:
        service = PgVectorMemoryService(db_url, embedder=bad)
        try:
            with pytest.raises(EmbeddingDimensionError, match=pattern):
                await service.search_memory(app_name="a", user_id="u", query="x")
        finally:
            await service.close()


async def test_unknown_options_and_conflicting_urls_are_rejected():
    with pytest.raises(InvalidInputError, match="unknown PgVectorMemoryService options"):
        PgVectorMemoryService(embedder=_OtherDimEmbedder(), colour="blue")
    with pytest.raises(InvalidInputError, match=r"MemoryConfig\.colour"):
        PgVectorMemoryService.from_url(embedder=_OtherDimEmbedder(), colour="blue")
    with pytest.raises(InvalidInputError, match="not two different"):
        PgVectorMemoryService(
            "postgresql://a/b", uri="postgresql://c/d", embedder=_OtherDimEmbedder()
        )
    with pytest.raises(InvalidInputError, match="unsupported database URL scheme"):
        await PgVectorMemoryService("mysql://x/y", embedder=_OtherDimEmbedder()).search_memory(
            app_name="a", user_id="u", query="q"
        )


async def test_ingestion_skips_reembedding_unchanged_events(db_url, embedder):
    calls: list[int] = []

    class Counting:
        model_id, dim = embedder.model_id, embedder.dim

        async def embed(self, texts_):
            calls.append(len(texts_))
            return await embedder.embed(texts_)

    service = PgVectorMemoryService(db_url, embedder=Counting())
    app, user = unique("app"), unique("u")
    # six statements the write policy keeps (bare placeholders such as "turn 1" state nothing
    # and, since issue 46, are not stored at all)
    said = [
        "I play tennis on Mondays.",
        "My sister lives in Lyon.",
        "We adopted a cat called Miso.",
        "I grew up in Galway.",
        "Our car is a blue Fiat.",
        "I collect old maps of Portugal.",
    ]
    session = session_with(app, user, [("user", text) for text in said])
    try:
        await service.add_session_to_memory(session)
        await service.add_session_to_memory(session)
        session.events.append(text_event("user", "I started learning the cello."))
        await service.add_session_to_memory(session)
    finally:
        await service.close()
    assert calls == [6, 0, 1] or calls == [6, 1]


async def test_restating_a_superseded_fact_makes_it_current_again(memory):
    app, user = unique("app"), unique("u")
    veg = fact("User's diet: vegetarian", timestamp="2026-09-01T00:00:00Z")
    fish = fact("User's diet: pescatarian", timestamp="2026-09-28T00:00:00Z")
    # back to vegetarian: the same text, stated again later (the fact's date decides, see
    # test_an_older_fact_added_last_does_not_supersede_a_newer_one)
    veg_again = fact("User's diet: vegetarian", timestamp="2026-10-05T00:00:00Z")
    for entry in (veg, fish, veg_again):
        await memory.add_memory(
            app_name=app, user_id=user, memories=[entry], custom_metadata={"subject": "diet"}
        )
    found = (await memory.search_memory(app_name=app, user_id=user, query="diet")).memories
    current = [m for m in found if "superseded_at" not in m.custom_metadata]
    assert [m.content.parts[0].text for m in current] == ["User's diet: vegetarian"]
    assert found[0].content.parts[0].text == "User's diet: vegetarian"


async def test_secrets_are_redacted_before_anything_is_stored(memory):
    app, user = unique("app"), unique("u")
    said = "Charge my card 4111 1111 1111 1111 and deliver to gate 7"
    await memory.add_session_to_memory(session_with(app, user, [("user", said)]))
    async with operator_connect(memory.engine) as conn:
        stored = (
            await conn.execute(
                text(
                    "SELECT text || search_text FROM adk_memory_items"
                    " WHERE app_name = :a AND user_id = :u"
                ),
                {"a": app, "u": user},
            )
        ).scalar_one()
    assert "4111" not in stored and "[REDACTED:payment_card]" in stored
    found = texts(await memory.search_memory(app_name=app, user_id=user, query="deliver gate"))
    assert found == ["Charge my card [REDACTED:payment_card] and deliver to gate 7"]


# ---------------------------------------------------------------- review findings


async def _stored(memory, app, user, columns="*") -> list[dict]:
    async with operator_connect(memory.engine) as conn:
        rows = await conn.execute(
            text(
                f"SELECT {columns} FROM adk_memory_items WHERE app_name = :a AND user_id = :u"
                " ORDER BY event_time, event_id"
            ),
            {"a": app, "u": user},
        )
        return [dict(r) for r in rows.mappings()]


def _facts(found) -> tuple[list[str], list[str]]:
    """(current texts, superseded texts) of a search response."""
    current = [m for m in found.memories if "superseded_at" not in m.custom_metadata]
    old = [m for m in found.memories if "superseded_at" in m.custom_metadata]
    return texts(type(found)(memories=current)), texts(type(found)(memories=old))


async def test_an_older_fact_added_last_does_not_supersede_a_newer_one(memory):
    app, user = unique("app"), unique("u")
    fish = fact("User's diet: pescatarian", timestamp="2026-09-28T00:00:00Z")
    veg = fact("User's diet: vegetarian", timestamp="2026-09-01T00:00:00Z")
    for entry in (fish, veg, veg):  # the older fact arrives last (twice: still older)
        await memory.add_memory(
            app_name=app, user_id=user, memories=[entry], custom_metadata={"subject": "diet"}
        )
    found = await memory.search_memory(app_name=app, user_id=user, query="vegetarian diet")
    assert _facts(found) == (["User's diet: pescatarian"], [])  # issue 29: superseded hidden
    then = await memory.search(
        app_name=app,
        user_id=user,
        query="vegetarian diet",
        as_of=datetime(2026, 9, 10, tzinfo=timezone.utc),
    )
    assert _facts(then) == ([], ["User's diet: vegetarian"])
    old = then.memories[0]
    # superseded as of the date of the fact that replaced it
    assert old.custom_metadata["superseded_at"] == "2026-09-28T00:00:00+00:00"
    # a third, newer fact supersedes the current one, dated by its own date
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[fact("User's diet: vegan", timestamp="2026-10-10T00:00:00Z")],
        custom_metadata={"subject": "diet"},
    )
    found = await memory.search_memory(app_name=app, user_id=user, query="diet")
    assert _facts(found) == (["User's diet: vegan"], [])
    by_text = {}
    for day in (10, 30):  # each superseded fact, as of a time it held
        then = await memory.search(
            app_name=app,
            user_id=user,
            query="diet",
            as_of=datetime(2026, 9, day, tzinfo=timezone.utc),
        )
        by_text.update({m.content.parts[0].text: m.custom_metadata for m in then.memories})
    assert by_text["User's diet: pescatarian"]["superseded_at"] == "2026-10-10T00:00:00+00:00"
    assert by_text["User's diet: vegetarian"]["superseded_at"] == "2026-09-28T00:00:00+00:00"


class _GatedEmbedder:
    """Holds the first embed call until released, so that caller commits last."""

    def __init__(self, inner):
        self.inner = inner
        self.model_id, self.dim = inner.model_id, inner.dim
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self._first = True

    async def embed(self, texts_):
        if self._first:
            self._first = False
            self.entered.set()
            await self.release.wait()
        return await self.inner.embed(texts_)


async def test_an_older_session_snapshot_committing_last_loses_nothing(db_url, embedder):
    gated = _GatedEmbedder(embedder)
    service = PgVectorMemoryService.from_url(db_url, embedder=gated, write_policy="full_transcript")
    app, user = unique("app"), unique("u")
    newer = session_with(
        app,
        user,
        [
            ("user", "I need a hotel in Porto for March"),
            ("model", "Any preference on the area?"),
            ("user", "Near Ribeira, with a river view"),
        ],
    )
    older = newer.model_copy(update={"events": newer.events[:2]})
    try:
        slow = asyncio.create_task(service.add_session_to_memory(older))
        await asyncio.wait_for(gated.entered.wait(), 60)  # the older snapshot is embedding
        await service.add_session_to_memory(newer)
        gated.release.set()
        await slow  # ... and commits last
        rows = await _stored(service, app, user, "event_id, text, context_text")
        assert [r["event_id"] for r in rows] == [e.id for e in newer.events]
        # the second turn keeps the newer snapshot's context (it knows the third turn)
        assert "Ribeira" in rows[1]["context_text"]
        found = await service.search_memory(app_name=app, user_id=user, query="river view")
        assert "Near Ribeira, with a river view" in texts(found)
        # re-adding the older snapshot later changes nothing either
        await service.add_session_to_memory(older)
        assert len(await _stored(service, app, user, "id")) == 3
        # once the session's memories are deleted, any copy of it can be ingested again
        await service.delete_session_memories(app_name=app, user_id=user, session_id=older.id)
        await service.add_session_to_memory(older)
        assert len(await _stored(service, app, user, "id")) == 2
    finally:
        gated.release.set()
        await service.close()


async def test_a_snapshot_does_not_delete_rows_of_newer_events(memory):
    app, user = unique("app"), unique("u")
    session = session_with(app, user, [("user", "first turn about kayaks")])
    await memory.add_session_to_memory(session)
    later = text_event("user", "a later turn about canoes", ts=session.events[0].timestamp + 60)
    await memory.add_events_to_memory(
        app_name=app, user_id=user, events=[later], session_id=session.id
    )
    await memory.add_session_to_memory(session)  # a snapshot taken before the later turn
    assert [r["text"] for r in await _stored(memory, app, user, "text")] == [
        "first turn about kayaks",
        "a later turn about canoes",
    ]


async def test_isolation_holds_inside_every_ranked_list(db_url, embedder):
    """Another user's rows that match better must not crowd this user's row out of any list.

    With a candidate depth of 3 and more than 3 rows of another user ranking above this
    user's row in each list if the lists were shared, a list missing the user filter would
    hold only that user's rows: the final join would hide them, but this user's row would
    lose that list's share of the fused score (or vanish altogether).
    """
    options = SearchOptions(candidates=3, limit=3)
    # every turn stored (this checks the lists' user filter, not the write policy: the routed
    # default keeps a sentence about a code out of memory when the router calls it sensitive)
    service = PgVectorMemoryService.from_url(
        db_url, embedder=embedder, search=options, write_policy=WritePolicy.FULL_TRANSCRIPT
    )
    app, user, other = unique("app"), unique("u"), unique("u")
    try:
        # rows that share both words (vector, exact words) or just one (BM25: with document
        # frequencies from everyone's rows but a row count from this user's, a word found in
        # more rows than the user has gets a negative weight, so fewer matches rank higher)
        await service.add_session_to_memory(
            session_with(
                app,
                other,
                [("user", f"locker code {i}: the locker code") for i in range(4)]
                + [("user", f"the locker room {i} by the pool") for i in range(4)],
            )
        )
        await service.add_session_to_memory(
            session_with(app, user, [("user", "my gym locker has a code I keep forgetting")])
        )
        found = await service.search_memory(app_name=app, user_id=user, query="locker code")
        assert texts(found) == ["my gym locker has a code I keep forgetting"]
        # the only row of the user is first in all three lists (vector, BM25, exact words)
        alone = sum(
            w / (options.rrf_k + 1)
            for w in (options.vector_weight, options.text_weight, options.exact_weight)
        )
        assert found.memories[0].custom_metadata["score"] == pytest.approx(alone)
        # and the other user does rank their own rows above it in every list
        theirs = await service.search_memory(app_name=app, user_id=other, query="locker code")
        assert len(theirs.memories) == 3
        assert all("locker" in t for t in texts(theirs))
    finally:
        await service.close()


async def test_readding_a_fact_with_new_hygiene_values_updates_them(memory):
    app, user = unique("app"), unique("u")
    entry = fact("User's gym locker is 42", timestamp="2026-09-28T00:00:00Z")

    async def hit():
        (m,) = (await memory.search_memory(app_name=app, user_id=user, query="locker")).memories
        return m.custom_metadata

    await memory.add_memory(
        app_name=app, user_id=user, memories=[entry], custom_metadata={"importance": 0.2}
    )
    assert (await hit())["importance"] == pytest.approx(0.2)
    await memory.add_memory(
        app_name=app, user_id=user, memories=[entry], custom_metadata={"importance": 0.9}
    )
    assert (await hit())["importance"] == pytest.approx(0.9)
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[entry],
        custom_metadata={"importance": 0.9, "expires_at": "2099-01-01T00:00:00Z"},
    )
    assert (await hit())["expires_at"] == "2099-01-01T00:00:00+00:00"
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[entry],
        custom_metadata={"importance": 0.9, "ttl": 3600},
    )
    expires = datetime.fromisoformat((await hit())["expires_at"])
    assert timedelta(minutes=59) < expires - datetime.now(timezone.utc) <= timedelta(hours=1)
    # an explicit add states the item whole: without hygiene keys, none are kept
    await memory.add_memory(app_name=app, user_id=user, memories=[entry])
    meta = await hit()
    assert "importance" not in meta and "expires_at" not in meta
    assert await _rows(memory, app, user) == 1


async def test_reingesting_a_session_keeps_hygiene_values_set_by_an_explicit_add(memory):
    app, user = unique("app"), unique("u")
    session = session_with(
        app, user, [("user", "my parking spot today is B7"), ("model", "Noted, spot B7")]
    )
    await memory.add_events_to_memory(
        app_name=app,
        user_id=user,
        events=session.events[:1],
        session_id=session.id,
        custom_metadata={"ttl": 3600, "importance": 0.7, "subject": "parking", "source": "x"},
    )
    (before,) = await _stored(memory, app, user)
    await memory.add_session_to_memory(session)  # rewrites the row: its context changed
    after = next(r for r in await _stored(memory, app, user) if r["id"] == before["id"])
    assert "Noted, spot B7" in after["context_text"]
    assert after["expires_at"] == before["expires_at"] is not None
    assert after["importance"] == pytest.approx(0.7)
    assert after["subject"] == "parking"
    assert after["metadata"]["source"] == "x"
    assert await _rows(memory, app, user) == 2


async def test_readding_an_entry_as_search_returned_it_updates_that_row(memory):
    app, user = unique("app"), unique("u")
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[fact("User's seat preference: aisle", timestamp="2026-09-01T00:00:00Z")],
        custom_metadata={"subject": "seat", "importance": 0.5},
    )
    session = session_with(app, user, [("user", "my shelf label is 1234")])
    await memory.add_session_to_memory(session)
    found = await memory.search_memory(app_name=app, user_id=user, query="seat preference")
    returned = next(m for m in found.memories if "seat" in m.content.parts[0].text)
    await memory.add_memory(app_name=app, user_id=user, memories=[returned])  # as returned
    assert await _rows(memory, app, user) == 2
    edited = returned.model_copy(
        update={"content": types.Content(role="user", parts=[types.Part(text="window seat")])}
    )
    await memory.add_memory(app_name=app, user_id=user, memories=[edited])
    again = await memory.search_memory(app_name=app, user_id=user, query="window seat")
    hit = next(m for m in again.memories if m.id == returned.id)
    assert hit.content.parts[0].text == "window seat"
    assert hit.custom_metadata["subject"] == "seat"
    assert "superseded_at" not in hit.custom_metadata
    # an event row keeps its session and event key
    (event_hit,) = (
        await memory.search_memory(app_name=app, user_id=user, query="shelf label", limit=1)
    ).memories
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[
            event_hit.model_copy(
                update={"content": types.Content(parts=[types.Part(text="shelf label 9876")])}
            )
        ],
    )
    assert await _rows(memory, app, user) == 2
    row = next(r for r in await _stored(memory, app, user) if str(r["id"]) == event_hit.id)
    assert (row["session_id"], row["event_id"], row["kind"]) == (
        session.id, session.events[0].id, "event",
    )  # fmt: skip
    assert row["text"] == "shelf label 9876"
    # what search adds to the metadata is not stored as the entry's own metadata
    assert not {"score", "ingested_at", "event_id"} & set(row["metadata"])
    # a caller's own key that is not a row id still keys the entry
    for body in ("first", "second"):
        await memory.add_memory(
            app_name=app, user_id=user, memories=[fact(f"note {body}", id="my-note-1")]
        )
    assert await _rows(memory, app, user) == 3


async def test_custom_metadata_is_redacted_and_cleaned_before_it_is_stored(memory):
    app, user = unique("app"), unique("u")
    card = "4111 1111 1111 1111"
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[fact("booked the Lisbon hotel", custom_metadata={"note": f"paid with {card}"})],
        custom_metadata={"nested": {"cards": [f"card {card}"], "n": 3}},
    )
    await memory.add_events_to_memory(
        app_name=app,
        user_id=user,
        events=[text_event("user", "booked the Porto hotel")],
        custom_metadata={"payment": {"card": card}},
    )
    rows = await _stored(memory, app, user, "metadata::text AS m")
    assert len(rows) == 2
    for row in rows:
        assert "4111" not in row["m"] and "[REDACTED:payment_card]" in row["m"]


async def test_documents_are_built_off_the_event_loop(memory, monkeypatch):
    import threading

    import adk_memory_kit.memory.pipeline as service_module  # where the documents are built

    threads: list[threading.Thread] = []
    for name in ("documents_from_events", "documents_from_entries"):
        original = getattr(service_module, name)

        def spy(*args, _original=original, **kwargs):
            threads.append(threading.current_thread())
            return _original(*args, **kwargs)

        monkeypatch.setattr(service_module, name, spy)
    app, user = unique("app"), unique("u")
    await memory.add_session_to_memory(session_with(app, user, [("user", "x " * 200_000)]))
    await memory.add_events_to_memory(
        app_name=app, user_id=user, events=[text_event("user", "a delta")]
    )
    await memory.add_memory(app_name=app, user_id=user, memories=[fact("a fact")])
    assert len(threads) == 3
    assert threading.main_thread() not in threads


async def test_edge_inputs_raise_invalid_input_or_are_cleaned(memory):
    app, user = unique("app"), unique("u")
    session = session_with(app, user, [("user", "broken \ud83d surrogate in a turn")])
    session.events[0].author = "user\udc00"
    await memory.add_session_to_memory(session)
    (row,) = await _stored(memory, app, user, "text, author")
    assert row["text"] == "broken \ufffd surrogate in a turn"
    assert row["author"] == "user\ufffd"
    # a proper pair written as two surrogates is joined into its character
    await memory.add_memory(app_name=app, user_id=user, memories=[fact("sushi \ud83c\udf63")])
    assert "sushi 🍣" in [r["text"] for r in await _stored(memory, app, user, "text")]
    found = await memory.search_memory(app_name=app, user_id=user, query="surrogate \udc00 turn")
    assert "broken \ufffd surrogate in a turn" in texts(found)

    for ttl in (float("inf"), float("nan"), 1e300, 10**400, timedelta(days=999_999_999)):
        with pytest.raises(InvalidInputError, match="ttl"):
            await memory.add_memory(
                app_name=app, user_id=user, memories=[fact("x")], custom_metadata={"ttl": ttl}
            )
    for limit in (True, "5", 2.0, 0, 2**40):
        with pytest.raises(InvalidInputError, match="limit"):
            await memory.search_memory(app_name=app, user_id=user, query="turn", limit=limit)
    for ts in (float("nan"), float("inf"), 1e300, -1e300):
        bad = session_with(app, user, [("user", "a turn with a broken clock")])
        bad.events[0].timestamp = ts
        with pytest.raises(InvalidInputError, match=bad.events[0].id):
            await memory.add_session_to_memory(bad)
        with pytest.raises(InvalidInputError, match=bad.events[0].id):
            await memory.add_events_to_memory(app_name=app, user_id=user, events=bad.events)
    with pytest.raises(InvalidInputError, match="timestamp"):
        await memory.add_memory(
            app_name=app,
            user_id=user,
            memories=[fact("x", timestamp="9999-12-31T23:00:00-05:00")],
        )
    with pytest.raises(InvalidInputError, match="NaN"):
        await memory.add_memory(
            app_name=app, user_id=user, memories=[fact("x", custom_metadata={"n": float("nan")})]
        )
    assert await _rows(memory, app, user) == 2
    # NUL bytes and lone surrogates in metadata (which JSONB cannot hold) become U+FFFD
    await memory.add_memory(
        app_name=app,
        user_id=user,
        memories=[fact("metadata edge cases")],
        custom_metadata={"k\x00": ["a\x00b", {"s": "c\ud800d"}]},
    )
    rows = await _stored(memory, app, user, "text, metadata")
    (meta,) = [r["metadata"] for r in rows if r["text"] == "metadata edge cases"]
    assert meta == {"k\ufffd": ["a\ufffdb", {"s": "c\ufffdd"}]}


async def test_a_naive_expires_at_datetime_is_utc(db_url, embedder):
    from sqlalchemy.ext.asyncio import create_async_engine

    # a server session in another time zone must not shift a naive datetime
    engine = create_async_engine(db_url, connect_args={"options": "-c TimeZone=Asia/Kolkata"})
    service = PgVectorMemoryService(engine=engine, embedder=embedder)
    app, user = unique("app"), unique("u")
    try:
        for expires in (datetime(2099, 1, 1, 12, 0), "2099-01-01T12:00:00"):
            await service.add_memory(
                app_name=app,
                user_id=user,
                memories=[fact("visa appointment reminder")],
                custom_metadata={"expires_at": expires},
            )
            (hit,) = (
                await service.search_memory(app_name=app, user_id=user, query="visa")
            ).memories
            assert hit.custom_metadata["expires_at"] == "2099-01-01T12:00:00+00:00"
    finally:
        await service.close()
        await engine.dispose()


async def test_search_embeds_the_query_with_embed_query(db_url, embedder):
    calls: list[tuple[str, int]] = []

    class Asymmetric:
        model_id, dim = embedder.model_id, embedder.dim

        async def embed(self, texts_):
            calls.append(("embed", len(texts_)))
            return await embedder.embed(texts_)

        async def embed_query(self, texts_):
            calls.append(("embed_query", len(texts_)))
            return await embedder.embed(texts_)

    service = PgVectorMemoryService(db_url, embedder=Asymmetric())
    app, user = unique("app"), unique("u")
    try:
        await service.add_memory(app_name=app, user_id=user, memories=[fact("gate colour 4471")])
        found = await service.search_memory(app_name=app, user_id=user, query="gate colour")
        assert texts(found) == ["gate colour 4471"]
    finally:
        await service.close()
    assert calls == [("embed", 1), ("embed_query", 1)]


async def test_an_unreachable_database_raises_a_clear_error():
    from adk_memory_kit import DatabaseUnavailableError

    url = "postgresql+psycopg://kit:s3cret-pw@127.0.0.1:1/agents"
    service = PgVectorMemoryService(url, embedder=_OtherDimEmbedder())
    try:
        with pytest.raises(DatabaseUnavailableError) as info:
            await service.search_memory(app_name="a", user_id="u", query="anything")
        message = str(info.value)
        assert "127.0.0.1:1/agents" in message and "kit:***@" in message
        assert "s3cret-pw" not in message
        assert "ADK_MEMORY_KIT_DB_URL" in message and "embedded default" in message
        with pytest.raises(DatabaseUnavailableError):
            async with service:
                pass
    finally:
        await service.close()


async def _valid_to(memory, app, user) -> dict[str, datetime | None]:
    return {r["text"]: r["valid_to"] for r in await _stored(memory, app, user, "text, valid_to")}


def _at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


@pytest.mark.parametrize("newest_first", [False, True], ids=["in-order", "newest-first"])
async def test_facts_of_one_subject_in_one_call_are_ordered_by_date(memory, newest_first):
    app, user = unique("app"), unique("u")
    paris = text_event("user", "I live in Paris", ts=1000.0)
    berlin = text_event("user", "I moved to Berlin", ts=2000.0)
    await memory.add_events_to_memory(
        app_name=app,
        user_id=user,
        events=[berlin, paris] if newest_first else [paris, berlin],
        session_id="s1",
        custom_metadata={"subject": "home_city"},
    )
    assert await _valid_to(memory, app, user) == {
        "I live in Paris": _at(2000),
        "I moved to Berlin": None,
    }
    found = await memory.search_memory(app_name=app, user_id=user, query="where do I live")
    assert _facts(found) == (["I moved to Berlin"], [])  # issue 29: superseded not returned
    then = await memory.search(app_name=app, user_id=user, query="where do I live", as_of=_at(1500))
    assert _facts(then) == ([], ["I live in Paris"])

    # a stored current fact and the facts of a new call are ordered together
    hamburg = text_event("user", "Now I live in Hamburg", ts=3000.0)
    munich = text_event("user", "Before that I lived in Munich", ts=1500.0)
    await memory.add_events_to_memory(
        app_name=app,
        user_id=user,
        events=[hamburg, munich],
        session_id="s2",
        custom_metadata={"subject": "home_city"},
    )
    assert await _valid_to(memory, app, user) == {
        "I live in Paris": _at(2000),
        "Before that I lived in Munich": _at(2000),
        "I moved to Berlin": _at(3000),
        "Now I live in Hamburg": None,
    }


async def test_facts_of_one_subject_with_the_same_date_in_one_call_last_wins(memory):
    app, user = unique("app"), unique("u")
    first = text_event("user", "My seat preference: aisle", ts=1000.0)
    second = text_event("user", "My seat preference: window", ts=1000.0)
    other = text_event("user", "My meal preference: vegetarian", ts=500.0)
    await memory.add_events_to_memory(
        app_name=app,
        user_id=user,
        events=[first, second],
        session_id="s1",
        custom_metadata={"subject": "seat"},
    )
    await memory.add_events_to_memory(
        app_name=app,
        user_id=user,
        events=[other],
        session_id="s1",
        custom_metadata={"subject": "meal"},
    )
    assert await _valid_to(memory, app, user) == {
        "My seat preference: aisle": _at(1000),
        "My seat preference: window": None,
        "My meal preference: vegetarian": None,  # another subject: untouched
    }
