"""How many events carry the kit's bookkeeping as a state chip in the dev UI (``adk web``).

Runs the concierge sample (offline scripted model, the routing and checkpoint plugins) through a
real Runner on ADK's DatabaseSessionService (embedded PostgreSQL in a temporary home), two
sessions, and counts the events whose ``actions.state_delta`` names a kit bookkeeping key
(as streamed and as stored), the stored state's bookkeeping keys (the State tab), and the events
carrying the routing/recall records in ``custom_metadata``.

    python benchmarks/state_tab_clutter.py
"""

from __future__ import annotations

import asyncio
import os
import tempfile

os.environ.setdefault("ADK_MEMORY_KIT_HOME", tempfile.mkdtemp(prefix="state_tab_clutter_"))
os.environ.pop("ADK_MEMORY_KIT_DB_URL", None)
for _name in ("GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "ADK_MEMORY_KIT_MODEL"):
    os.environ.pop(_name, None)

SESSIONS = (
    (
        "Hello, I'm vegan and please always deliver my orders to the Baner office front desk.",
        "We have 20 euros to spend today.",
        "Stop asking me to double-check totals.",
        "My teammate Ravi eats with us on Tuesdays.",
    ),
    ("Can you order my lunch to the office, please?", "Great, that's everything, goodbye!"),
)
KEYS = ("_adk_memory_kit_routing", "_adk_memory_kit_recall", "adk_memory_kit:routing")
META = ("adk_memory_kit.routing", "adk_memory_kit.recall")


def bookkeeping(delta: dict | None) -> bool:
    return any(k in KEYS or k.startswith("temp:adk_memory_kit.") for k in delta or {})


async def main() -> None:
    from google.adk.runners import Runner
    from google.adk.sessions import DatabaseSessionService
    from google.genai import types

    from adk_memory_kit import PgVectorMemoryService, embedded_db_url
    from adk_memory_kit.demo.concierge import build_concierge_app

    app = build_concierge_app()
    sessions = DatabaseSessionService(db_url=embedded_db_url())
    memory = PgVectorMemoryService()
    runner = Runner(app=app, session_service=sessions, memory_service=memory)
    streamed = streamed_chips = stored = stored_chips = 0
    with_meta = dict.fromkeys(META, 0)
    state_keys: set[str] = set()
    try:
        for turns in SESSIONS:
            session = await sessions.create_session(app_name=app.name, user_id="u-clutter")
            for said in turns:
                message = types.Content(role="user", parts=[types.Part(text=said)])
                async for event in runner.run_async(
                    user_id="u-clutter", session_id=session.id, new_message=message
                ):
                    streamed += 1
                    streamed_chips += bookkeeping(event.actions.state_delta)
            session = await sessions.get_session(
                app_name=app.name, user_id="u-clutter", session_id=session.id
            )
            stored += len(session.events)
            stored_chips += sum(bookkeeping(e.actions.state_delta) for e in session.events)
            for key in META:
                with_meta[key] += sum(key in (e.custom_metadata or {}) for e in session.events)
            state_keys |= {k for k in session.state if k in KEYS or "_adk_memory_kit" in k}
    finally:
        await runner.close()
        await memory.close()
        await sessions.close()
    print(f"streamed events: {streamed}, with a bookkeeping state chip: {streamed_chips}")
    print(f"stored events: {stored}, with a bookkeeping state chip: {stored_chips}")
    print(f"stored events carrying a record in custom_metadata: {with_meta}")
    print(f"bookkeeping keys in the stored state (State tab): {sorted(state_keys)}")


if __name__ == "__main__":
    asyncio.run(main())
