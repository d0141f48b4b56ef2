"""ADK's memory-service contract, as ADK's own unit tests state it for its built-in services
(in-memory, SQLite, and the SQL ``DatabaseMemoryService``), run against PgVectorMemoryService
on its defaults (routed write policy, relevance floor on). Our own corpus and wording.

Each item: what a user of ``BaseMemoryService`` relies on. The service must also take what
ADK's services take: a duck-typed session (``Mock(spec=Session)``) and events whose
``actions`` is ``None``.
"""

from __future__ import annotations

from unittest.mock import Mock

import pytest
from google.adk.events.event import Event
from google.adk.sessions.session import Session
from google.genai import types

from adk_memory_kit import PgVectorMemoryService
from tests.support.memory import unique

pytestmark = pytest.mark.slow

USER, OTHER = "ana", "bruno"


def _event(eid: str, author: str, text: str | None, ts: float) -> Event:
    content = None
    if text is not None:
        role = "user" if author == "user" else "model"
        content = types.Content(role=role, parts=[types.Part(text=text)])
    return Event(id=eid, invocation_id=f"inv-{eid}", author=author, timestamp=ts, content=content)


def _garden(app: str, user: str = USER) -> Session:
    """Two text turns about a greenhouse and one event with no content between them."""
    return Session(
        app_name=app,
        user_id=user,
        id="garden",
        last_update_time=2_000,
        events=[
            _event("g1", "user", "My greenhouse tomatoes finally ripened this week.", 1_000),
            _event("g2", "user", None, 1_001),
            _event("g3", "model", "Ripe greenhouse tomatoes make a wonderful salsa!", 1_002),
        ],
    )


def _music(app: str, user: str = USER) -> Session:
    return Session(
        app_name=app,
        user_id=user,
        id="music",
        last_update_time=3_000,
        events=[_event("m1", "user", "I practise the cello every evening.", 1_500)],
    )


def _texts(response) -> list[str]:
    return [m.content.parts[0].text for m in response.memories]


@pytest.fixture(scope="module")
async def service(db_url, embedder):
    svc = PgVectorMemoryService(db_url, embedder=embedder)  # defaults
    yield svc
    await svc.close()


async def _search(service, app: str, query: str, user: str = USER):
    return await service.search_memory(app_name=app, user_id=user, query=query)


async def test_added_session_is_found(service):
    app = unique("contract")
    await service.add_session_to_memory(_garden(app))
    assert (await _search(service, app, "greenhouse tomatoes")).memories


async def test_session_without_events_stores_nothing(service):
    app = unique("contract")
    await service.add_session_to_memory(
        Session(app_name=app, user_id=USER, id="empty", last_update_time=1)
    )
    assert not (await _search(service, app, "tomatoes")).memories


async def test_events_without_content_are_skipped_and_both_authors_kept(service):
    app = unique("contract")
    await service.add_session_to_memory(_garden(app))
    found = (await _search(service, app, "greenhouse")).memories
    assert len(found) == 2
    assert {m.author for m in found} == {"user", "model"}


async def test_a_turn_of_stop_words_is_not_returned_for_another_query(service):
    app = unique("contract")
    session = Session(
        app_name=app,
        user_id=USER,
        id="stop",
        events=[_event("s1", "user", "and then it was over there", 1_000)],
    )
    await service.add_session_to_memory(session)
    assert not (await _search(service, app, "kayak")).memories


async def test_empty_query_returns_nothing(service):
    app = unique("contract")
    await service.add_session_to_memory(_garden(app))
    assert not (await _search(service, app, "")).memories
    assert not (await _search(service, app, "   ")).memories


async def test_stop_word_only_query_returns_nothing(service):
    app = unique("contract")
    await service.add_session_to_memory(_garden(app))
    await service.add_session_to_memory(_music(app))
    for query in ("with the of", "what is it", "and or but"):
        assert not (await _search(service, app, query)).memories, query


async def test_one_word_query_returns_only_the_matching_turn(service):
    app = unique("contract")
    await service.add_session_to_memory(_garden(app))
    await service.add_session_to_memory(_music(app))
    found = (await _search(service, app, "cello")).memories
    assert _texts_of(found) == ["I practise the cello every evening."]
    assert found[0].author == "user"


def _texts_of(memories) -> list[str]:
    return [m.content.parts[0].text for m in memories]


async def test_search_is_case_insensitive(service):
    app = unique("contract")
    await service.add_session_to_memory(_garden(app))
    await service.add_session_to_memory(_music(app))
    found = (await _search(service, app, "CELLO")).memories
    assert _texts_of(found) == ["I practise the cello every evening."]


async def test_every_matching_turn_is_returned(service):
    app = unique("contract")
    await service.add_session_to_memory(_garden(app))
    await service.add_session_to_memory(_music(app))
    found = set(_texts_of((await _search(service, app, "tomatoes")).memories))
    assert found == {
        "My greenhouse tomatoes finally ripened this week.",
        "Ripe greenhouse tomatoes make a wonderful salsa!",
    }


async def test_a_query_matching_nothing_returns_nothing(service):
    app = unique("contract")
    await service.add_session_to_memory(_garden(app))
    await service.add_session_to_memory(_music(app))
    for query in ("nonexistent", "xylophagous quasar", "blorptastic"):
        assert not (await _search(service, app, query)).memories, query


async def test_search_is_scoped_to_the_user(service):
    app = unique("contract")
    await service.add_session_to_memory(_garden(app))
    await service.add_session_to_memory(_music(app, user=OTHER))
    assert not (await _search(service, app, "cello")).memories
    other = (await _search(service, app, "cello", user=OTHER)).memories
    assert _texts_of(other) == ["I practise the cello every evening."]


async def test_adding_a_session_twice_never_duplicates(service):
    app = unique("contract")
    await service.add_session_to_memory(_garden(app))
    await service.add_session_to_memory(_garden(app))
    assert len((await _search(service, app, "greenhouse")).memories) == 2


async def test_events_added_with_a_session_id_are_found(service):
    app = unique("contract")
    await service.add_events_to_memory(
        app_name=app, user_id=USER, session_id="garden", events=[_garden(app).events[0]]
    )
    found = (await _search(service, app, "greenhouse tomatoes")).memories
    assert len(found) == 1 and found[0].author == "user"


async def test_events_added_without_a_session_id_are_found(service):
    app = unique("contract")
    await service.add_events_to_memory(app_name=app, user_id=USER, events=_music(app).events)
    assert len((await _search(service, app, "cello")).memories) == 1


async def test_events_without_content_add_nothing(service):
    app = unique("contract")
    await service.add_events_to_memory(
        app_name=app, user_id=USER, events=[_event("e0", "user", None, 1_000)]
    )
    assert not (await _search(service, app, "anything")).memories


async def test_async_context_manager(db_url, embedder):
    app = unique("contract")
    async with PgVectorMemoryService(db_url, embedder=embedder) as svc:
        await svc.add_session_to_memory(_garden(app))
        assert (await _search(svc, app, "tomatoes")).memories


async def test_memories_outlive_the_service_instance(db_url, embedder):
    app = unique("contract")
    async with PgVectorMemoryService(db_url, embedder=embedder) as first:
        await first.add_session_to_memory(_garden(app))
    async with PgVectorMemoryService(db_url, embedder=embedder) as second:
        assert len((await _search(second, app, "tomatoes")).memories) == 2


# ------------------------------------------------------------------ duck typing
def _mock_event(eid: str, author: str, text: str, ts: float) -> Mock:
    event = Mock(spec=Event)
    event.id, event.author, event.timestamp = eid, author, ts
    event.invocation_id = f"inv-{eid}"
    event.content = types.Content(role="user", parts=[types.Part(text=text)])
    event.actions = None  # as a hand-built event may have it
    event.partial = None
    return event


def _mock_session(app: str, events: list) -> Mock:
    session = Mock(spec=Session)
    session.app_name, session.user_id, session.id = app, USER, "mocked"
    session.events = events
    session.last_update_time = 5_000
    return session


async def test_a_mock_session_of_real_events_is_accepted(service):
    app = unique("contract")
    await service.add_session_to_memory(_mock_session(app, _garden(app).events))
    assert len((await _search(service, app, "greenhouse")).memories) == 2


async def test_a_mock_session_of_mock_events_without_actions_is_accepted(service):
    app = unique("contract")
    events = [
        _mock_event("k1", "user", "We are renting a canal boat in Utrecht.", 1_000),
        _mock_event("k2", "model", "A canal boat trip through Utrecht sounds lovely.", 1_001),
    ]
    await service.add_session_to_memory(_mock_session(app, events))
    found = (await _search(service, app, "canal boat")).memories
    assert {m.author for m in found} == {"user", "model"}
    await service.add_events_to_memory(
        app_name=app,
        user_id=USER,
        session_id="more",
        events=[_mock_event("k3", "user", "The harpsichord recital is on Friday.", 1_100)],
    )
    assert _texts_of((await _search(service, app, "harpsichord")).memories) == [
        "The harpsichord recital is on Friday."
    ]


async def test_an_object_that_is_not_an_event_is_refused_clearly(service):
    from adk_memory_kit import InvalidInputError

    app = unique("contract")
    with pytest.raises(InvalidInputError, match="events"):
        await service.add_events_to_memory(
            app_name=app,
            user_id=USER,
            events=["just a string"],  # type: ignore[list-item]
        )
