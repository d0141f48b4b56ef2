"""A preference the heads are sure of but no finder can read is kept in the user's own words.

"Rele m Ti Jean, pa 'Monsieur Désir' non." (Haitian Creole: call me Ti Jean) names how to
address the user in a language no naming cue of the kit holds. The router's heads read it as a
``user:`` preference at 0.8; before, with no value found, it went to long-term memory, where
the agent meets it only when a search happens to bring it back. Now the sentence is the
value, in ``user:`` state, unless the preference already holds a value.
"""

from __future__ import annotations

import pytest
from google.adk.agents.llm_agent import LlmAgent

from adk_memory_kit.profile.vocabulary import DEFAULT_VOCABULARY, PreferenceVocabulary
from adk_memory_kit.routing import LearnedExtractor, MemoryApplier, MemoryHome, MemoryRoutingPlugin
from adk_memory_kit.routing.offline import shared_learned_extractor
from adk_memory_kit.routing.rule import Candidate
from adk_memory_kit.testing import ScriptedLlm
from tests.support.routing import Harness, make_context, texts_of, unique
from tests.support.routing import user_event as event

pytestmark = pytest.mark.slow

HAITIAN = "Rele m Ti Jean, pa 'Monsieur Désir' non."
SCOTS = "Ca me Hamish, no Mr MacKenzie, it maks me feel auld."


def _agent() -> LlmAgent:
    return LlmAgent(name="helper", model=ScriptedLlm(turns=["Okay."] * 4), instruction="Help.")


async def test_a_preference_no_finder_reads_reaches_user_state_in_the_users_words(sessions, memory):
    outcomes: list = []
    plugin = MemoryRoutingPlugin(on_outcomes=outcomes.append)
    h = await Harness(_agent(), sessions, memory=memory, plugins=[plugin]).start()
    await h.turn(HAITIAN)

    (turn,) = outcomes
    assert [(o.home, o.status) for o in turn] == [(MemoryHome.USER_STATE, "stored")]
    state = await h.state()
    kept = {k: v for k, v in state.items() if k.startswith("user:pref_") and not k.endswith("_at")}
    assert list(kept.values()) == [HAITIAN]
    # one home: not also a long-term memory
    found = await memory.search_memory(app_name=h.app, user_id=h.user, query="Ti Jean")
    assert texts_of(found) == []
    # a new session of the user starts with it
    second = await sessions.create_session(app_name=h.app, user_id=h.user)
    assert {k: second.state[k] for k in kept} == kept


async def test_the_users_words_never_replace_a_value_said_before(memory):
    app, user = unique("app"), unique("u")
    candidate = Candidate(
        text=SCOTS,
        key="preferred_name",
        value=SCOTS,
        exact_value=True,
        about_user=True,
        needed_in_future_sessions=True,
        in_own_words=True,
    )
    applier = MemoryApplier(review_queue=None)

    held = make_context(
        app=app, user=user, state={"user:pref_preferred_name": "Gaz"}, memory=memory
    )
    outcome = await applier.apply_one(candidate, held)
    assert (outcome.home, outcome.status) == (MemoryHome.LONG_TERM, "stored")
    assert held.state["user:pref_preferred_name"] == "Gaz"
    found = await memory.search_memory(app_name=app, user_id=user, query="Hamish MacKenzie")
    assert texts_of(found) == [SCOTS]

    empty = make_context(app=app, user=unique("u"), memory=memory)
    outcome = await applier.apply_one(candidate, empty)
    assert (outcome.home, outcome.status) == (MemoryHome.USER_STATE, "stored")
    assert empty.state["user:pref_preferred_name"] == SCOTS


async def _routed(extractor: LearnedExtractor, text: str) -> list[MemoryHome]:
    applier = MemoryApplier(review_queue=None)
    return [applier.classify(c)[1] for c in await extractor.extract([event(text)])]


async def test_only_free_text_preferences_take_the_users_words():
    shared = shared_learned_extractor()
    assert await _routed(shared, HAITIAN) == [MemoryHome.USER_STATE]
    # a vocabulary whose every name has a closed set of values: no sentence is a value
    names = dict(DEFAULT_VOCABULARY.descriptions)
    closed = PreferenceVocabulary(names, allowed_values={n: {"x"} for n in names})
    strict = LearnedExtractor(shared.router, vocabulary=closed)
    assert await _routed(strict, HAITIAN) == [MemoryHome.LONG_TERM]
    # a sentence past the value's length limit stays a long-term fact
    short = PreferenceVocabulary(names, max_value_chars=20)
    assert await _routed(LearnedExtractor(shared.router, vocabulary=short), HAITIAN) == [
        MemoryHome.LONG_TERM
    ]
