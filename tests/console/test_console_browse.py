"""Browsing the console over HTTP: apps found in the data, a user's memories listed without a
query (paged, sorted, filtered), a memory added by hand (routed), an edit kept as a
correction, the user's export, the ``user:`` profile and a session's working memory.

Real embedded Postgres, real MiniLM, ADK's DatabaseSessionService; data written through the
kit's public APIs only.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from fastapi.testclient import TestClient
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit.console import create_app
from adk_memory_kit.episodic import EpisodicLog
from adk_memory_kit.routing.review_queue import ReviewQueue

pytestmark = pytest.mark.slow

# The console answers only loopback names and its bound host (DNS-rebinding guard).
LOOPBACK = "http://127.0.0.1"
TEXTS = [f"Fact number {i:02d} about the user." for i in range(12)]


def _fact(text: str, when: datetime, **meta: object) -> MemoryEntry:
    return MemoryEntry(
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        author="user",
        timestamp=when.isoformat(),
        custom_metadata=dict(meta),
    )


@pytest.fixture(scope="module")
async def browse_world(memory, sessions):
    """An app seen only in memories and sessions (no review item, no forget)."""
    app = f"browse-{uuid.uuid4().hex[:6]}"
    now = datetime.now(timezone.utc)
    await memory.add_memory(
        app_name=app,
        user_id="carol",
        memories=[
            _fact(
                text,
                now - timedelta(days=30 - i),
                importance=round(0.05 + i * 0.07, 2),
                memory_type="preference" if i % 3 == 0 else "fact",
                tags=["travel"] if i % 2 else ["food"],
            )
            for i, text in enumerate(TEXTS)
        ],
    )
    session = await sessions.create_session(
        app_name=app,
        user_id="carol",
        state={
            "user:pref_diet": "pescatarian",
            "wm": {"goal": "plan the Lisbon trip", "facts": [{"text": "flight at 9"}]},
            "wm_view": "goal: plan the Lisbon trip",
        },
    )
    return {"app": app, "user": "carol", "session": session.id}


@pytest.fixture
def client(db_url, embedder):
    c = TestClient(create_app(db_url, embedder=embedder, operator="dana"), base_url=LOOPBACK)
    with c:
        yield c


def csrf(client: TestClient) -> str:
    return client.get("/api/csrf").json()["csrf_token"]


def listed(html: str) -> list[str]:
    """The memory texts shown, in page order (one per item: its text paragraph)."""
    return re.findall(r'<p class="text">(Fact number \d\d about the user\.)</p>', html)


def test_an_app_with_only_memories_and_sessions_is_found_on_the_home_page(browse_world, client):
    page = client.get("/")
    assert page.status_code == 200
    assert browse_world["app"] in page.text
    assert "No apps to show yet" not in page.text


def test_the_user_page_lists_memories_without_a_query_paged(browse_world, client):
    url = f"/apps/{browse_world['app']}/users/carol"
    first = client.get(url, params={"limit": 5})
    assert first.status_code == 200
    # newest first by default: facts 11..7
    assert listed(first.text) == [TEXTS[i] for i in (11, 10, 9, 8, 7)]
    assert "1–5 of 12" in first.text and "page 1 of 3" in first.text
    third = client.get(url, params={"limit": 5, "page": 3})
    assert listed(third.text) == [TEXTS[1], TEXTS[0]]
    assert 'rel="next"' not in third.text and 'rel="prev"' in third.text


def test_sort_by_importance_and_filters(browse_world, client):
    url = f"/apps/{browse_world['app']}/users/carol"
    asc = client.get(url, params={"sort": "importance", "order": "asc", "limit": 3})
    assert listed(asc.text) == [TEXTS[0], TEXTS[1], TEXTS[2]]
    prefs = client.get(url, params={"type": "preference", "limit": 50})
    assert sorted(listed(prefs.text)) == [TEXTS[i] for i in (0, 3, 6, 9)]
    food = client.get(url, params={"tag": "food", "contains": "number 0", "limit": 50})
    assert sorted(listed(food.text)) == [TEXTS[i] for i in (0, 2, 4, 6, 8)]


async def test_sort_by_last_use_puts_used_memories_first(browse_world, memory, db_url, embedder):
    app = browse_world["app"]
    found = await memory.search(app_name=app, user_id="carol", query=TEXTS[4], limit=1)
    assert found.memories[0].content.parts[0].text == TEXTS[4]
    await memory.flush_access()
    with TestClient(create_app(db_url, embedder=embedder), base_url=LOOPBACK) as client:
        page = client.get(f"/apps/{app}/users/carol", params={"sort": "last_used", "limit": 50})
    assert listed(page.text)[0] == TEXTS[4]
    assert "never" in page.text  # the others were never used


def test_add_a_memory_by_hand_goes_through_the_write_path(browse_world, client):
    app = browse_world["app"]
    url = f"/apps/{app}/users/carol"
    token = csrf(client)
    added = client.post(
        f"{url}/memories",
        data={
            "csrf_token": token,
            "text": "Carol keeps her bike in the garage on Rua Augusta.",
            "memory_type": "fact",
            "tags": "home, bike",
            "importance": "0.7",
        },
        follow_redirects=False,
    )
    assert added.status_code == 303 and "done=added" in added.headers["location"]
    page = client.get(url, params={"contains": "bike"})
    assert "Carol keeps her bike in the garage on Rua Augusta." in page.text
    assert "#bike" in page.text and "#home" in page.text and "dana" in page.text
    # a behaviour change goes to the review queue, not into memory
    queued = client.post(
        f"{url}/memories",
        data={"csrf_token": token, "text": "Never ask me about dessert again."},
        follow_redirects=False,
    )
    assert "done=added_review" in queued.headers["location"]
    assert "Never ask me about dessert again." not in client.get(url).text.split("Review")[0]
    review = client.get("/review", params={"app": app})
    assert "Never ask me about dessert again." in review.text
    # sensitive text is refused and stored nowhere
    refused = client.post(
        f"{url}/memories",
        data={"csrf_token": token, "text": "Carol's card number is 4111 1111 1111 1111."},
        follow_redirects=False,
    )
    assert "done=added_dropped" in refused.headers["location"]
    assert "4111" not in client.get(url, params={"state": "all", "limit": 200}).text


def test_edit_type_tags_importance_keeps_the_old_version(browse_world, client):
    app = browse_world["app"]
    url = f"/apps/{app}/users/carol"
    items = client.get(f"/api/apps/{app}/users/carol/memories", params={"q": TEXTS[5]}).json()
    target = next(m for m in items["memories"] if m["text"] == TEXTS[5])
    edited = client.post(
        f"{url}/memories/{target['id']}/edit",
        data={
            "csrf_token": csrf(client),
            "memory_type": "episode",
            "tags": "trips",
            "importance": "0.95",
            "reason": "it was a one-off trip",
        },
        follow_redirects=False,
    )
    assert edited.status_code == 303 and "done=edited" in edited.headers["location"]
    current = client.get(url, params={"contains": "number 05", "type": "episode"})
    assert listed(current.text) == [TEXTS[5]] and "#trips" in current.text
    assert "0.95" in current.text
    old = client.get(url, params={"contains": "number 05", "state": "superseded"})
    assert listed(old.text) == [TEXTS[5]]
    assert "it was a one-off trip" in old.text and "(by dana)" in old.text
    for wrong in ({"memory_type": "not a type!"}, {"memory_type": "fact", "importance": "2"}):
        bad = client.post(
            f"{url}/memories/{target['id']}/edit",
            data={"csrf_token": csrf(client), "reason": "x", **wrong},
        )
        assert bad.status_code == 400, wrong


def test_changes_need_csrf_and_are_refused_read_only(browse_world, client, db_url, embedder):
    url = f"/apps/{browse_world['app']}/users/carol/memories"
    assert client.post(url, data={"text": "no token"}).status_code == 403
    with TestClient(create_app(db_url, embedder=embedder, read_only=True), base_url=LOOPBACK) as ro:
        token = ro.get("/api/csrf").json()["csrf_token"]
        assert ro.post(url, data={"csrf_token": token, "text": "x"}).status_code == 403
        assert "Add a memory" not in ro.get(url.removesuffix("/memories")).text


def test_profile_and_working_memory_are_shown_read_only(browse_world, client):
    app, sid = browse_world["app"], browse_world["session"]
    page = client.get(f"/apps/{app}/users/carol")
    profile = page.text.split('id="profile"')[1].split("</section>")[0]
    assert "user:pref_diet" in profile and "pescatarian" in profile
    session = client.get(f"/apps/{app}/users/carol/sessions/{sid}")
    assert session.status_code == 200
    wm = session.text.split('id="working-memory"')[1].split("</section>")[0]
    assert "plan the Lisbon trip" in wm and "wm_view" in wm and "<form" not in wm


async def test_export_holds_everything_about_the_user(browse_world, db_url, embedder, memory):
    app = browse_world["app"]
    log = EpisodicLog(db_url)
    queue = ReviewQueue(db_url)
    try:
        await queue.submit(app_name=app, user_id="carol", text="Never call before noon.")
        with TestClient(create_app(db_url, embedder=embedder), base_url=LOOPBACK) as client:
            response = client.get(f"/apps/{app}/users/carol/export")
        other = await memory.count_memories(app_name=app, user_id="carol")
    finally:
        await queue.close()
        await log.close()
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    doc = response.json()
    assert doc["format"] == "adk-memory-kit.user-export/1"
    assert (doc["app_name"], doc["user_id"]) == (app, "carol")
    texts = {m["text"] for m in doc["memories"]}
    assert set(TEXTS) <= texts
    assert len(doc["memories"]) == sum(other.values())
    assert all("embedding" not in m for m in doc["memories"])
    assert any(r["text"] == "Never call before noon." for r in doc["review_items"])
    assert [s["id"] for s in doc["sessions"]] == [browse_world["session"]]
    assert doc["profile"] == {"user:pref_diet": "pescatarian"}
    stores = {loc["store"] for loc in doc["locations"]}
    assert stores, doc["locations"]
    assert doc["episodic_log"] == []
