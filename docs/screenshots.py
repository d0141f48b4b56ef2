"""Screenshots of every console view (docs/img/console-*.png), taken with Debian's chromium.

Run from the repository root:

    PYTHONPATH=$PWD python docs/screenshots.py

It starts an embedded Postgres in a temporary ADK_MEMORY_KIT_HOME, writes the real data of
tests/console/seed.py through the kit's public APIs (including one conversation per user
through ADK's Runner with EpisodicLogPlugin and scripted models, for the trace and cost
views), serves the console with uvicorn and captures each page at 1366x900 (a laptop
screen).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"


def main() -> int:
    os.environ["ADK_MEMORY_KIT_HOME"] = tempfile.mkdtemp(prefix="amk_console_shots_")
    os.environ.pop("ADK_MEMORY_KIT_DB_URL", None)
    sys.path.insert(0, str(ROOT))
    from google.adk.sessions.database_session_service import DatabaseSessionService

    from adk_memory_kit import EpisodicLog
    from adk_memory_kit.console import create_app
    from adk_memory_kit.db import embedded_db_url
    from adk_memory_kit.embedders import LocalMiniLMEmbedder
    from adk_memory_kit.memory import PgVectorMemoryService
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


if __name__ == "__main__":
    sys.exit(main())
