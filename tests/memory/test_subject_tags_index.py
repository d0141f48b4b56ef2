"""A fact's subject and tags are index keys: a query naming them finds the fact although its
text never says the word, the stored text is unchanged, and the relevance floor still keeps
unrelated facts out."""

from __future__ import annotations

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit import PgVectorMemoryService
from tests.support.memory import unique

pytestmark = pytest.mark.slow

FACTS = [
    ("Ravi eats no meat or dairy since the spring.", {"subject": "diet", "tags": ["food"]}),
    ("The spare key hangs behind the garage door.", {"subject": "home", "tags": ["keys"]}),
    ("Ravi plays five-a-side football on Thursdays.", {"tags": ["sport"]}),
]


def _entry(text: str, meta: dict[str, object]) -> MemoryEntry:
    return MemoryEntry(
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        author="user",
        custom_metadata=meta,
    )


@pytest.fixture(scope="module")
async def stored(db_url, embedder):
    service = PgVectorMemoryService(db_url, embedder=embedder)
    app, user = unique("subject-index"), "ravi"
    await service.add_memory(
        app_name=app, user_id=user, memories=[_entry(t, dict(m)) for t, m in FACTS]
    )
    yield service, app, user
    await service.close()


async def _texts(service: PgVectorMemoryService, app: str, user: str, query: str) -> list[str]:
    found = await service.search_memory(app_name=app, user_id=user, query=query)
    return [p.text for m in found.memories for p in (m.content.parts or []) if p.text]


@pytest.mark.parametrize(
    ("query", "expected"),
    [("diet", FACTS[0][0]), ("food", FACTS[0][0]), ("sport", FACTS[2][0])],
)
async def test_a_subject_or_tag_word_finds_the_fact_and_only_it(stored, query, expected):
    service, app, user = stored
    assert await _texts(service, app, user, query) == [expected]


async def test_the_stored_text_is_unchanged_and_nonsense_still_finds_nothing(stored):
    service, app, user = stored
    texts = await _texts(service, app, user, "garage key")
    assert texts and texts[0] == FACTS[1][0]
    assert await _texts(service, app, user, "zebra accordion") == []
