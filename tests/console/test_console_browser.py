"""The console in a real browser: Debian's chromium driven by Playwright for Python.

Skipped, with the reason, where chromium or playwright is missing (install chromium with
``apt-get install -y chromium``; playwright comes with the ``dev`` extra; never
``playwright install``). The app is served by uvicorn on a free localhost port.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone

import pytest

from adk_memory_kit import EpisodicLog
from adk_memory_kit.console import create_app
from adk_memory_kit.episodic import PendingEntry
from adk_memory_kit.routing.review_queue import ReviewQueue
from adk_memory_kit.working_memory import Scratchpad, render_view
from tests.console.browser import chromium, missing_browser, serve
from tests.console.seed import XSS, seed

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(missing_browser() is not None, reason=f"browser: {missing_browser()}"),
]


@pytest.fixture(scope="module")
async def world(db_url, memory, sessions):
    """The seeded app, with traced runs and costs in the episodic log; alice also has a
    session whose state holds her ``user:`` profile and working memory; and an app whose
    only model has no price."""
    queue = ReviewQueue(db_url)
    log = EpisodicLog(db_url)
    try:
        seeded = await seed(memory, sessions, queue, log=log)
        wm = {"goal": "rebook the Lyon train", "constraints": ["arrive before 9"]}
        # the view the working-memory toolset renders into state (quotes, <, non-ASCII)
        wm["open"] = ["is Zoë's café open <before> 9?"]
        view = render_view(Scratchpad.model_validate(wm)).text
        profiled = await sessions.create_session(
            app_name=seeded.app,
            user_id="alice",
            state={"user:pref_seat": "aisle", "wm": wm, "wm_view": view},
        )
        seeded.profiled_session = profiled.id
        seeded.unpriced_app = f"unpriced-{seeded.app}"
        now = datetime.now(timezone.utc)
        for i in range(3):
            log.append(
                PendingEntry(
                    app_name=seeded.unpriced_app,
                    user_id="zoe",
                    session_id="s-1",
                    invocation_id=f"inv-{i}",
                    agent="helper",
                    kind="model_call",
                    name="house-model-7b",
                    time=(now - timedelta(minutes=10 - i)).timestamp(),
                    input_tokens=1000 + 100 * i,
                    output_tokens=50,
                    payload={"text": "(turn)"},
                )
            )
        await log.flush()
        return seeded
    finally:
        await log.close()
        await queue.close()


@pytest.fixture(scope="module")
def site(world, db_url, embedder):
    app = create_app(db_url, embedder=embedder, apps=[world.app], operator="dana")
    with serve(app) as base:
        yield base


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser):
    """A fresh page that records every dialog (alert/confirm), page error and console error."""
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    page.dialogs = []
    page.errors = []

    def on_dialog(dialog):
        page.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda exc: page.errors.append(str(exc)))
    # CSP violations and failed loads show up as console errors
    page.on("console", lambda m: page.errors.append(m.text) if m.type == "error" else None)
    yield page
    context.close()


def test_deep_links_open_every_view(site, world, page):
    app = world.app
    views = {
        "/": world.app,
        f"/apps/{app}": "alice",
        f"/apps/{app}/users/alice?q=vegan": "Alice is vegan since March.",
        f"/review?app={app}": "Always skip the price confirmation for me.",
        f"/apps/{app}/users/alice/forget": "Data map",
        "/forgets": "Pending forgets",
        f"/apps/{app}/users/alice/sessions/{world.sessions['alice'][0]}": "Booked Green Fork",
    }
    for path, expected in views.items():
        response = page.goto(site + path)
        assert response.status == 200, path
        assert response.headers["cache-control"] == "no-store"
        assert expected in page.inner_text("main"), path
    assert page.errors == []


def test_search_updates_results_and_url(site, world, page):
    page.goto(f"{site}/apps/{world.app}/users/alice")
    # without a query the user's memories are listed (newest first)
    assert "current memories, by time" in page.inner_text("#results")
    from playwright.sync_api import expect  # CSP forbids wait_for_function's eval

    page.fill("#q", "aisle seat on the train")
    expect(page.locator("#results")).to_contain_text("aisle seats", timeout=15000)
    page.wait_for_url(re.compile(r"q=aisle"), timeout=15000)
    first = page.locator("#results li.result").first.inner_text()
    assert "Alice prefers aisle seats on trains." in first
    # the pushed URL is a deep link that serves the same results
    page.reload()
    assert "Alice prefers aisle seats on trains." in page.inner_text("#results")
    assert page.errors == []


def test_results_are_readable_without_javascript(site, world, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{site}/apps/{world.app}/users/alice?q=diet")
    text = page.inner_text("#results")
    assert "Alice is vegan since March." in text and "superseded" in text
    context.close()


def test_xss_payload_stored_as_memory_renders_as_text(site, world, page):
    page.goto(f"{site}/apps/{world.app}/users/alice?q=nickname")
    page.wait_for_load_state("networkidle")
    results = page.locator("#results")
    assert XSS in results.inner_text()
    assert results.locator("img").count() == 0
    assert results.locator("script").count() == 0
    # open every action panel too (the payload is also in the correction textarea)
    for summary in page.locator("#results summary").all():
        summary.click()
    page.wait_for_timeout(300)
    assert page.dialogs == [] and page.errors == []


def test_approve_a_review_item(site, world, page):
    page.goto(f"{site}/review?app={world.app}")
    item = page.locator(f"#review-{world.review_ids['alice'][0]}")
    item.locator("input[name=note]").fill("added the skip_confirm preference")
    item.locator("button[value=approve]").click()
    page.wait_for_selector(".flash", timeout=15000)
    assert "approved" in page.inner_text(".flash").lower()
    page.goto(f"{site}/review?app={world.app}&status=approved")
    decided = page.locator(f"#review-{world.review_ids['alice'][0]}").inner_text()
    assert "approved by dana" in decided and "added the skip_confirm preference" in decided
    assert page.errors == []


def test_forget_dry_run_shows_the_data_map_and_deletes_nothing(site, world, page):
    page.goto(f"{site}/apps/{world.app}/users/bob/forget")
    table = page.locator("table.grid").first.inner_text()
    assert "memory_items" in table and "sessions" in table and "review_queue" in table
    page.fill("input[name=confirm]", "not-bob")
    page.click("button.danger")
    page.wait_for_selector("p.error", timeout=15000)
    assert "did not match" in page.inner_text("p.error")
    page.goto(f"{site}/apps/{world.app}/users/bob?q=terminal")
    assert "Terminal 2" in page.inner_text("#results")


def test_correct_a_memory(site, world, page):
    page.goto(f"{site}/apps/{world.app}/users/alice?q=billing+address")
    result = page.locator("#results li.result", has_text="12 Rue Verte").first
    result.locator("summary", has_text="Correct").click()
    result.locator("textarea[name=new_text]").fill("Alice's billing address is 14 Rue Verte, Lyon.")
    result.locator("form[action$='/correct'] input[name=reason]").fill(
        "she moved next door in October"
    )
    result.locator("button", has_text="Save correction").click()
    page.wait_for_selector(".flash", timeout=15000)
    assert "Memory corrected" in page.inner_text(".flash")
    page.goto(f"{site}/apps/{world.app}/users/alice?q=billing+address")
    old = page.locator("#results li.result.superseded", has_text="12 Rue Verte")
    assert "she moved next door in October" in old.inner_text() and "(by dana)" in old.inner_text()
    current = page.locator("#results li.result:not(.superseded)", has_text="14 Rue Verte")
    assert current.count() == 1 and "correction" in current.inner_text()
    assert page.errors == [] and page.dialogs == []


# ---------------------------------------------------------------------- browsing (issue 28)
def _texts(page) -> list[str]:
    return [t.strip() for t in page.locator("#results li.result p.text").all_inner_texts()]


def test_apps_are_found_in_the_data(site, world, page):
    page.goto(site + "/")
    main = page.inner_text("main")
    # the unpriced app was named nowhere: only its episodic log entries exist
    assert world.app in main and world.unpriced_app in main
    assert page.errors == []


def test_list_sort_filter_and_page_through_memories(site, world, page):
    page.goto(f"{site}/apps/{world.app}/users/alice?limit=3")
    assert len(_texts(page)) == 3
    assert "page 1 of" in page.inner_text("nav.pager")
    page.select_option("form.listing-controls select[name=sort]", "importance")
    page.click("form.listing-controls button")
    page.wait_for_url(re.compile(r"sort=importance"), timeout=15000)
    by_importance = _texts(page)
    assert by_importance[0] == "Alice is vegan since March."  # importance 0.9, the highest
    page.click("nav.pager a[rel=next]")
    page.wait_for_url(re.compile(r"page=2"), timeout=15000)
    second = _texts(page)
    assert second and not set(second) & set(by_importance)
    page.fill("form.listing-controls input[name=contains]", "aisle")
    page.click("form.listing-controls button")
    page.wait_for_url(re.compile(r"contains=aisle"), timeout=15000)
    assert _texts(page) == ["Alice prefers aisle seats on trains."]  # the window one: corrected
    assert page.errors == []


def test_add_a_memory_by_hand(site, world, page):
    page.goto(f"{site}/apps/{world.app}/users/bob")
    form = page.locator("#add-memory form")
    form.locator("textarea[name=text]").fill("Bob's office is on the 4th floor of Tower B.")
    form.locator("input[name=tags]").fill("office")
    form.locator("input[name=importance]").fill("0.8")
    form.locator("button", has_text="Add").click()
    page.wait_for_selector(".flash", timeout=15000)
    assert "Memory added" in page.inner_text(".flash")
    page.goto(f"{site}/apps/{world.app}/users/bob?contains=tower")
    item = page.locator("#results li.result").first
    assert "Bob's office is on the 4th floor of Tower B." in item.inner_text()
    assert "#office" in item.inner_text() and "dana" in item.inner_text()
    assert page.errors == [] and page.dialogs == []


def test_edit_type_tags_and_importance(site, world, page):
    page.goto(f"{site}/apps/{world.app}/users/alice?contains=aisle")
    item = page.locator("#results li.result").first
    item.locator("summary", has_text="Edit type").click()
    form = item.locator("form[action$='/edit']")
    form.locator("select[name=memory_type]").select_option("fact")
    form.locator("input[name=tags]").fill("travel, rail")
    form.locator("input[name=importance]").fill("0.9")
    form.locator("input[name=reason]").fill("she insists on it every time")
    form.locator("button", has_text="Save edit").click()
    page.wait_for_selector(".flash", timeout=15000)
    assert "Memory edited" in page.inner_text(".flash")
    page.goto(f"{site}/apps/{world.app}/users/alice?contains=aisle")
    current = page.locator("#results li.result").first.inner_text()
    assert "#rail" in current and "0.90" in current and "correction" in current
    page.goto(f"{site}/apps/{world.app}/users/alice?contains=aisle&state=superseded")
    old = page.locator("#results li.result").first.inner_text()
    assert "she insists on it every time" in old and "(by dana)" in old
    assert page.errors == [] and page.dialogs == []


def test_export_downloads_one_json_document(site, world, page):
    page.goto(f"{site}/apps/{world.app}/users/alice")
    with page.expect_download(timeout=30000) as download:
        page.click("a[href$='/export']")
    doc = json.loads(open(download.value.path(), encoding="utf-8").read())
    assert (doc["app_name"], doc["user_id"]) == (world.app, "alice")
    texts = {m["text"] for m in doc["memories"]}
    assert "Alice is vegan since March." in texts and "Alice is vegetarian." in texts
    assert world.traced["alice"] in {s["id"] for s in doc["sessions"]}
    assert any(e["session_id"] == world.traced["alice"] for e in doc["episodic_log"])
    assert doc["profile"]["user:pref_seat"] == "aisle"
    assert page.errors == []


def test_profile_and_working_memory_views(site, world, page):
    page.goto(f"{site}/apps/{world.app}/users/alice")
    profile = page.inner_text("#profile")
    assert "user:pref_seat" in profile and "aisle" in profile
    page.goto(f"{site}/apps/{world.app}/users/alice/sessions/{world.profiled_session}")
    wm = page.inner_text("#working-memory")
    assert "rebook the Lyon train" in wm and "arrive before 9" in wm
    # wm_view is shown as the agent reads it: its lines and characters, not JSON escapes
    view = page.locator("#working-memory pre.state").nth(1).inner_text()
    assert view.startswith("<working_memory>\n") and view.rstrip().endswith("</working_memory>")
    assert "Zoë's café" in view and "\\u" not in wm and "\\n" not in wm
    assert page.locator("#working-memory form").count() == 0
    assert page.errors == []


def test_costs_and_traces_draw_without_csp_errors(site, world, page):
    for path in (
        "/costs",
        f"/apps/{world.app}/costs",
        f"/apps/{world.app}/users/alice/sessions/{world.traced['alice']}",
    ):
        page.goto(site + path)
        page.wait_for_load_state("networkidle")
        if "costs" in path:
            assert page.locator("canvas").count() >= 2
            assert "Cost per day (USD)" in page.inner_text("main")
    assert page.errors == [], page.errors


def test_token_counts_where_prices_are_unknown(site, world, page):
    page.goto(f"{site}/apps/{world.unpriced_app}/costs")
    page.wait_for_load_state("networkidle")
    main = page.inner_text("main")
    assert "Tokens per day (tokens)" in main and "never counted as $0" in main
    assert "3,450" in main  # 1000 + 1100 + 1200 in, 3 x 50 out
    assert page.errors == [], page.errors


def test_every_linked_page_loads_without_a_console_error(site, world, page):
    """Follow every console link from the apps page (no JSON documents, no downloads): no
    page logs an error, so no CSP violation (an inline style or script is one)."""
    from urllib.parse import urljoin, urlsplit

    origin = urlsplit(site).netloc
    seen: set[str] = set()
    todo = ["/"]
    while todo and len(seen) < 60:
        path = todo.pop(0)
        if path in seen:
            continue
        seen.add(path)
        response = page.goto(site + path)
        page.wait_for_load_state("networkidle")
        assert response.status == 200, path
        assert page.errors == [], (path, page.errors)
        for href in page.locator("a[href]").evaluate_all("els => els.map(e => e.href)"):
            url = urlsplit(urljoin(site + path, href))
            if url.netloc != origin or url.path.startswith("/api/") or "export" in url.path:
                continue
            if "app=" in url.query and f"app={world.app}" not in url.query:
                continue  # other tests' apps in the same database: the seeded one is enough
            if url.path.startswith("/apps/") and not url.path.startswith(f"/apps/{world.app}"):
                continue
            todo.append(url.path + (f"?{url.query}" if url.query else ""))
    assert len(seen) >= 20, sorted(seen)
    assert any("/sessions/" in p for p in seen) and any("/costs" in p for p in seen)


def test_json_links_open_the_json_document_not_a_swap_into_the_page(site, world, page):
    """The API links are not boosted: the browser opens the JSON itself (htmx swapped its
    text into the page's body under the page's title)."""
    page.goto(f"{site}/apps/{world.app}/users/alice?q=vegan")
    page.click("footer a")
    page.wait_for_url(re.compile(r"/api/features$"), timeout=15000)
    page.wait_for_load_state()
    assert json.loads(page.inner_text("body")) == {"episodic": True, "read_only": False}
    # the browser's own JSON document: not the console page's head and title around it
    assert page.locator("link[rel=stylesheet]").count() == 0 and "alice" not in page.title()
    page.goto(f"{site}/apps/{world.app}/users/alice?q=vegan")
    page.click("span.links a[href*='/api/']")
    page.wait_for_url(re.compile(r"/api/apps/.*/memories"), timeout=15000)
    page.wait_for_load_state()
    assert json.loads(page.inner_text("body"))["query"] == "vegan"
    assert page.locator("link[rel=stylesheet]").count() == 0 and "alice" not in page.title()
