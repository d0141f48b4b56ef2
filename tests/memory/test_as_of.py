"""``as_of`` returns the fact that was valid then: of the facts about one subject valid at that
time, the one with the newest ``valid_from``, through the real service, with and without a
consolidator, whatever order the facts were written in."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.memory.consolidation import RuleConsolidator
from tests.support.memory import unique

pytestmark = pytest.mark.slow

# (subject, [(valid_from, text)]) - several subjects, so one subject's facts never hide another's
HISTORY = {
    "commute": [
        (datetime(2025, 2, 3, tzinfo=timezone.utc), "I cycle to the office along the river."),
        (datetime(2025, 6, 16, tzinfo=timezone.utc), "I take the tram number 9 to the office."),
        (datetime(2025, 10, 1, tzinfo=timezone.utc), "I drive to the office in a small hatchback."),
    ],
    "landlord": [
        (datetime(2025, 1, 10, tzinfo=timezone.utc), "My landlord is Mrs Okafor on Elm Road."),
        (datetime(2025, 8, 20, tzinfo=timezone.utc), "My landlord is a housing co-op in Leith."),
    ],
}


def _entry(subject: str, when: datetime, text: str, typed: bool) -> MemoryEntry:
    meta: dict[str, object] = {"valid_from": when.isoformat()}
    if typed:
        meta["subject"] = subject
    return MemoryEntry(
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        author="user",
        timestamp=when.isoformat(),
        custom_metadata=meta,
    )


def _expected(subject: str, at: datetime) -> str | None:
    valid = [(w, t) for w, t in HISTORY[subject] if w <= at]
    return max(valid)[1] if valid else None


@pytest.fixture(scope="module")
async def services(db_url, embedder):
    both = {
        "plain": PgVectorMemoryService(db_url, embedder=embedder),
        "consolidating": PgVectorMemoryService.from_url(
            db_url, embedder=embedder, consolidator=RuleConsolidator()
        ),
    }
    yield both
    for svc in both.values():
        await svc.close()


QUERIES = {"commute": "how do I get to the office", "landlord": "who is my landlord"}
TIMES = [
    datetime(2025, 1, 20, tzinfo=timezone.utc),
    datetime(2025, 4, 1, tzinfo=timezone.utc),
    datetime(2025, 7, 1, tzinfo=timezone.utc),
    datetime(2025, 9, 1, tzinfo=timezone.utc),
    datetime(2026, 1, 1, tzinfo=timezone.utc),
]


@pytest.mark.parametrize("order", ["oldest_first", "newest_first", "one_call"])
@pytest.mark.parametrize("which", ["plain", "consolidating"])
async def test_as_of_returns_the_fact_valid_then(services, which, order):
    service = services[which]
    app, user = unique("asof"), unique("u")
    entries = [(subject, when, text) for subject, facts in HISTORY.items() for when, text in facts]
    if order == "newest_first":
        entries.reverse()
    if order == "one_call":
        await service.add_memory(
            app_name=app, user_id=user, memories=[_entry(s, w, t, True) for s, w, t in entries]
        )
    else:
        for s, w, t in entries:
            await service.add_memory(app_name=app, user_id=user, memories=[_entry(s, w, t, True)])
    for subject, query in QUERIES.items():
        for at in TIMES:
            found = await service.search(app_name=app, user_id=user, query=query, as_of=at)
            got = [m.content.parts[0].text for m in found.memories]
            subject_texts = {t for _, t in HISTORY[subject]}
            of_subject = [t for t in got if t in subject_texts]
            want = _expected(subject, at)
            if want is None:
                assert not of_subject, (subject, at)
            else:
                assert of_subject == [want], (subject, at, got)


async def test_as_of_without_a_subject_key_keeps_every_fact_valid_then(services):
    """Facts carrying no subject are independent: each is valid from its date on."""
    plain = services["plain"]
    app, user = unique("asof"), unique("u")
    facts = HISTORY["commute"]
    await plain.add_memory(
        app_name=app, user_id=user, memories=[_entry("commute", w, t, False) for w, t in facts]
    )
    at = datetime(2025, 7, 1, tzinfo=timezone.utc)
    found = await plain.search(app_name=app, user_id=user, query=QUERIES["commute"], as_of=at)
    got = {m.content.parts[0].text for m in found.memories}
    assert got == {t for w, t in facts if w <= at}
