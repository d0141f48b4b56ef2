"""The concierge on defaults (offline: the learned router) through the real Runner, the
DatabaseSessionService and PgVectorMemoryService with the default write policy."""

from __future__ import annotations

import uuid

import pytest
from google.adk.runners import Runner
from google.adk.sessions.database_session_service import DatabaseSessionService
from google.genai import types

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.demo.concierge import build_concierge_app
from adk_memory_kit.routing import LearnedExtractor, ReviewQueue, RuleBasedExtractor
from tests.support.routing import user_event

pytestmark = pytest.mark.slow

PREFERENCES = {
    "People mostly know me as Teddy.": ("preferred_name", "Teddy"),
    "Going forward I'd like costs shown in Swiss francs.": ("currency", "CHF"),
    "Seat-wise, put me where I can stretch into the aisle on every flight.": ("seat", "aisle"),
}
BEHAVIOUR = "In future, don't bother listing the restaurant's star rating."
SESSION_ONLY = "For this outing my two nephews are coming along with me."


async def _say(runner: Runner, user: str, session_id: str, text: str) -> None:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for _ in runner.run_async(user_id=user, session_id=session_id, new_message=message):
        pass


async def test_paraphrases_reach_user_state_review_and_session_state_only(db_url, embedder):
    # the sentences are paraphrases: the rules alone route none of them
    rules = RuleBasedExtractor()
    for sentence in (*PREFERENCES, BEHAVIOUR, SESSION_ONLY):
        assert rules.extract_text(sentence) == [], sentence

    sessions = DatabaseSessionService(db_url=db_url)
    memory = PgVectorMemoryService(db_url, embedder=embedder)
    queue = ReviewQueue(db_url)
    try:
        app = build_concierge_app(review_queue=queue)
        assert isinstance(
            next(p for p in app.plugins if p.name == "memory_routing").router.extractor,
            LearnedExtractor,
        )
        runner = Runner(app=app, session_service=sessions, memory_service=memory)
        user = f"u-{uuid.uuid4().hex[:8]}"
        first = await sessions.create_session(app_name=app.name, user_id=user)
        for sentence in (*PREFERENCES, BEHAVIOUR, SESSION_ONLY):
            await _say(runner, user, first.id, sentence)

        done = await sessions.get_session(app_name=app.name, user_id=user, session_id=first.id)
        for name, value in PREFERENCES.values():
            assert done.state[f"user:pref_{name}"] == value
        assert any("nephews" in note for note in done.state.get("memory_notes", []))
        items = await queue.list(app_name=app.name, user_id=user)
        assert [i.text for i in items] == [BEHAVIOUR]

        await memory.add_session_to_memory(done)  # the default write policy (ROUTED)
        second = await sessions.create_session(app_name=app.name, user_id=user)
        assert second.state["user:pref_preferred_name"] == "Teddy"
        for query in ("star rating of restaurants", "nephews coming along on the outing"):
            found = await memory.search_memory(app_name=app.name, user_id=user, query=query)
            texts = " ".join(p.text or "" for m in found.memories for p in m.content.parts)
            assert "star rating" not in texts and "nephews" not in texts, query
    finally:
        await queue.close()
        await memory.close()
        await sessions.close()


async def test_the_write_policy_asks_the_classifier_when_no_candidate_was_extracted(
    db_url, embedder
):
    """A turn the router never saw: the rules extract nothing from these sentences, the
    classifier keeps the behaviour change and the session-only fact out of retrieval."""
    from google.adk.sessions.session import Session

    from adk_memory_kit.routing.write_policy import SentenceVerdict, select_events

    kept_fact = "The ferry to Hydra was two hours late and we missed dinner."
    events = [user_event(f"{BEHAVIOUR} {SESSION_ONLY} {kept_fact}")]
    session = Session(id="s1", app_name="a", user_id="u", events=events)
    verdicts: list[SentenceVerdict] = []
    stored = await select_events(session, events, verdicts=verdicts)
    text = " ".join(p.text for e in stored for p in e.content.parts)
    assert kept_fact in text and "star rating" not in text and "nephews" not in text
    reasons = sorted(v.reason for v in verdicts if not v.stored)
    assert reasons == [
        "routed (no record) to PROCEDURAL_REVIEW",
        "routed (no record) to SESSION_STATE",
    ]
