"""Model-backed routing: the rule gate in front of ``LlmExtractor``, the offline fallback, the
extraction call in the episodic log, and the samples' wiring when a key is configured."""

from __future__ import annotations

import importlib
import json

from google.adk.agents.llm_agent import LlmAgent
from google.adk.models.llm_response import LlmResponse
from google.adk.sessions.database_session_service import DatabaseSessionService

from adk_memory_kit.episodic import EpisodicLog, EpisodicLogPlugin
from adk_memory_kit.routing import (
    GatedLlmExtractor,
    LearnedExtractor,
    LlmExtractor,
    MemoryApplier,
    MemoryHome,
    MemoryRoutingPlugin,
    ReviewQueue,
    routing_extractor,
)
from adk_memory_kit.routing.choice import ROUTING_MODEL_ENV
from adk_memory_kit.testing import ScriptedLlm
from tests.support.routing import Harness, facts_json, user_event

H = MemoryHome

SIENA = "We rented a farmhouse near Siena that had goats in the garden."


def sent(model: ScriptedLlm) -> str:
    return json.dumps([c.model_dump(mode="json") for r in model.requests for c in r.contents])


async def test_sensitive_and_rule_settled_sentences_never_reach_the_model():
    model = ScriptedLlm(
        turns=[facts_json({"text": SIENA, "about_user": True, "needed_in_future_sessions": True})]
    )
    gated = GatedLlmExtractor(LlmExtractor(model))
    said = f"I'm vegan. My card is 4111 1111 1111 1111. {SIENA} Thanks!"
    found = await gated.extract([user_event(said)])
    assert len(model.requests) == 1 and gated.calls == 1  # one call for the turn
    text = sent(model)
    assert "Siena" in text and "4111" not in text and "vegan" not in text and "Thanks" not in text
    homes = [(MemoryApplier().classify(c)[1], c.key) for c in found]
    assert homes == [(H.USER_STATE, "diet"), (H.DROP, None), (H.LONG_TERM, None)]

    quiet = ScriptedLlm()
    settled = GatedLlmExtractor(LlmExtractor(quiet))
    found = await settled.extract([user_event("I'm pescatarian. Which terminal is it?")])
    assert quiet.requests == [] and [c.key for c in found] == ["diet"]


async def test_a_request_to_forget_something_sensitive_is_acted_on_without_the_model():
    quiet = ScriptedLlm()
    gated = GatedLlmExtractor(LlmExtractor(quiet))
    said = "Please stop remembering my HIV diagnosis. Forget my card number 4111 1111 1111 1111."
    found = await gated.extract([user_event(said)])
    assert quiet.requests == []  # sensitive: never sent to the model
    assert [MemoryApplier().classify(c)[1] for c in found] == [H.FORGET, H.FORGET]


async def test_on_a_bad_answer_the_offline_router_answers(embedder):
    broken = ScriptedLlm(turns=['{"facts": [{"text": "x", "surprise": true}]}'])
    failing = ScriptedLlm(
        turns=[LlmResponse(error_code="UNAVAILABLE", error_message="backend down")]
    )
    offline = LearnedExtractor()
    for model in (broken, failing):
        gated = GatedLlmExtractor(LlmExtractor(model), offline=offline)
        found = await gated.extract([user_event("Nobody uses my full name, they just say Bex.")])
        assert gated.failures == 1
        assert [(c.key, c.value) for c in found] == [("preferred_name", "Bex")]
    rules_only = GatedLlmExtractor(LlmExtractor(ScriptedLlm(turns=["not json"])))
    assert await rules_only.extract([user_event("Nobody calls me by my full name.")]) == []


async def test_the_extraction_call_is_in_the_episodic_log_after_the_reply(db_url):
    sessions = DatabaseSessionService(db_url=db_url)
    log = EpisodicLog(db_url)
    queue = ReviewQueue(db_url)
    router_model = ScriptedLlm(
        model="scripted-router",
        turns=[facts_json({"text": SIENA, "about_user": True, "needed_in_future_sessions": True})],
    )
    agent_model = ScriptedLlm(turns=["Lovely, noted."])
    plugin = MemoryRoutingPlugin(
        GatedLlmExtractor(LlmExtractor(router_model)), MemoryApplier(review_queue=queue)
    )
    agent = LlmAgent(name="travel", model=agent_model, instruction="Help with trips.")
    try:
        h = await Harness(agent, sessions, plugins=[EpisodicLogPlugin(log), plugin]).start()
        await h.turn(SIENA)
        await log.flush()
        trace = await log.trace(h.app, h.user, h.session_id)
        calls = [e for e in trace if e.kind == "model_call"]
        assert [c.name for c in calls][-1] == "scripted-router"
        extraction = calls[-1]
        assert extraction.input_tokens and extraction.input_tokens > 0
        reply = next(e for e in trace if e.kind == "model_call" and e.name != "scripted-router")
        assert reply.seq < extraction.seq  # the model routes after the agent has replied
    finally:
        await queue.close()
        await log.close()
        await sessions.close()


def test_with_a_key_configured_the_samples_route_through_the_model(monkeypatch):
    import agents.concierge.agent as sample
    from adk_memory_kit.demo import concierge as demo

    monkeypatch.delenv("ADK_MEMORY_KIT_MODEL", raising=False)
    monkeypatch.delenv(ROUTING_MODEL_ENV, raising=False)
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key-not-used")  # nothing calls the network
    try:
        reloaded = importlib.reload(sample)
        extractor = next(
            p for p in reloaded.app.plugins if p.name == "memory_routing"
        ).router.extractor
        assert isinstance(extractor, GatedLlmExtractor)
        assert isinstance(extractor.model_extractor, LlmExtractor)
        assert extractor.model_extractor.model.model == "gemini-2.5-flash"
        assert isinstance(extractor.offline, LearnedExtractor)

        monkeypatch.setenv(ROUTING_MODEL_ENV, "gemini-2.5-flash-lite")
        app = demo.build_concierge_app()
        extractor = next(p for p in app.plugins if p.name == "memory_routing").router.extractor
        assert extractor.model_extractor.model.model == "gemini-2.5-flash-lite"
        assert isinstance(routing_extractor("gemini-2.5-flash"), GatedLlmExtractor)
    finally:
        monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
        monkeypatch.delenv(ROUTING_MODEL_ENV, raising=False)
        offline = importlib.reload(sample)
    assert isinstance(
        next(p for p in offline.app.plugins if p.name == "memory_routing").router.extractor,
        LearnedExtractor,
    )
    assert isinstance(routing_extractor(None), LearnedExtractor)
