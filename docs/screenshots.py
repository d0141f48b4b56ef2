"""The documentation's screenshots, taken with Debian's chromium (one script for all of them).

Run from the repository root:

    PYTHONPATH=$PWD python docs/screenshots.py console            # docs/img/console-*.png
    PYTHONPATH=$PWD python docs/screenshots.py agents [agent ...]  # docs/img/adk-web-<agent>.png

``console`` starts an embedded Postgres in a temporary ADK_MEMORY_KIT_HOME, writes the real
data of tests/console/seed.py through the kit's public APIs (including one conversation per
user through ADK's Runner with EpisodicLogPlugin and scripted models, for the trace and cost
views), serves the console with uvicorn and captures each page at 1366x900 (a laptop screen).

``agents`` starts ``adk web agents --session_service_uri=pgvector://
--memory_service_uri=pgvector://`` without a model key on a fresh ``ADK_MEMORY_KIT_HOME``,
types each agent's README conversation into the dev UI, and stops the server. It needs
Playwright for Python (no ``playwright install``: the system browser is used) and, for the
UI's icons offline, ``fonts-material-design-icons-iconfont``.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page, Route

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"


def console() -> int:
    """Every console view, as docs/img/console-*.png."""
    os.environ["ADK_MEMORY_KIT_HOME"] = tempfile.mkdtemp(prefix="amk_console_shots_")
    os.environ.pop("ADK_MEMORY_KIT_DB_URL", None)
    sys.path.insert(0, str(ROOT))
    from google.adk.sessions.database_session_service import DatabaseSessionService

    from adk_memory_kit import EpisodicLog, PgVectorMemoryService
    from adk_memory_kit.console import create_app
    from adk_memory_kit.db import embedded_db_url
    from adk_memory_kit.embedders import LocalMiniLMEmbedder
    from adk_memory_kit.routing import ReviewQueue
    from tests.console.browser import chromium, missing_browser, serve
    from tests.console.seed import seed

    if reason := missing_browser():
        print(f"cannot take screenshots: {reason}", file=sys.stderr)
        return 1
    url = embedded_db_url()
    embedder = LocalMiniLMEmbedder()

    async def write() -> object:
        memory = PgVectorMemoryService(url, embedder=embedder)
        sessions = DatabaseSessionService(db_url=url)
        queue = ReviewQueue(url)
        log = EpisodicLog(url)
        try:
            seeded = await seed(memory, sessions, queue, app="concierge", log=log)
            await seed(memory, sessions, queue, app="rebooker", log=log)
            profiled = await sessions.create_session(
                app_name="concierge",
                user_id="alice",
                state={
                    "user:pref_diet": "vegan",
                    "user:pref_seat": "aisle",
                    "wm": {
                        "goal": "rebook the Lyon train",
                        "constraints": ["arrive before 9:00", "aisle seat"],
                        "plan": [{"step": "find trains", "status": "done"}],
                    },
                    "wm_view": "goal: rebook the Lyon train; 1 of 1 steps done",
                },
            )
            seeded.profiled_session = profiled.id
            first = seeded.review_ids["bob"][0]
            await queue.approve(first, by="dana", note="added the skip_confirm preference")
            return seeded
        finally:
            await log.close()
            await memory.close()
            await sessions.close()
            await queue.close()

    seeded = asyncio.run(write())
    app = create_app(url, embedder=embedder, apps=["concierge", "rebooker"], operator="dana")
    OUT.mkdir(parents=True, exist_ok=True)
    alice = "/apps/concierge/users/alice"
    views = {
        "apps": "/",
        "users": "/apps/concierge",
        "memory": f"{alice}?q=alice+prefers+diet+seats+billing&type=fact,preference&limit=10",
        "review": "/review?app=concierge&status=all",
        "forget": f"{alice}/forget",
        "session": f"{alice}/sessions/{seeded.sessions['alice'][0]}",
        "trace": f"{alice}/sessions/{seeded.traced['alice']}",
        "costs": "/apps/concierge/costs?days=14",
        "list": f"{alice}?sort=importance&limit=5",
        "working-memory": f"{alice}/sessions/{seeded.profiled_session}#working-memory",
    }
    full_page = {"memory", "review", "forget", "trace", "costs", "list"}
    with serve(app) as base, chromium() as browser:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        errors: list[str] = []  # page errors and console errors (a CSP violation is one)
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        for name, path in views.items():
            page.goto(base + path)
            page.wait_for_load_state("networkidle")
            target = OUT / f"console-{name}.png"
            page.screenshot(path=str(target), full_page=name in full_page)
            print(f"wrote {target.relative_to(ROOT)}")
        # the add and edit forms open
        page.goto(f"{base}{alice}?contains=aisle")
        page.locator("#results summary", has_text="Edit type").first.click()
        page.locator("#add-memory textarea").fill("Alice's office is on the 4th floor.")
        page.screenshot(path=str(OUT / "console-edit.png"), full_page=True)
        print("wrote docs/img/console-edit.png")
    if errors:
        print("browser console errors:", *errors, sep="\n  ", file=sys.stderr)
        return 1
    return 0


ICONS = Path("/usr/share/fonts/woff/material-design-icons-iconfont/MaterialIcons-Regular.woff2")
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
    print(f"wrote {out.relative_to(ROOT)}")


def agents(names: list[str]) -> int:
    """Each agent's README conversation in ``adk web``, as docs/img/adk-web-<agent>.png."""
    sys.path.insert(0, str(ROOT))
    from tests.console.browser import chromium, missing_browser
    from tests.support.samples import free_port

    if reason := missing_browser():
        print(f"cannot take screenshots: {reason}", file=sys.stderr)
        return 1
    port = free_port()
    home = tempfile.mkdtemp(prefix="amk_ui_")
    env = {k: v for k, v in os.environ.items() if k not in {"GOOGLE_API_KEY"}}
    env.update(ADK_MEMORY_KIT_HOME=home, ADK_DISABLE_LOAD_DOTENV="1")
    adk = str(Path(sys.executable).parent / "adk")
    uris = ["--session_service_uri=pgvector://", "--memory_service_uri=pgvector://"]
    server = subprocess.Popen(
        [adk, "web", "agents", *uris, "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
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
        with chromium() as browser:
            for name in names or list(FLOWS):
                page = browser.new_page(viewport={"width": 1500, "height": 1000})
                page.route("https://fonts.gstatic.com/**", _fonts)
                page.route("https://fonts.googleapis.com/**", lambda route: route.abort())
                shoot(page, base, name, ROOT / "docs" / "img" / f"adk-web-{name}.png")
                page.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    return 0


def main(argv: list[str]) -> int:
    what, rest = (argv[0], argv[1:]) if argv else ("console", [])
    if what == "console" and not rest:
        return console()
    if what == "agents":
        return agents(rest)
    print("usage: docs/screenshots.py console | agents [agent ...]", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
