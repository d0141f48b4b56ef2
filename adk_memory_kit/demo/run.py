"""The offline demo: the lunch story and a research session (``adk-memory-kit demo``)."""

from __future__ import annotations

import argparse
import os
import time
import uuid
from pathlib import Path

from google.adk.models.base_llm import BaseLlm

from adk_memory_kit.core.model_access import configured_model
from adk_memory_kit.core.wording import counted
from adk_memory_kit.demo.console import heading, note, show_table, step
from adk_memory_kit.testing import Responder, ScriptedLlm

WRITE_PATHS = (
    "router (end of every turn): each fact to its one home; LONG_TERM facts are stored at "
    "once, dated, through add_memory; nothing else of the turn is written to memory.",
    "checkpoint plugin, end_session, SessionCloser, idle job, plain add_session_to_memory: "
    "the same write policy. Stored: the user's sentences that carry content and agent "
    "sentences with their own substance. Never: sentences the router sent to DROP, review, "
    "session state or turn scratch (or already stored as a fact / profile value), filler, "
    "questions that state nothing, and agent text restating recalled memory.",
    "WritePolicy.FULL_TRANSCRIPT (opt-in, LoCoMo-style episodic recall): every text event of "
    "the session, secrets redacted.",
)


def _model(offline: Responder) -> str | BaseLlm:
    """The configured model, else a fresh scripted one answering with ``offline``."""
    return configured_model() or ScriptedLlm(responder=offline)


async def run_demo(args: argparse.Namespace) -> int:
    if args.home:
        os.environ["ADK_MEMORY_KIT_HOME"] = str(Path(args.home).expanduser())
    from adk_memory_kit.core.model_access import has_model_access
    from adk_memory_kit.db.engine import resolve_db_url
    from adk_memory_kit.demo.lunch_story import run_lunch_story
    from adk_memory_kit.demo.research_session import run_research_session
    from adk_memory_kit.testing import offline_concierge_responder, offline_research_responder

    started = time.perf_counter()
    heading("adk-memory-kit demo")
    db_url = args.db_url or resolve_db_url(None)
    if args.db_url or os.environ.get("ADK_MEMORY_KIT_DB_URL"):
        note(f"database: {db_url.split('?')[0]} (your server)")
    else:
        from adk_memory_kit.db import kit_home

        note(f"database: the embedded PostgreSQL, data in {kit_home() / 'pgdata'}")
    if has_model_access():
        note("model: a real model (API key or ADK_MEMORY_KIT_MODEL found).")
    else:
        note(
            "model: NO API KEY FOUND -- using a scripted offline model that follows the "
            "story. Everything else is real: ADK Runner, DatabaseSessionService, "
            "PgVectorMemoryService on PostgreSQL + pgvector, the local embedding model."
        )

    heading("1. Lunch concierge: one fact, one home")
    story = await run_lunch_story(db_url, _model(offline_concierge_responder), args.user)

    heading("2. Research assistant: tool-payload pruning")
    research_user = f"{args.user}-research-{uuid.uuid4().hex[:6]}"
    rows = await run_research_session(
        db_url,
        _model(offline_research_responder),
        research_user,
    )

    heading("3. Trace and cost of this run: the episodic log")
    from adk_memory_kit.demo.episodic_run import show_trace_and_cost

    await show_trace_and_cost(
        db_url,
        _model(offline_research_responder),
        research_user,
    )

    heading("Where everything went")
    table = [(home, "; ".join(items)) for home, items in sorted(story.homes.items())]
    table.append(
        ("WORKING_MEMORY (wm / wm_view)", f"{len(story.wm_view)} chars of view on Thursday")
    )
    table.append(("USER_STATE on Thursday", f"user:pref_diet = {story.thursday_diet!r}"))
    table.append(("LONG_TERM recalled Thursday", counted(len(story.thursday_recalled), "memory")))
    table.append(
        ("IN-CONTEXT (pruned request)", f"last turn {rows[-1][2]:,} -> {rows[-1][3]:,} tokens")
    )
    show_table(table, ("memory home", "what landed there"))
    step(
        f"LONG_TERM, everything searchable now (exactly what `adk-memory-kit search --app "
        f"concierge --user {args.user} '{story.search_query}'` prints):"
    )
    for line in story.long_term_lines:
        print(f"     {line}")
    step("What each write path stores (write policy ROUTED, the default)")
    for line in WRITE_PATHS:
        note(line)
    note(f"done in {time.perf_counter() - started:.1f}s. Look around with the same data:")
    for command in (
        f"adk-memory-kit search --app concierge --user {args.user} '{story.search_query}'",
        f"adk-memory-kit forget --app concierge --user {args.user} --dry-run",
        "adk-memory-kit review list --app concierge",
        f"adk-memory-kit reindex --app concierge --user {args.user} --dry-run",
    ):
        print(f"     {command}")
    return 0
