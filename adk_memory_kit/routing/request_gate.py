"""The offline router with the write policy's request cue: a request is never a lasting fact.

The learned router sometimes calls a request to the agent a lasting fact ("Summarize my
findings" -> ``long_term``, "show me cheaper ones" -> a ``currency`` preference without a
value), and the applier then stores it long-term as the router's own fact, where the session
write's filter (:mod:`.write_policy`) cannot reach it. :class:`RequestGatedExtractor` drops
such candidates when the sentence is a request (:func:`.dialogue_acts.is_request_to_agent`)
and no rule matched it. Everything else (a behaviour change for review, a session-only value,
a sensitive sentence, a request to forget, what a rule found) is routed as before.

Not the routing plugin's default yet: pass it as ``MemoryRoutingPlugin(RequestGatedExtractor())``
(measured in ``benchmarks/write_noise.py --gate-router``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from typing_extensions import override

from adk_memory_kit.routing.dialogue_acts import is_request_to_agent
from adk_memory_kit.routing.offline import LearnedExtractor, SentenceRoute
from adk_memory_kit.routing.rule import Candidate

__all__ = ["RequestGatedExtractor", "is_lasting_fact"]


def is_lasting_fact(candidate: Candidate) -> bool:
    """A candidate the applier would store long-term as a fact (no typed value, no review,
    no secret, no forget request)."""
    return (
        candidate.needed_in_future_sessions
        and not candidate.exact_value
        and not candidate.changes_agent_behaviour
        and not candidate.sensitive
        and not candidate.forget_request
    )


class RequestGatedExtractor(LearnedExtractor):
    """:class:`~.offline.LearnedExtractor` that never makes a lasting fact of a request."""

    @override
    async def route_sentences(
        self, sentences: Sequence[tuple[str, datetime | None]]
    ) -> list[SentenceRoute]:
        """The learned routes, minus the lasting facts the router read into a request."""
        routes = await super().route_sentences(sentences)
        return [
            replace(route, candidates=())
            if not route.by_rule
            and route.candidates
            and all(is_lasting_fact(c) for c in route.candidates)
            and is_request_to_agent(route.sentence)
            else route
            for route in routes
        ]
