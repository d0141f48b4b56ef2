"""The wiring to copy: sessions and memory in PostgreSQL, and the kit's plugins on an App.

    python samples/wire_runner.py

- sessions: ADK's ``DatabaseSessionService`` on the embedded PostgreSQL (``embedded_db_url()``,
  data under ADK_MEMORY_KIT_HOME); in production pass your own server's URL instead;
- long-term memory: ``PgVectorMemoryService()`` (ADK_MEMORY_KIT_DB_URL, else the same server);
- ``ToolPayloadPruningPlugin``: stale raw tool results are replaced in outgoing requests;
- ``MemoryCheckpointPlugin``: the session is written to long-term memory every N turns;
- ``MemoryRoutingPlugin``: what the user states is routed to user state, memory or review;
- ``ApprovedInstructionsPlugin``: instructions a person approved in the review queue reach the
  agent (pending and rejected ones never do);
- ``UserMessageRedactionPlugin``: the user's turn is stored in the session redacted (the model
  still sees it whole in that turn).

``MemoryKit(...).runner(agent, app_name=...)`` assembles all of this (and more) in one call;
this sample shows the parts one by one.

With GOOGLE_API_KEY (or ADK_MEMORY_KIT_MODEL) set it talks to that model; without one it plays
one scripted turn offline. Either way it prints what each part did.
"""

from __future__ import annotations

import asyncio
import hashlib
import textwrap
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import Runner
from google.adk.sessions import DatabaseSessionService
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from adk_memory_kit import (
    ApprovedInstructionsPlugin,
    MemoryCheckpointPlugin,
    MemoryRoutingPlugin,
    PgVectorMemoryService,
    ToolPayloadPruningPlugin,
    UserMessageRedactionPlugin,
    configured_model,
    embedded_db_url,
)
from adk_memory_kit.routing import RoutingOutcome
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses

APP_NAME = "wire_demo"
USER_ID = "traveller-1"
USER_TURN = "I always take an aisle seat. Find me quiet hotels in Lisbon near the river."
INSTRUCTION = (
    "You help travellers plan trips. Call web_search, save each useful fact with save_finding "
    "(short, with its source), then answer in two sentences."
)


def web_search(query: str) -> dict[str, Any]:
    """Search the web (an offline stand-in: ~2,000 tokens of deterministic text).

    Args:
        query: what to search for.
    """
    seed = int(hashlib.sha256(query.encode()).hexdigest()[:8], 16)
    results = [
        {
            "title": f"{query} - guide #{rank + 1}",
            "snippet": " ".join(
                f"Guide {rank + 1} on {query}, paragraph {p + 1}: reviewers rate option "
                f"{(seed >> p) % 97 + rank} highly, with caveats about noise, prices and season."
                for p in range(9)
            ),
        }
        for rank in range(5)
    ]
    return {"query": query, "results": results}


def save_finding(finding: str, source: str, tool_context: ToolContext) -> dict[str, Any]:
    """Save one distilled finding (a sentence or two) so raw results can be dropped.

    Args:
        finding: the fact worth keeping, in your own words.
        source: where it came from (a result title or URL).
    """
    findings = [*tool_context.state.get("findings", []), {"finding": finding, "source": source}]
    tool_context.state["findings"] = findings
    return {"status": "saved", "findings_saved": len(findings)}


def get_findings(tool_context: ToolContext) -> dict[str, Any]:
    """Return every finding saved in this session."""
    return {"findings": list(tool_context.state.get("findings", []))}


def offline_turn(request: LlmRequest) -> list[types.Part] | str:
    """The scripted model (no API key): search, save one finding, answer."""
    responses = last_function_responses(request)
    if not responses:
        return [call("web_search", query="quiet hotels in Lisbon near the river")]
    if responses[0].name == "web_search":
        first = (responses[0].response or {}).get("results", [{}])[0]
        gist = textwrap.shorten(str(first.get("snippet", "")), 160, placeholder=" …")
        return [call("save_finding", finding=gist, source=str(first.get("title", "")))]
    return "[offline scripted model] Saved one finding on quiet Lisbon hotels by the river."


def describe(event: Any) -> list[str]:
    """One printable line per part of an event."""
    lines = []
    for part in event.content.parts if event.content and event.content.parts else ():
        if part.function_call:
            lines.append(f"[{event.author}] calls {part.function_call.name}")
        elif part.function_response:
            lines.append(f"[{event.author}] {part.function_response.name} returned")
        elif part.text:
            lines.append(f"[{event.author}] {part.text}")
    return lines


async def main() -> None:
    # the one place this sample chooses its model: a configured one, else the offline script
    model = configured_model() or ScriptedLlm(responder=offline_turn)
    agent = LlmAgent(
        name="assistant",
        model=model,
        instruction=INSTRUCTION,
        tools=[web_search, save_finding, get_findings],
    )
    outcomes: list[RoutingOutcome] = []
    # keep_recent=2 and every_n_invocations=1 let one turn show a prune and a checkpoint;
    # the defaults are 4 and 5.
    pruning = ToolPayloadPruningPlugin({"web_search"}, keep_recent=2)
    checkpoint = MemoryCheckpointPlugin(every_n_invocations=1)
    # the offline router; updates and "please forget" are acted on by default
    routing = MemoryRoutingPlugin(on_outcomes=outcomes.extend)
    # approved instructions are read from the review queue on the same (default) database
    plugins = [
        UserMessageRedactionPlugin(),
        ApprovedInstructionsPlugin(),
        pruning,
        checkpoint,
        routing,
    ]
    app = App(name=APP_NAME, root_agent=agent, plugins=plugins)

    sessions = DatabaseSessionService(db_url=embedded_db_url())
    memory = PgVectorMemoryService()
    runner = Runner(app=app, session_service=sessions, memory_service=memory)
    try:
        print(f"model: {model if isinstance(model, str) else model.model}")
        session = await sessions.create_session(app_name=APP_NAME, user_id=USER_ID)
        print(f"[user] {USER_TURN}")
        message = types.Content(role="user", parts=[types.Part(text=USER_TURN)])
        async for event in runner.run_async(
            user_id=USER_ID, session_id=session.id, new_message=message
        ):
            for line in describe(event):
                print(line)

        records = pruning.report.records()
        pruned = sum(r.pruned_parts for r in records)
        saved = sum(r.saved_tokens for r in records)
        print(
            f"pruning: {len(records)} model calls; tool results pruned: {pruned}; "
            f"~{saved} tokens saved"
        )
        for outcome in outcomes:
            print(f"routing: {outcome.key or '-'} -> {outcome.home.value} ({outcome.status})")
        stored = await sessions.get_session(
            app_name=APP_NAME, user_id=USER_ID, session_id=session.id
        )
        prefs = {k: v for k, v in stored.state.items() if k.startswith("user:pref_")}
        print(f"sessions: {len(stored.events)} events stored; user state: {prefs}")
        result = checkpoint.last_result
        rows = await memory.count_memories(app_name=APP_NAME, user_id=USER_ID)
        print(
            f"checkpoint: {result.status}, session {result.session_id}: "
            f"{result.rows_stored} memory rows stored for the session; long-term memory rows "
            f"for {USER_ID}: {sum(rows.values())} {rows}"
            if result
            else "checkpoint: did not run (see the log)"
        )
        found = await memory.search_memory(
            app_name=APP_NAME, user_id=USER_ID, query="Lisbon hotels"
        )
        print(f"memory search 'Lisbon hotels': {len(found.memories)} memories")
        print(f"next: python samples/run_idle_job.py {APP_NAME} --idle-minutes 0 --once")
        print(f"      python samples/forget_user.py {APP_NAME} {USER_ID}")
    finally:
        await runner.close()
        await memory.close()
        await sessions.close()


if __name__ == "__main__":
    asyncio.run(main())
