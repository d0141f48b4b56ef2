"""The console in a real browser: Debian's chromium driven by Playwright for Python.

Skipped, with the reason, where chromium or playwright is missing (install chromium with
``apt-get install -y chromium``; playwright comes with the ``dev`` extra; never
``playwright install``). The app is served by uvicorn on a free localhost port.
"""

from __future__ import annotations

import re

import pytest

from adk_memory_kit.console import create_app
from adk_memory_kit.routing.review_queue import ReviewQueue
from tests.console.browser import chromium, missing_browser, serve
from tests.console.seed import XSS, seed

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(missing_browser() is not None, reason=f"browser: {missing_browser()}"),
]


@pytest.fixture(scope="module")
async def world(db_url, memory, sessions):
    queue = ReviewQueue(db_url)
    try:
        return await seed(memory, sessions, queue)
    finally:
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
    assert "Type a query" in page.inner_text("#results")
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
