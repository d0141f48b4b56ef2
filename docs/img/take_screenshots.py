"""Take docs/img/adk-web-<agent>.png: each agent's README conversation in ``adk web``, offline.

    python docs/img/take_screenshots.py [agent ...]   # default: every agent

Needs Debian's ``chromium`` (``apt-get install -y chromium``), Playwright for Python
(``pip install playwright``; no ``playwright install``: the system browser is used) and, for
the UI's icons offline, ``fonts-material-design-icons-iconfont``. Starts
``adk web agents --session_service_uri=pgvector:// --memory_service_uri=pgvector://`` without
a model key on a fresh ``ADK_MEMORY_KIT_HOME``, drives the dev UI, and stops the server.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, Route, sync_playwright

REPO = Path(__file__).resolve().parents[2]
ICONS = Path("/usr/share/fonts/woff/material-design-icons-iconfont/MaterialIcons-Regular.woff2")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
FLOWS = {
    "research_assistant": [
        [
            "EV charging market in Europe",
            "heat pump adoption in Germany",
            "solar panel pricing trends",
            "Summarize my findings",
        ]
    ],
    "rebooker": [
        [
            "My Friday flight SFO to JFK was cancelled. Please rebook me: no red-eye, and I "
            "want an aisle seat.",
            "I have to arrive before 9am Friday.",
            "OK, hold it.",
            "Yes, confirm it.",  # complete_task: wm is cleared, wm_last_task keeps the record
        ]
    ],
    "concierge": [
        [
            "I'm vegetarian, and please always deliver to the Pune office reception.",
            "Our budget is 15 euros today.",
            "Stop asking me to confirm prices.",
        ],
        ["Can you order lunch for me?", "Thanks, that's all, bye!"],  # end_session
    ],
}
SHOWN = {"concierge": ("adk_memory_kit:checkpoint:last",), "rebooker": ("wm_last_task",)}
"""The state key each screenshot must show (scrolled into view if the panel is long)."""


def _fonts(route: Route) -> None:
    """Offline: icon fonts from Debian's package; Google Sans falls back to a local sans."""
    if "googlesans" in route.request.url or not ICONS.exists():
        route.abort()
        return
    headers = {"Content-Type": "font/woff2", "Access-Control-Allow-Origin": "*"}
    route.fulfill(status=200, body=ICONS.read_bytes(), headers=headers)


def _dismiss(page: Page) -> None:
    button = page.get_by_text("No Thanks")  # the telemetry prompt
    if button.count():
        button.first.click()
        page.wait_for_timeout(500)


def shoot(page: Page, base: str, name: str, out: Path) -> None:
    page.goto(f"{base}/dev-ui/?app={name}")
    page.wait_for_timeout(4000)
    _dismiss(page)
    for index, turns in enumerate(FLOWS[name]):
        if index:
            page.get_by_text("New Session").first.click()
            page.wait_for_timeout(3000)
        for text in turns:
            page.locator("textarea").fill(text)
            page.locator("textarea").press("Enter")
            page.wait_for_timeout(6000)
    page.get_by_role("tab", name="State").click()
    page.wait_for_timeout(1500)
    for key in SHOWN.get(name, ()):  # a long State panel: bring the kit's key to its top
        node = page.get_by_text(key, exact=True)
        if node.count():
            node.first.evaluate("e => e.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(500)
    page.screenshot(path=str(out))
    print(f"wrote {out.relative_to(REPO)}")


def main() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    home = tempfile.mkdtemp(prefix="amk_ui_")
    env = {k: v for k, v in os.environ.items() if k not in {"GOOGLE_API_KEY"}}
    env.update(ADK_MEMORY_KIT_HOME=home, ADK_DISABLE_LOAD_DOTENV="1")
    adk = str(Path(sys.executable).parent / "adk")
    uris = ["--session_service_uri=pgvector://", "--memory_service_uri=pgvector://"]
    server = subprocess.Popen(
        [adk, "web", "agents", *uris, "--host", "127.0.0.1", "--port", str(port)],
        cwd=REPO,
        env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"{base}/list-apps", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            for name in sys.argv[1:] or list(FLOWS):
                page = browser.new_page(viewport={"width": 1500, "height": 1000})
                page.route("https://fonts.gstatic.com/**", _fonts)
                page.route("https://fonts.googleapis.com/**", lambda route: route.abort())
                shoot(page, base, name, REPO / "docs" / "img" / f"adk-web-{name}.png")
                page.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
