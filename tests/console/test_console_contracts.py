"""The console on the kit's real hygiene and episodic APIs (no stand-ins).

The data is written by tests/console/seed.py through public APIs only: sessions, dated
typed and tagged facts, a correction and a pin, and one conversation per user through ADK's
real ``Runner`` with ``EpisodicLogPlugin`` and ``ScriptedLlm`` (a tool error, a retry, a
transfer to an agent on another model), plus earlier days' model calls appended to the log.
Every figure the pages show is checked against the kit's own answer for the same question.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime, timedelta, timezone

import pytest
from fastapi.testclient import TestClient

from adk_memory_kit import EpisodicLog
from adk_memory_kit.console import create_app
from adk_memory_kit.routing.review_queue import ReviewQueue
from tests.console.browser import chromium, missing_browser, serve
from tests.console.seed import seed

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
async def log(db_url):
    episodic = EpisodicLog(db_url)
    yield episodic
    await episodic.close()


@pytest.fixture(scope="module")
async def queue(db_url):
    q = ReviewQueue(db_url)
    yield q
    await q.close()


@pytest.fixture(scope="module")
async def world(memory, sessions, queue, log):
    return await seed(memory, sessions, queue, log=log)


@pytest.fixture
def make_client(db_url, embedder):
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


def found(client: TestClient, app: str, user: str, q: str, **params) -> list[dict]:
    answer = client.get(
        f"/api/apps/{app}/users/{user}/memories", params={"q": q, "limit": 50, **params}
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["memories"]


def by_text(items: list[dict]) -> dict[str, dict]:
    return {m["text"]: m for m in items}


# ---------------------------------------------------------------------- memory fields
def test_results_show_score_parts_type_tags_dates_and_flags(world, make_client):
    client = make_client()
    items = by_text(found(client, world.app, "alice", "what does alice eat, diet vegan"))
    vegan, vegetarian = items["Alice is vegan since March."], items["Alice is vegetarian."]
    assert set(vegan["scores"]) == {"dense", "bm25", "exact", "fused"}
    assert vegan["scores"]["fused"] == pytest.approx(vegan["score"])
    assert 0 < vegan["scores"]["dense"] <= 1
    assert vegan["memory_type"] == "preference" and vegan["tags"] == ["food"]
    assert vegan["importance"] == pytest.approx(0.9) and vegan["valid_to"] is None
    assert vegan["valid_from"] and vegan["recorded_at"] and vegan["event_time"]
    assert vegetarian["superseded"] and vegetarian["valid_to"]  # consolidation, same subject
    page = client.get(
        f"/apps/{world.app}/users/alice", params={"q": "what does alice eat, diet vegan"}
    ).text
    result = re.search(r'<li class="result"[^>]*>.*?</li>\s*(?=<li|</ol>)', page, re.S).group(0)
    for label in ("dense", "bm25", "exact", "fused", "recorded", "valid to", "last use"):
        assert f">{label}<" in result, label
    assert "#food" in result and "preference" in result and "not available" not in page


def test_corrected_and_pinned_items_show_who_why_and_flags(world, make_client):
    client = make_client()
    items = by_text(found(client, world.app, "alice", "seats on trains"))
    old = items["Alice prefers window seats on trains."]
    new = items["Alice prefers aisle seats on trains."]
    assert old["id"] == world.corrected and old["superseded"]
    assert old["superseded_reason"] == "she asked for aisle seats on 2 trips"
    assert old["superseded_by"] == "dana" and new["corrects"] == world.corrected
    page = client.get(f"/apps/{world.app}/users/alice", params={"q": "seats on trains"}).text
    assert "she asked for aisle seats on 2 trips" in page and "(by dana)" in page
    pinned = by_text(found(client, world.app, "alice", "billing address"))
    assert pinned["Alice's billing address is 12 Rue Verte, Lyon."]["pinned"] is True


def test_filters_are_deep_linkable(world, make_client):
    client = make_client()
    app = world.app
    travel = found(client, app, "alice", "alice prefers", type="preference", tag="travel")
    assert {m["text"] for m in travel} == {
        "Alice prefers window seats on trains.",
        "Alice prefers aisle seats on trains.",
    }
    # as_of an hour ago: the correction had not happened; the aisle seats did not exist
    hour_ago = (datetime.now(timezone.utc) - timedelta(hours=1)).isoformat()
    then = by_text(found(client, app, "alice", "seats on trains", as_of=hour_ago))
    assert "Alice prefers window seats on trains." in then
    assert "Alice prefers aisle seats on trains." not in then
    page = client.get(
        f"/apps/{app}/users/alice",
        params={"q": "alice prefers", "type": "preference", "tag": "food"},
    ).text
    results = page[page.index('<div id="results">') :]
    assert "Alice is vegan since March." in results and "seats" not in results
    assert 'value="preference"' in page and 'value="food"' in page  # the form keeps them
    bad_page = client.get(f"/apps/{app}/users/alice", params={"q": "x", "as_of": "soon"})
    assert bad_page.status_code == 400
    assert (
        client.get(f"/api/apps/{app}/users/alice/memories", params={"q": "x", "type": "Bad!"})
    ).status_code == 400
    assert (
        client.get(f"/api/apps/{app}/users/alice/memories", params={"q": "x", "as_of": "soon"})
    ).status_code == 400


async def test_looking_is_not_a_use(world, make_client, memory):
    """The console searches with record_access=False; the agent's search counts a use."""
    client = make_client()
    query = "billing address invoices"
    text = "Alice's billing address is 12 Rue Verte, Lyon."
    await memory.flush_access()  # the seed's own searches
    before = by_text(found(client, world.app, "alice", query))[text]["use_count"]
    client.get(f"/apps/{world.app}/users/alice", params={"q": query})
    found(client, world.app, "alice", query)
    await memory.flush_access()
    assert by_text(found(client, world.app, "alice", query))[text]["use_count"] == before
    await memory.search(app_name=world.app, user_id="alice", query=query)
    await memory.flush_access()
    after = by_text(found(client, world.app, "alice", query))[text]
    assert after["use_count"] == before + 1 and after["last_used_at"]


# ---------------------------------------------------------------------- correct and pin
def test_correct_through_the_page_supersedes_with_reason_and_operator(world, make_client):
    client = make_client(operator="dana")
    app = world.app
    item = by_text(found(client, app, "bob", "terminal flights"))[
        "Bob flies out of Terminal 2 and likes early flights."
    ]
    token = csrf(client)
    # bob's item through alice's URL: 404 and nothing changes
    wrong = client.post(
        f"/apps/{app}/users/alice/memories/{item['id']}/correct",
        data={"csrf_token": token, "new_text": "hijacked", "reason": "test"},
    )
    assert wrong.status_code == 404
    api_wrong = client.post(
        f"/api/apps/{app}/users/alice/memories/{item['id']}/correct",
        json={"new_text": "hijacked", "reason": "test"},
        headers={"X-CSRF-Token": token},
    )
    assert api_wrong.status_code == 404 and "hijacked" not in api_wrong.text
    assert not by_text(found(client, app, "bob", "terminal"))[item["text"]]["superseded"]
    missing = client.post(
        f"/apps/{app}/users/bob/memories/{item['id']}/correct",
        data={"csrf_token": token, "new_text": "x"},
    )
    assert missing.status_code == 400 and "a reason is required" in missing.text
    done = client.post(
        f"/apps/{app}/users/bob/memories/{item['id']}/correct",
        data={
            "csrf_token": token,
            "new_text": "Bob flies out of Terminal 1 and likes early flights.",
            "reason": "Terminal 2 closed for works",
        },
        follow_redirects=False,
    )
    assert done.status_code == 303 and "done=corrected" in done.headers["location"]
    items = by_text(found(client, app, "bob", "terminal early flights"))
    old = items[item["text"]]
    new = items["Bob flies out of Terminal 1 and likes early flights."]
    assert old["superseded"] and old["superseded_reason"] == "Terminal 2 closed for works"
    assert old["superseded_by"] == "dana" and new["corrects"] == item["id"]
    assert not new["superseded"] and new["importance"] == pytest.approx(0.7)
    assert "hijacked" not in str(found(client, app, "alice", "hijacked"))
    # the JSON API names the operator given in the body
    api = client.post(
        f"/api/apps/{app}/users/bob/memories/{new['id']}/correct",
        json={"new_text": "Bob flies out of Terminal 1.", "reason": "shorter", "by": "erin"},
        headers={"X-CSRF-Token": token},
    )
    assert api.status_code == 200 and api.json()["corrected"] == new["id"]
    newest = by_text(found(client, app, "bob", "terminal"))
    assert newest[new["text"]]["superseded_by"] == "erin"
    assert newest["Bob flies out of Terminal 1."]["id"] == api.json()["new_id"]


def test_pin_and_unpin_with_a_reason_scoped_to_the_url(world, make_client):
    client = make_client()
    app = world.app
    text = "Alice is vegan since March."
    mid = by_text(found(client, app, "alice", "vegan"))[text]["id"]
    token = csrf(client)
    wrong = client.post(
        f"/api/apps/{app}/users/bob/memories/{mid}/pin",
        json={"reason": "keep"},
        headers={"X-CSRF-Token": token},
    )
    assert wrong.status_code == 404
    assert by_text(found(client, app, "alice", "vegan"))[text]["pinned"] is False
    no_reason = client.post(
        f"/apps/{app}/users/alice/memories/{mid}/pin", data={"csrf_token": token}
    )
    assert no_reason.status_code == 400
    pinned = client.post(
        f"/apps/{app}/users/alice/memories/{mid}/pin",
        data={"csrf_token": token, "reason": "diet matters for bookings", "pinned": "1"},
        follow_redirects=False,
    )
    assert pinned.status_code == 303 and "done=pinned" in pinned.headers["location"]
    assert by_text(found(client, app, "alice", "vegan"))[text]["pinned"] is True
    page = client.get(f"/apps/{app}/users/alice", params={"q": "vegan"}).text
    assert "Unpin…" in page
    unpinned = client.post(
        f"/api/apps/{app}/users/alice/memories/{mid}/pin",
        json={"reason": "no longer needed", "pinned": False},
        headers={"X-CSRF-Token": token},
    )
    assert unpinned.status_code == 200 and unpinned.json()["pinned"] is False
    assert by_text(found(client, app, "alice", "vegan"))[text]["pinned"] is False


def test_correct_and_pin_need_csrf_and_are_refused_read_only(world, make_client):
    app = world.app
    client = make_client()
    mid = by_text(found(client, app, "alice", "vegan"))["Alice is vegan since March."]["id"]
    for path, body in (("correct", {"new_text": "x", "reason": "y"}), ("pin", {"reason": "y"})):
        no_form_csrf = client.post(f"/apps/{app}/users/alice/memories/{mid}/{path}", data=body)
        assert no_form_csrf.status_code == 403
        no_csrf = client.post(f"/api/apps/{app}/users/alice/memories/{mid}/{path}", json=body)
        assert no_csrf.status_code == 403
        bad = client.post(
            f"/apps/{app}/users/alice/memories/{mid}/{path}", data={**body, "csrf_token": "x"}
        )
        assert bad.status_code == 403
    ro = make_client(read_only=True)
    page = ro.get(f"/apps/{app}/users/alice", params={"q": "vegan"}).text
    assert "Save correction" not in page and "Pin (never decays)" not in page
    token = csrf(ro)
    for path, body in (("correct", {"new_text": "x", "reason": "y"}), ("pin", {"reason": "y"})):
        refused = ro.post(
            f"/api/apps/{app}/users/alice/memories/{mid}/{path}",
            json=body,
            headers={"X-CSRF-Token": token},
        )
        assert refused.status_code == 403
    item = by_text(found(client, app, "alice", "vegan"))["Alice is vegan since March."]
    assert not item["superseded"] and item["text"] == "Alice is vegan since March."


# ---------------------------------------------------------------------- traces
async def test_trace_page_shows_the_runner_timeline(world, make_client, log):
    client = make_client()
    app, sid = world.app, world.traced["alice"]
    real = await log.trace(app, "alice", sid)
    failure = await log.first_failure(app, "alice", sid)
    kinds = [e.kind for e in real]
    assert {"user_message", "model_call", "tool_call", "tool_error", "transfer"} <= set(kinds)
    api = client.get(f"/api/apps/{app}/users/alice/sessions/{sid}/trace").json()
    assert api["available"]
    assert [(e["seq"], e["kind"], e["name"]) for e in api["entries"]] == [
        (e.seq, e.kind, e.name) for e in real
    ]
    assert api["first_failure_seq"] == failure.seq and failure.name == "pay_deposit"
    priced = [e.cost_usd for e in real if e.cost_usd is not None]
    assert api["cost_usd"] == pytest.approx(sum(priced)) and priced
    page = client.get(f"/apps/{app}/users/alice/sessions/{sid}").text
    steps = re.findall(r'<li id="seq-(\d+)" class="step k-(\w+)', page)
    assert [(int(s), k) for s, k in steps] == [(e.seq, e.kind) for e in real]
    assert f'href="#seq-{failure.seq}"' in page and "ConnectionError" in page
    assert "gemini-2.5-flash" in page and "gemini-2.5-pro" in page and "billing" in page
    assert "not available" not in page
    # events of the same session come from the session service
    assert "Book Green Fork for two on Friday" in page


async def test_trace_is_scoped_to_the_urls_user(world, make_client, log):
    client = make_client()
    app, sid = world.app, world.traced["alice"]
    assert client.get(f"/apps/{app}/users/bob/sessions/{sid}").status_code == 404
    api = client.get(f"/api/apps/{app}/users/bob/sessions/{sid}/trace").json()
    assert api["entries"] == [] and await log.trace(app, "alice", sid)
    assert client.get(f"/api/apps/{app}/users/bob/sessions/{sid}/events").status_code == 404


def test_no_episodic_log_says_so(world, make_client):
    client = make_client(episodic_log=False)
    app, sid = world.app, world.traced["alice"]
    assert client.get("/api/features").json()["episodic"] is False
    page = client.get(f"/apps/{app}/users/alice/sessions/{sid}").text
    assert "no episodic log" in page and "Book Green Fork" in page
    assert client.get(f"/api/apps/{app}/costs").json() == {"available": False}


# ---------------------------------------------------------------------- costs
async def test_costs_per_day_model_agent_and_user_match_cost_summary(world, make_client, log):
    client = make_client(apps=[world.app])
    app = world.app
    report = client.get(f"/api/apps/{app}/costs", params={"days": 14}).json()
    assert report["available"] and len(report["days"]) == 14
    today = datetime.now(timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    start = today - timedelta(days=13)
    summary = await log.cost_summary(app, since=start)
    assert report["total"]["cost_usd"] == pytest.approx(summary.total.cost_usd)
    assert report["total"]["model_calls"] == summary.total.model_calls
    assert sum(d["cost_usd"] or 0 for d in report["days"]) == pytest.approx(summary.total.cost_usd)
    for day in report["days"]:
        begin = datetime.fromisoformat(day["day"]).replace(tzinfo=timezone.utc)
        one = await log.cost_summary(app, since=begin, until=begin + timedelta(days=1))
        assert day["model_calls"] == one.total.model_calls, day["day"]
        assert sum(day["split"].values()) == pytest.approx(one.total.cost_usd or 0)
    # the seeded earlier days: 1 + (days_ago % 4) model calls each
    assert report["days"][-2]["model_calls"] == 2 and report["days"][-4]["model_calls"] == 4
    models = {r["key"]: r["cost_usd"] for r in report["by"]["model"]}
    assert models == pytest.approx({line.key: line.cost_usd for line in summary.by_model})
    assert set(models) == {"gemini-2.5-flash", "gemini-2.5-pro"}
    assert set(report["series"]) == set(models)
    assert {r["key"] for r in report["by"]["agent"]} == {"concierge", "billing"}
    alice = client.get(f"/api/apps/{app}/costs", params={"user": "alice"}).json()
    mine = await log.cost_summary(app, user_id="alice", since=start)
    assert alice["total"]["cost_usd"] == pytest.approx(mine.total.cost_usd)
    assert alice["total"]["cost_usd"] < report["total"]["cost_usd"]
    assert client.get(f"/api/apps/{app}/costs", params={"days": 0}).status_code == 400
    page = client.get(f"/apps/{app}/costs").text
    assert page.count("data-chart-src=") == 3 and "gemini-2.5-pro" in page
    every = client.get("/api/costs", params={"days": 14}).json()
    apps = {r["key"]: r["cost_usd"] for r in every["by"]["app"]}
    assert apps[app] == pytest.approx(summary.total.cost_usd)
    assert client.get("/costs").status_code == 200


# ---------------------------------------------------------------------- forget
async def test_forget_through_the_page_removes_the_episodic_log_rows(
    memory, sessions, queue, log, make_client
):
    fresh = await seed(memory, sessions, queue, app=f"forget-{uuid.uuid4().hex[:6]}", log=log)
    app = fresh.app
    assert await log.count_for_user(app, "alice") > 0
    client = make_client()
    before = client.get(f"/api/apps/{app}/users/alice/data-map").json()
    homes = {loc["kind"]: loc["count"] for loc in before["locations"]}
    assert homes["episodic log"] == await log.count_for_user(app, "alice")
    page = client.get(f"/apps/{app}/users/alice/forget").text
    assert "episodic log" in page
    done = client.post(
        f"/apps/{app}/users/alice/forget",
        data={"csrf_token": csrf(client), "confirm": "alice"},
        follow_redirects=False,
    )
    assert done.status_code == 303 and "done=forgotten" in done.headers["location"]
    assert await log.count_for_user(app, "alice") == 0
    assert await log.trace(app, "alice", fresh.traced["alice"]) == []
    assert await log.count_for_user(app, "bob") > 0  # bob is untouched
    after = client.get(f"/api/apps/{app}/users/alice/data-map").json()
    homes = {loc["kind"]: loc["count"] for loc in after["locations"]}
    assert homes["episodic log"] == 0 and homes["forget_log"] == 1
    assert "1 run(s) recorded: completed" in client.get(f"/apps/{app}/users/alice/forget").text


# ---------------------------------------------------------------------- browser
@pytest.mark.skipif(missing_browser() is not None, reason=f"browser: {missing_browser()}")
def test_trace_and_cost_charts_render_in_chromium_under_the_csp(world, db_url, embedder):
    app = create_app(db_url, embedder=embedder, apps=[world.app])
    with serve(app) as base, chromium() as browser:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        problems: list[str] = []
        page.on("pageerror", lambda exc: problems.append(str(exc)))
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        with page.expect_response(lambda r: f"/api/apps/{world.app}/costs" in r.url) as costs:
            page.goto(f"{base}/apps/{world.app}/costs?days=14")
        assert costs.value.status == 200
        page.wait_for_load_state("networkidle")
        drawn = page.evaluate(
            "() => [...document.querySelectorAll('canvas[data-chart-src]')].map(c => {"
            " const ch = window.Chart.getChart(c);"
            " return ch ? [ch.data.labels.length, ch.data.datasets.length] : null; })"
        )
        assert drawn == [[14, 2], [2, 1], [2, 1]]  # 14 days by 2 models; 2 models; 2 agents
        page.goto(f"{base}/apps/{world.app}/users/alice/sessions/{world.traced['alice']}")
        assert page.locator("ol.timeline li.step.failed").count() >= 1
        assert page.locator("ol.timeline li.step.first").count() == 1
        assert problems == []
