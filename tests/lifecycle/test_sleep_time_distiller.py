"""Sleep-time distillation: a finished session becomes dated, deduplicated long-term facts."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from google.adk.sessions.session import Session

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.lifecycle import SleepTimeDistiller
from adk_memory_kit.routing import LlmExtractor, MemoryHome, RuleBasedExtractor
from adk_memory_kit.testing import ScriptedLlm
from tests.support.routing import facts_json, model_event, unique, user_event

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it

MONDAY = 1_790_000_000.0  # 2026-09-21
THURSDAY = MONDAY + 3 * 86_400


@pytest.fixture
async def memory(db_url, embedder):
    service = PgVectorMemoryService(db_url, embedder=embedder)
    yield service
    await service.close()


def session(app: str, turns: list[tuple[str, str, float]]) -> Session:
    events = [
        user_event(text, ts=ts) if who == "user" else model_event(text, ts=ts)
        for who, text, ts in turns
    ]
    return Session(
        id=unique("s"), app_name=app, user_id="u1", events=events, last_update_time=turns[-1][2]
    )


def texts(response) -> list[str]:
    return [m.content.parts[0].text for m in response.memories]


async def test_distils_only_long_term_facts_dated_when_said_and_deduplicated(memory):
    app = unique("app")
    finished = session(
        app,
        [
            ("user", "I'm vegetarian. The hotel in Lisbon was really noisy.", MONDAY),
            ("assistant", "Sorry to hear that; noted.", MONDAY + 5),
            (
                "user",
                "My card is 4111 1111 1111 1111. Never ask me to confirm prices.",
                MONDAY + 60,
            ),
            ("user", "Remember that I collect airline amenity kits.", MONDAY + 120),
            ("user", "The hotel in Lisbon was really noisy!", MONDAY + 180),
        ],
    )
    distiller = SleepTimeDistiller(memory, RuleBasedExtractor())
    assert await distiller(finished) is None  # usable as the idle job's after_ingest hook

    found = await memory.search_memory(app_name=app, user_id="u1", query="hotel noisy amenity kits")
    assert sorted(texts(found)) == [
        "Remember that I collect airline amenity kits.",
        "The hotel in Lisbon was really noisy.",
    ]
    by_text = {m.content.parts[0].text: m for m in found.memories}
    assert by_text["The hotel in Lisbon was really noisy."].timestamp.startswith("2026-09-21")
    meta = by_text["The hotel in Lisbon was really noisy."].custom_metadata
    assert (meta["source"], meta["source_session_id"], meta["kind"]) == (
        "sleep_time", finished.id, "fact",
    )  # fmt: skip
    # nothing sensitive, no behaviour change, no user-state fact stored as free text
    assert await memory.count_memories(app_name=app, user_id="u1") == {"fact": 2}

    # running again (the idle job may see the session twice) stores nothing new
    assert await distiller.distil(finished) == []
    assert await memory.count_memories(app_name=app, user_id="u1") == {"fact": 2}


async def test_a_newer_session_supersedes_by_subject(memory):
    app = unique("app")
    monday = session(app, [("user", "I'm vegetarian.", MONDAY)])
    thursday = session(app, [("user", "Actually I'm pescatarian now.", THURSDAY)])
    distiller = SleepTimeDistiller(
        memory, RuleBasedExtractor(), homes=(MemoryHome.LONG_TERM, MemoryHome.USER_STATE)
    )
    await distiller(monday)
    await distiller(thursday)
    # the query names both diets (the relevance floor returns only what it matches)
    query = "vegetarian or pescatarian diet"
    found = await memory.search_memory(app_name=app, user_id="u1", query=query)
    # stored worded as a fact ("Actually" is padding); the superseded fact is hidden by
    # default (issue 29) and still reached as of a time it held
    assert texts(found) == ["I'm pescatarian now."]
    (current,) = found.memories
    assert current.timestamp.startswith("2026-09-24")
    assert "superseded_at" not in current.custom_metadata
    tuesday = datetime.fromtimestamp(MONDAY + 86_400, tz=timezone.utc)
    before = await memory.search(app_name=app, user_id="u1", query=query, as_of=tuesday)
    assert texts(before) == ["I'm vegetarian."]
    assert before.memories[0].timestamp.startswith("2026-09-21")
    # the same diet said again later makes vegetarian current again; consolidation keeps it
    # as a row of its own, so each time keeps its own answer (issue 16: time travel)
    await distiller(session(app, [("user", "I'm vegetarian.", THURSDAY + 86_400)]))
    assert distiller.outcomes == ["UPDATE"]
    again = await memory.search_memory(app_name=app, user_id="u1", query="vegetarian diet")
    assert texts(again)[0] == "I'm vegetarian."
    assert await memory.count_memories(app_name=app, user_id="u1") == {"fact": 3}
    friday = datetime.fromtimestamp(THURSDAY + 3_600, tz=timezone.utc)
    then = await memory.search(app_name=app, user_id="u1", query=query, as_of=friday)
    assert texts(then) == ["I'm pescatarian now."]
    # said once more the same day: nothing new (NOOP)
    await distiller(session(app, [("user", "I'm vegetarian.", THURSDAY + 90_000)]))
    assert distiller.outcomes == ["NOOP"]
    assert await memory.count_memories(app_name=app, user_id="u1") == {"fact": 3}


async def test_with_the_llm_extractor(memory):
    app = unique("app")
    output = facts_json(
        dict(text="The user prefers hotels away from tram lines", about_user=True,
             needed_in_future_sessions=True),
        dict(text="The user is vegetarian", key="diet", value="vegetarian", exact_value=True,
             about_user=True, needed_in_future_sessions=True),
        dict(text="Skip confirmations", changes_agent_behaviour=True),
        dict(text="The user's health: asthma", about_user=True, needed_in_future_sessions=True),
    )  # fmt: skip
    distiller = SleepTimeDistiller(memory, LlmExtractor(ScriptedLlm(turns=[output])))
    finished = session(app, [("user", "The tram outside kept me up all night.", MONDAY)])
    written = await distiller.distil(finished)
    # stored worded as a fact (routing.fact_text): a full stop added, nothing else changed
    assert [e.content.parts[0].text for e in written] == [
        "The user prefers hotels away from tram lines."
    ]
    assert written[0].timestamp.startswith("2026-09-21")


async def test_behaviour_changes_are_never_distilled_into_facts(memory):
    app = unique("app")
    finished = session(
        app,
        [
            ("user", "Remember that from now on you skip the price confirmation.", MONDAY),
            ("user", "Remember that I collect airline amenity kits.", MONDAY + 60),
        ],
    )
    written = await SleepTimeDistiller(memory, RuleBasedExtractor()).distil(finished)
    assert [e.content.parts[0].text for e in written] == [
        "Remember that I collect airline amenity kits."
    ]


async def test_a_text_flagged_by_one_candidate_is_not_stored_through_another(memory):
    # a model returns the same sentence twice: once (rightly) as a behaviour change or as
    # sensitive, once as an ordinary long-term fact; and a standing order labelled as a fact
    app = unique("app")
    skip = "Remember to skip the price confirmation from now on"
    output = facts_json(
        dict(text=skip, changes_agent_behaviour=True),
        dict(text=skip, about_user=True, needed_in_future_sessions=True),
        dict(text="The user takes blood thinners", sensitive=True),
        dict(text="The user takes blood thinners", about_user=True,
             needed_in_future_sessions=True),
        dict(text="Never ask the user to double-check bookings", about_user=True,
             needed_in_future_sessions=True),
        dict(text="The user collects airline amenity kits", about_user=True,
             needed_in_future_sessions=True),
    )  # fmt: skip
    distiller = SleepTimeDistiller(memory, LlmExtractor(ScriptedLlm(turns=[output])))
    written = await distiller.distil(session(app, [("user", "…", MONDAY)]))
    assert [e.content.parts[0].text for e in written] == ["The user collects airline amenity kits."]
