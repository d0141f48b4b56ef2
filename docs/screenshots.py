"""Screenshots of every console view (docs/img/console-*.png), taken with Debian's chromium.

Run from the repository root:

    PYTHONPATH=$PWD python docs/screenshots.py

It starts an embedded Postgres in a temporary ADK_MEMORY_KIT_HOME, writes the real data of
tests/console/seed.py through the kit's public APIs, serves the console with uvicorn and
captures each page at 1366x900 (a laptop screen).
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
        try:
            seeded = await seed(memory, sessions, queue, app="concierge")
            await seed(memory, sessions, queue, app="rebooker")
            first = seeded.review_ids["bob"][0]
            await queue.approve(first, by="dana", note="added the skip_confirm preference")
            return seeded
        finally:
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
        "memory": f"{alice}?q=what+does+alice+eat",
        "review": "/review?app=concierge&status=all",
        "forget": f"{alice}/forget",
        "session": f"{alice}/sessions/{seeded.sessions['alice'][0]}",
    }
    import adk_memory_kit

    if not hasattr(adk_memory_kit, "EpisodicLog"):
        print("traces and costs: no episodic log in this kit version, not captured")
    else:  # pragma: no cover - once the episodic log exists
        views["costs"] = "/apps/concierge/costs"
    with serve(app) as base, chromium() as browser:
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        for name, path in views.items():
            page.goto(base + path)
            page.wait_for_load_state("networkidle")
            target = OUT / f"console-{name}.png"
            page.screenshot(path=str(target), full_page=name in ("memory", "review", "forget"))
            print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
