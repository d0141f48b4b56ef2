"""The console over HTTP (FastAPI's TestClient) on the real embedded Postgres.

Every page and JSON endpoint, the scoping of changes to the URL's app and user, the CSRF
and token rules, read-only mode and the escaping of user content.
"""

from __future__ import annotations

import re
import uuid
from urllib.parse import quote

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from adk_memory_kit.console import create_app
from adk_memory_kit.routing.review_queue import ReviewQueue
from tests.console.seed import XSS, seed

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
async def queue(db_url):
    q = ReviewQueue(db_url)
    yield q
    await q.close()


@pytest.fixture(scope="module")
async def world(memory, sessions, queue):
    """One seeded app shared by the module's read-mostly tests."""
    return await seed(memory, sessions, queue)


@pytest.fixture
def make_client(db_url, embedder):
    """Build TestClients on fresh console apps (closed at the end of the test)."""
    opened: list[TestClient] = []

    def build(**options) -> TestClient:
        options.setdefault("operator", "dana")
        client = TestClient(
            create_app(db_url, embedder=embedder, **options), base_url="http://127.0.0.1"
        )
        client.__enter__()
        opened.append(client)
        return client

    yield build
    for client in opened:
        client.__exit__(None, None, None)


def csrf(client: TestClient) -> str:
    return client.get("/api/csrf").json()["csrf_token"]


def memory_ids(client: TestClient, app: str, user: str, q: str) -> dict[str, str]:
    found = client.get(f"/api/apps/{app}/users/{user}/memories", params={"q": q, "limit": 50})
    assert found.status_code == 200, found.text
    return {m["text"]: m["id"] for m in found.json()["memories"]}


def total(client: TestClient, app: str, user: str) -> int:
    return sum(client.get(f"/api/apps/{app}/users/{user}/memories").json()["counts"].values())


# ---------------------------------------------------------------------- pages
def test_every_page_renders_with_no_store_and_csp(world, make_client):
    client = make_client(apps=[world.app])
    app = world.app
    sid = world.sessions["alice"][0]
    pages = [
        "/",
        f"/apps/{app}",
        f"/apps/{app}/users/alice",
        f"/apps/{app}/users/alice?q=diet",
        "/review",
        f"/review?app={app}&status=all",
        f"/review?app={app}&user=bob&status=approved",
        f"/apps/{app}/users/alice/forget",
        "/forgets",
        f"/forgets?app={app}",
        f"/apps/{app}/users/alice/sessions/{sid}",
        f"/apps/{app}/costs",
        "/login",
    ]
    for path in pages:
        response = client.get(path)
        assert response.status_code == 200, (path, response.text[:500])
        assert response.headers["cache-control"] == "no-store", path
        assert "script-src 'self'" in response.headers["content-security-policy"], path
        assert response.headers["x-content-type-options"] == "nosniff"
        assert "text/html" in response.headers["content-type"]
    bad = client.get(f"/apps/{app}/users/alice", params={"q": "x", "limit": "many"})
    assert bad.status_code == 400 and "bad value for limit" in bad.text
    assert client.get("/api/review", params={"limit": "x"}).json() == {
        "error": "bad value for limit"
    }
    static = client.get("/static/htmx.min.js")
    assert static.status_code == 200 and static.headers["cache-control"] == "no-store"


def test_apps_and_users_show_real_counts(world, make_client):
    client = make_client(apps=[world.app])
    apps = {a["app_name"]: a for a in client.get("/api/apps").json()["apps"]}
    row = apps[world.app]
    assert row["users"] == 2 and row["sessions"] == 3 and row["pending_reviews"] == 3
    assert row["memories"] > 0 and row["last_activity"]
    users = {u["user_id"]: u for u in client.get(f"/api/apps/{world.app}/users").json()["users"]}
    assert set(users) == {"alice", "bob"}
    # five add_memory facts, and the new row of the seed's correction
    assert users["alice"]["memories"]["fact"] == 6
    assert users["alice"]["memories"]["event"] == 5  # five text events in two sessions
    assert users["alice"]["review_items"] == 2 and users["alice"]["sessions"] == 2
    page = client.get(f"/apps/{world.app}").text
    assert "alice" in page and "2 pending" in page
    home = client.get("/").text
    assert world.app in home


def test_user_page_deep_link_shows_search_results_as_served(world, make_client):
    client = make_client()
    page = client.get(f"/apps/{world.app}/users/alice", params={"q": "is alice vegan"}).text
    assert "Alice is vegan since March." in page
    # the superseded fact of the same subject is flagged, with its valid-to date
    superseded = re.search(r'<li class="result superseded"[^>]*>.*?</li>', page, re.S)
    assert superseded and "Alice is vegetarian." in superseded.group(0)
    assert "importance" in page and "0.90" in page
    assert '<span class="pl">bm25</span>' in page and "not available" not in page
    empty = client.get(f"/apps/{world.app}/users/alice").text
    assert "Type a query" in empty
    # htmx asks for the results fragment only
    fragment = client.get(
        f"/apps/{world.app}/users/alice",
        params={"q": "window seat"},
        headers={"HX-Request": "true", "HX-Target": "results"},
    ).text
    assert fragment.lstrip().startswith('<div id="results">') and "window seats" in fragment


def _ids(html: str) -> list[str]:
    return re.findall(r'<li class="result[^"]*" id="m-([^"]+)"', html)


async def test_search_results_are_what_the_agent_is_served_then_the_history(
    world, memory, make_client
):
    """The results the page ranks are exactly what the agent's memory search is served
    (same search, same order, no superseded item); the superseded versions that match come
    apart, after them, flagged and marked as never served."""
    client = make_client()
    for q in ("is alice vegan", "seats on trains", "what does alice eat, diet vegan"):
        agent = await memory.search(
            app_name=world.app, user_id="alice", query=q, limit=10, record_access=False
        )
        served_ids = [str(m.id) for m in agent.memories]
        assert served_ids, q
        page = client.get(f"/apps/{world.app}/users/alice", params={"q": q, "limit": 10}).text
        served = page.split('<ol class="results served">')[1].split("</ol>")[0]
        assert _ids(served) == served_ids, q
        assert 'class="result superseded"' not in served, q
        assert "what the agent's memory search is served" in page
        body = client.get(
            f"/api/apps/{world.app}/users/alice/memories", params={"q": q, "limit": 10}
        ).json()
        assert [m["id"] for m in body["memories"] if m["served"]] == served_ids, q
        assert all(m["superseded"] for m in body["memories"] if not m["served"]), q
    # alice's diet changed: the old fact is not served, but shown apart as history
    page = client.get(f"/apps/{world.app}/users/alice", params={"q": "is alice vegan"}).text
    served, history = page.split('<ol class="results served">')[1].split("</ol>", 1)
    assert "Alice is vegan since March." in served and "Alice is vegetarian." not in served
    assert "never served to the agent" in history and "Alice is vegetarian." in history


def test_session_page_shows_the_events_of_that_users_session_only(world, make_client):
    client = make_client()
    app, sid = world.app, world.sessions["alice"][0]
    page = client.get(f"/apps/{app}/users/alice/sessions/{sid}").text
    assert "Booked Green Fork for Friday 19:30, table for two." in page
    assert page.index("Please book me a table") < page.index("allergic to peanuts")
    events = client.get(f"/api/apps/{app}/users/alice/sessions/{sid}/events").json()["events"]
    assert [e["author"] for e in events] == ["user", "concierge", "user"]
    assert client.get(f"/apps/{app}/users/bob/sessions/{sid}").status_code == 404
    assert client.get(f"/api/apps/{app}/users/bob/sessions/{sid}/events").status_code == 404
    assert client.get(f"/apps/x-{app}/users/alice/sessions/{sid}").status_code == 404


def test_memories_api_returns_kit_fields(world, make_client):
    client = make_client()
    body = client.get(
        f"/api/apps/{world.app}/users/alice/memories", params={"q": "diet vegan vegetarian"}
    ).json()
    by_text = {m["text"]: m for m in body["memories"]}
    vegan = by_text["Alice is vegan since March."]
    assert vegan["kind"] == "fact" and vegan["subject"] == "diet" and not vegan["superseded"]
    assert vegan["importance"] == pytest.approx(0.9) and vegan["score"] > 0
    assert by_text["Alice is vegetarian."]["superseded"]
    assert body["counts"] == {"event": 5, "fact": 6}


# ---------------------------------------------------------------------- escaping
def test_xss_payload_in_memory_renders_as_text(world, make_client):
    client = make_client()
    page = client.get(f"/apps/{world.app}/users/alice", params={"q": "nickname"}).text
    assert "Alice&#39;s nickname is &lt;img src=x onerror=alert(1)&gt;" in page
    assert "<img src=x" not in page and '<script>alert("xss")' not in page
    # the JSON API returns the text unchanged, as JSON (never HTML)
    api = client.get(f"/api/apps/{world.app}/users/alice/memories", params={"q": "nickname"})
    assert api.headers["content-type"].startswith("application/json")
    assert any(XSS in m["text"] for m in api.json()["memories"])


def test_xss_in_review_item_and_ids_is_escaped(world, make_client, queue):
    client = make_client()
    user = "<svg onload=alert(1)>"
    app = f"xss-{world.app}"  # its own app: the other tests count the seeded app's items
    client.portal.call(_submit, client, app, user, XSS)  # in the client's own event loop
    page = client.get("/review", params={"app": app}).text
    assert "&lt;svg onload=alert(1)&gt;" in page and "<svg onload" not in page
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    user_page = client.get(f"/apps/{app}/users/{quote(user, safe='')}").text
    assert "<svg onload" not in user_page and "&lt;svg onload=alert(1)&gt;" in user_page


async def _submit(client: TestClient, app: str, user: str, text: str) -> None:
    data = client.app.state.console
    await data.start()
    await data.queue.submit(app_name=app, user_id=user, text=text, session_id="s-xss")


# ---------------------------------------------------------------------- CSRF
def test_changes_need_a_valid_csrf_token(world, memory, make_client):
    client = make_client()
    app = world.app
    ids = memory_ids(client, app, "bob", "terminal early flights")
    target = ids["Bob flies out of Terminal 2 and likes early flights."]
    url = f"/apps/{app}/users/bob/memories/{target}/delete"
    before = total(client, app, "bob")
    assert client.post(url, data={}, follow_redirects=False).status_code == 403
    forged = "abc.0123456789abcdef0123456789abcdef"
    assert client.post(url, data={"csrf_token": forged}).status_code == 403
    # a token of another console (signed with another secret) is refused too
    other = make_client()
    foreign = csrf(other)
    assert client.post(url, data={"csrf_token": foreign}).status_code == 403
    api = f"/api/apps/{app}/users/bob/memories/{target}/delete"
    assert client.post(api, json={}).status_code == 403
    assert total(client, app, "bob") == before
    token = csrf(client)
    done = client.post(url, data={"csrf_token": token}, follow_redirects=False)
    assert done.status_code == 303 and "done=deleted" in done.headers["location"]
    assert total(client, app, "bob") == before - 1
    assert target not in memory_ids(client, app, "bob", "terminal early flights").values()


def test_csrf_cookie_is_httponly_strict(make_client):
    client = make_client()
    response = client.get("/login")
    cookie = response.headers["set-cookie"]
    assert "amk_csrf=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie


# ---------------------------------------------------------------------- scoping
def test_memory_of_one_user_cannot_be_deleted_through_another_users_url(world, make_client):
    client = make_client()
    app = world.app
    alice_id = memory_ids(client, app, "alice", "window seats trains")[
        "Alice prefers window seats on trains."
    ]
    token = csrf(client)
    before = total(client, app, "alice")
    html = client.post(
        f"/apps/{app}/users/bob/memories/{alice_id}/delete", data={"csrf_token": token}
    )
    assert html.status_code == 404
    api = client.post(
        f"/api/apps/{app}/users/bob/memories/{alice_id}/delete",
        json={},
        headers={"X-CSRF-Token": token},
    )
    assert api.status_code == 404 and "no such memory" in api.json()["error"]
    other_app = client.post(
        f"/api/apps/other-{app}/users/alice/memories/{alice_id}/delete",
        json={},
        headers={"X-CSRF-Token": token},
    )
    assert other_app.status_code == 404
    assert total(client, app, "alice") == before
    bad_id = client.post(
        f"/api/apps/{app}/users/alice/memories/not-a-uuid/delete",
        json={},
        headers={"X-CSRF-Token": token},
    )
    assert bad_id.status_code == 400


def test_review_item_cannot_be_decided_through_another_users_url(world, make_client):
    client = make_client()
    app = world.app
    item = world.review_ids["alice"][1]
    token = csrf(client)
    for path in (
        f"/api/apps/{app}/users/bob/review/{item}",
        f"/api/apps/x-{app}/users/alice/review/{item}",
    ):
        response = client.post(path, json={"decision": "approve"}, headers={"X-CSRF-Token": token})
        assert response.status_code == 404, path
    html = client.post(
        f"/apps/{app}/users/bob/review/{item}", data={"csrf_token": token, "decision": "reject"}
    )
    assert html.status_code == 404
    pending = client.get("/api/review", params={"app": app, "user": "alice"}).json()["items"]
    assert item in [i["id"] for i in pending]


# ---------------------------------------------------------------------- review queue
def test_approve_and_reject_record_who_when_and_note(world, make_client):
    client = make_client()
    app = world.app
    first, second = world.review_ids["alice"]
    token = csrf(client)
    back = f"/review?app={app}&status=all"
    done = client.post(
        f"/apps/{app}/users/alice/review/{first}",
        data={
            "csrf_token": token,
            "decision": "approve",
            "note": "added skip_confirm",
            "by": "erin",
            "return_to": back,
        },
        follow_redirects=False,
    )
    assert done.status_code == 303 and done.headers["location"].startswith(back)
    rejected = client.post(
        f"/api/apps/{app}/users/alice/review/{second}",
        json={"decision": "reject", "note": "not a preference we support"},
        headers={"X-CSRF-Token": token},
    ).json()["item"]
    assert rejected["status"] == "rejected" and rejected["decided_by"] == "dana"
    items = {
        i["id"]: i
        for i in client.get("/api/review", params={"app": app, "status": "all"}).json()["items"]
    }
    assert items[first]["status"] == "approved" and items[first]["decided_by"] == "erin"
    assert items[first]["note"] == "added skip_confirm" and items[first]["decided_at"]
    page = client.get(back).text
    assert "approved by <strong>erin</strong>" in page and "added skip_confirm" in page
    again = client.post(
        f"/api/apps/{app}/users/alice/review/{first}",
        json={"decision": "approve"},
        headers={"X-CSRF-Token": token},
    )
    assert again.status_code == 400 and "already approved" in again.json()["error"]
    wrong = client.post(
        f"/api/apps/{app}/users/bob/review/{world.review_ids['bob'][0]}",
        json={"decision": "maybe"},
        headers={"X-CSRF-Token": token},
    )
    assert wrong.status_code == 400
    assert client.get("/review", params={"status": "bogus"}).status_code == 400
    # an unsafe return_to falls back to the review queue of the app
    external = client.post(
        f"/apps/{app}/users/bob/review/{world.review_ids['bob'][0]}",
        data={"csrf_token": token, "decision": "approve", "return_to": "//evil.example/x"},
        follow_redirects=False,
    )
    assert external.headers["location"].startswith("/review?app=")


# ---------------------------------------------------------------------- forget
async def test_forget_dry_run_then_typed_confirmation(memory, sessions, queue, make_client):
    mine = await seed(memory, sessions, queue)
    client = make_client()
    app = mine.app
    dry = client.get(f"/api/apps/{app}/users/bob/data-map").json()
    counts = {loc["kind"]: loc["count"] for loc in dry["locations"]}
    assert counts["sessions"] == 1 and counts["memory_items"] == 3
    assert counts["review_queue"] == 1 and counts["forget_log"] == 0
    page = client.get(f"/apps/{app}/users/bob/forget").text
    assert "dry run" in page and "memory_items" in page and "Forget bob" in page
    token = csrf(client)
    wrong = client.post(
        f"/apps/{app}/users/bob/forget", data={"csrf_token": token, "confirm": "Bob"}
    )
    assert wrong.status_code == 400 and "did not match" in wrong.text
    api_wrong = client.post(
        f"/api/apps/{app}/users/bob/forget",
        json={"confirm": "alice"},
        headers={"X-CSRF-Token": token},
    )
    assert api_wrong.status_code == 400
    assert client.get(f"/api/apps/{app}/users/bob/data-map").json() == dry
    done = client.post(
        f"/apps/{app}/users/bob/forget",
        data={"csrf_token": token, "confirm": "bob"},
        follow_redirects=False,
    )
    assert done.status_code == 303 and "done=forgotten" in done.headers["location"]
    after = {
        loc["kind"]: loc
        for loc in client.get(f"/api/apps/{app}/users/bob/data-map").json()["locations"]
    }
    assert after["sessions"]["count"] == 0 and after["memory_items"]["count"] == 0
    assert after["review_queue"]["count"] == 0 and after["forget_log"]["count"] == 1
    assert "completed" in after["forget_log"]["detail"]
    # alice of the same app is untouched
    alice = {
        loc["kind"]: loc["count"]
        for loc in client.get(f"/api/apps/{app}/users/alice/data-map").json()["locations"]
    }
    assert alice["memory_items"] == 11 and alice["sessions"] == 2
    report = client.post(
        f"/api/apps/{app}/users/alice/forget",
        json={"confirm": "alice"},
        headers={"X-CSRF-Token": token},
    ).json()["report"]
    assert report["verified"] and report["memory_items_deleted"] == 11
    forgets = client.get("/api/forgets", params={"app": app}).json()
    assert forgets == {"pending": []}
    assert "Forget log" in client.get(f"/apps/{app}/users/bob/forget?done=forgotten").text


# ---------------------------------------------------------------------- read-only
def test_read_only_hides_and_refuses_every_change(world, make_client):
    client = make_client(read_only=True)
    app = world.app
    page = client.get(f"/apps/{app}/users/alice", params={"q": "window seats"}).text
    assert "window seats" in page and "read-only" in page
    for hidden in ("Delete permanently", "Approve", "Correct…", "Pin…"):
        assert hidden not in page
    assert "Forget alice" not in client.get(f"/apps/{app}/users/alice/forget").text
    assert "Approve" not in client.get("/review", params={"app": app}).text
    token = csrf(client)
    item = world.review_ids["bob"][0]
    posts = [
        f"/apps/{app}/users/alice/memories/{uuid.uuid4()}/delete",
        f"/apps/{app}/users/alice/memories/{uuid.uuid4()}/correct",
        f"/apps/{app}/users/alice/memories/{uuid.uuid4()}/pin",
        f"/apps/{app}/users/bob/review/{item}",
        f"/apps/{app}/users/bob/forget",
    ]
    for path in posts:
        assert (
            client.post(
                path, data={"csrf_token": token, "confirm": "bob", "decision": "approve"}
            ).status_code
            == 403
        ), path
        api = client.post(
            "/api" + path,
            json={"confirm": "bob", "decision": "approve"},
            headers={"X-CSRF-Token": token},
        )
        assert api.status_code == 403, path
    assert client.get("/api/features").json()["read_only"] is True
    assert client.get(f"/api/apps/{app}/users/bob/data-map").json()["locations"]


# ---------------------------------------------------------------------- token
def test_token_is_required_on_every_request(world, make_client):
    client = make_client(token="s3cret-token")
    app = world.app
    page = client.get(f"/apps/{app}/users/alice?q=x", follow_redirects=False)
    assert page.status_code == 303
    assert page.headers["location"].startswith("/login?next=")
    assert client.get("/api/apps").status_code == 401
    assert client.get("/api/apps", headers={"X-Console-Token": "wrong"}).status_code == 401
    assert client.get("/api/apps", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert (
        client.get("/api/apps", headers={"Authorization": "Bearer s3cret-token"}).status_code == 200
    )
    assert client.get("/api/apps", headers={"X-Console-Token": "s3cret-token"}).status_code == 200
    assert client.get("/static/console.css").status_code == 200
    assert client.post("/apps/x/users/y/forget", data={}).status_code in (303, 200)  # to login
    assert client.get("/api/apps", follow_redirects=False).status_code == 401
    # a header-authenticated API client needs no CSRF token (browsers cannot forge headers)
    item = world.review_ids["bob"][0]
    decided = client.post(
        f"/api/apps/{app}/users/alice/review/{item}",
        json={"decision": "approve"},
        headers={"Authorization": "Bearer s3cret-token"},
    )
    assert decided.status_code == 404  # reached the scoping check: bob's item, alice's URL


def test_login_form_sets_a_session_cookie(make_client):
    client = make_client(token="s3cret-token")
    login = client.get("/login?next=/review")
    token = re.search(r'name="csrf_token" value="([^"]+)"', login.text).group(1)
    bad = client.post("/login", data={"csrf_token": token, "token": "nope", "next": "/review"})
    assert bad.status_code == 401 and "not right" in bad.text
    assert client.post("/login", data={"token": "s3cret-token"}).status_code == 403  # no CSRF
    ok = client.post(
        "/login",
        data={"csrf_token": token, "token": "s3cret-token", "next": "/review"},
        follow_redirects=False,
    )
    assert ok.status_code == 303 and ok.headers["location"] == "/review"
    cookie = ok.headers["set-cookie"]
    assert "amk_token=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "expires" not in cookie.lower() and "max-age" not in cookie.lower()  # session only
    assert client.get("/api/features").status_code == 200
    # cookie-authenticated changes still need CSRF
    assert client.post("/api/apps/a/users/b/forget", json={"confirm": "b"}).status_code == 403
    evil = client.post(
        "/login",
        data={"csrf_token": token, "token": "s3cret-token", "next": "//evil.example/"},
        follow_redirects=False,
    )
    assert evil.headers["location"] == "/"
    out = client.post("/logout", data={"csrf_token": token}, follow_redirects=False)
    assert out.status_code == 303
    client.cookies.delete("amk_token")
    assert client.get("/api/features").status_code == 401


# ---------------------------------------------------------------------- features
def test_features_sessions_and_bad_correction(world, make_client):
    client = make_client()
    app = world.app
    assert client.get("/api/features").json() == {"episodic": True, "read_only": False}
    token = csrf(client)
    mid = memory_ids(client, app, "alice", "window seats")["Alice prefers window seats on trains."]
    sessions = client.get(f"/api/apps/{app}/users/alice/sessions").json()["sessions"]
    assert {s["session_id"] for s in sessions} == set(world.sessions["alice"])
    assert (
        client.post(
            f"/api/apps/{app}/users/alice/memories/{mid}/correct",
            json={"new_text": "", "reason": "x"},
            headers={"X-CSRF-Token": token},
        ).status_code
        == 400
    )


def test_mounted_under_a_prefix(world, db_url, embedder):
    parent = FastAPI()
    console = create_app(db_url, embedder=embedder, apps=[world.app])
    parent.mount("/console", console)
    with TestClient(parent, base_url="http://localhost") as client:
        first = client.get("/console/")
        assert "Path=/console/" in first.headers["set-cookie"]
        assert 'href="/console/static/console.css"' in first.text
        assert f'href="/console/apps/{world.app}"' in first.text
        token = client.get("/console/api/csrf").json()["csrf_token"]
        opened = client.get("/console/open", params={"app": world.app}, follow_redirects=False)
        assert opened.headers["location"] == f"/console/apps/{world.app}"
        done = client.post(
            f"/console/apps/{world.app}/users/bob/review/{world.review_ids['bob'][0]}",
            data={"csrf_token": token, "decision": "reject"},
            follow_redirects=False,
        )
        assert done.status_code in (303, 400)  # 400 once another test decided it
        client.portal.call(console.state.console.close)


def test_cli_refuses_a_public_host_without_token(capsys):
    from adk_memory_kit.cli import build_parser, main
    from adk_memory_kit.cli.console import is_loopback

    assert main(["console", "--host", "0.0.0.0"]) == 2
    assert "pass --token" in capsys.readouterr().err
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.com")
    args = build_parser().parse_args(["console", "--read-only", "--app", "a", "--app", "b"])
    assert args.host == "127.0.0.1" and args.port == 8766 and args.read_only
    assert args.app == ["a", "b"] and args.token is None
