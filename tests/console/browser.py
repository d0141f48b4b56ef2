"""Serving the console on a free localhost port and opening Debian's chromium with Playwright.

Used by the browser tests and by ``docs/screenshots.py`` (its console and ``adk web`` shots).
Never downloads a browser: it drives ``/usr/bin/chromium`` (``apt-get install -y chromium``)
through Playwright's ``executable_path``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
import time
from collections.abc import Iterator

from tests.support.samples import free_port

CHROMIUM = os.environ.get("ADK_MEMORY_KIT_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def missing_browser() -> str | None:
    """Why the browser tests cannot run here (``None``: they can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -e '.[dev]')"
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        return f"{CHROMIUM} not found (Debian: apt-get install -y chromium)"
    return None


@contextlib.contextmanager
def serve(app) -> Iterator[str]:
    """Run ``app`` with uvicorn in a thread; yields its base URL, stops it on exit."""
    import uvicorn

    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", access_log=False, lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the console server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@contextlib.contextmanager
def chromium() -> Iterator[object]:
    """A headless chromium browser (Playwright ``Browser``)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()
