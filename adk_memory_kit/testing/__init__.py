"""Test double for ADK agents: :class:`ScriptedLlm`, a model that never calls a network.

Use it wherever a real model would make a run slow, costly or non-deterministic: unit and
integration tests, the offline demo, sample agents without an API key. Everything else stays
real (``Runner``, session service, plugins, tools), so a test exercises ADK's own flow::

    from adk_memory_kit.testing import ScriptedLlm, call

    model = ScriptedLlm(turns=[[call("get_weather", city="Lisbon")], "Sunny in Lisbon."])
    agent = LlmAgent(name="assistant", model=model, tools=[get_weather])
    ...  # run it with a Runner
    assert "Lisbon" in last_user_text(model.requests[0])

A *turn* is what the model answers to one request:

* a ``str`` (one text part), a sequence of ``types.Part`` (text, function calls, or both),
  or a complete ``LlmResponse`` (e.g. an error response), passed through unchanged;
* or a callable ``(llm_request) -> turn`` (sync or async), to answer from the request.

``turns`` are played back in order, one per request; after the last one (or with none) the
``responder`` (a callable as above) answers, and without a responder the model says ``"ok"``.
Every request is recorded in ``requests``. Replies built from text or parts carry estimated
``usage_metadata`` (characters / 4), so token accounting has figures offline.

The offline behaviour of the concierge and research assistant (what the sample agents in
``agents/`` and ``adk-memory-kit demo`` both run without an API key) lives here too:
:mod:`adk_memory_kit.testing.concierge` and :mod:`adk_memory_kit.testing.research`.
"""

from adk_memory_kit.testing.concierge import (
    CONCIERGE_INSTRUCTION,
    offline_concierge_responder,
    recalled_lines,
)
from adk_memory_kit.testing.llm import (
    INJECTED_PREFIXES,
    Responder,
    ScriptedLlm,
    Turn,
    call,
    conversation,
    last_function_responses,
    last_user_text,
)
from adk_memory_kit.testing.research import (
    FINDINGS_KEY,
    RESEARCH_INSTRUCTION,
    get_findings,
    offline_research_responder,
    save_finding,
    web_search,
)

__all__ = [
    "CONCIERGE_INSTRUCTION",
    "FINDINGS_KEY",
    "INJECTED_PREFIXES",
    "RESEARCH_INSTRUCTION",
    "Responder",
    "ScriptedLlm",
    "Turn",
    "call",
    "conversation",
    "get_findings",
    "last_function_responses",
    "last_user_text",
    "offline_concierge_responder",
    "offline_research_responder",
    "recalled_lines",
    "save_finding",
    "web_search",
]
