"""One-off requests are this session's work.

Issue 44 scores the session home as the first-read corpora's writers label it: a one-off
request, today's calculation, a question for the task at hand. Such a sentence the router kept
nowhere is now a session note when the home head reads it as this session's work, in any
language. Ingestion still stores a session note the router was not sure of
(tests/write_policy), so a lasting fact read as session work is not lost.
"""

from __future__ import annotations

import pytest

from adk_memory_kit.routing import MemoryApplier, MemoryHome
from adk_memory_kit.routing.offline import shared_learned_extractor
from tests.support.routing import user_event as event

H = MemoryHome


async def _homes(text: str) -> list[MemoryHome]:
    applier = MemoryApplier(review_queue=None)
    return [applier.classify(c)[1] for c in await shared_learned_extractor().extract([event(text)])]


@pytest.mark.parametrize(
    "text",
    [
        "What's 68 lambs at £94 a head come to?",
        "Paljonko on 37,5 h × 28,40 €? Lasken ylityökorvauksia.",
        "Make this email sound more formal.",
    ],
)
async def test_a_one_off_request_is_kept_for_this_session(text):
    assert await _homes(text) == [H.SESSION_STATE]


@pytest.mark.parametrize("text", ["Thanks a lot!", "Merci, c'est parfait !", "ok"])
async def test_thanks_and_filler_stay_nowhere(text):
    assert await _homes(text) == []


async def test_a_line_of_a_key_block_is_no_session_note():
    # each line of the block is read alone; a line the detectors find nothing in must not
    # become a note of this session (session state and the episodic log would keep it)
    key = "\n".join(
        [
            "the deploy key is below",
            "-----BEGIN EC PRIVATE KEY-----",
            "MHcCAQEEIB3fQk9vZr2mTq8XyW1pLs0aJd7hGcUe4oNbVt6iYKwRoAoGCCqGSM49",
            "+QhTe2Kp7ZxLm4Nw8Rv/3Hs9Ad==",
            "-----END EC PRIVATE KEY-----",
            "add it to the server",
        ]
    )
    extractor = shared_learned_extractor()
    routes = await extractor.route_sentences(extractor.sentences([event(key)]))
    kept = [c.text for r in routes for c in r.candidates if not c.sensitive]
    assert kept and not any("+QhTe2" in t or "MHcCAQ" in t or "KEY" in t for t in kept), kept
