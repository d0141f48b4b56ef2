"""The pruning layer on a real ADK Runner: plugin, agent callback, stored events, other plugins."""

from __future__ import annotations

import uuid

import pytest
from google.adk.agents import LlmAgent
from google.adk.apps.app import App, EventsCompactionConfig
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
from google.adk.plugins.context_filter_plugin import ContextFilterPlugin
from google.adk.runners import Runner
from google.adk.sessions import DatabaseSessionService, InMemorySessionService
from google.genai import types
from test_pruning_support import ReplyLlm, is_tombstone, load_benchmark, responses

from adk_memory_kit.pruning import (
    METADATA_KEY,
    STATE_KEY,
    PruneStaleToolPayloads,
    PruningReport,
    ToolPayloadPruningPlugin,
)

bench = load_benchmark()
RESULT_TOKENS = 600


def research_agent(**callbacks) -> tuple[LlmAgent, object]:
    llm = bench.ResearchLlm(searches_per_turn=3)
    agent = LlmAgent(
        name="researcher",
        model=llm,
        instruction=bench.INSTRUCTION,
        tools=bench.make_tools(RESULT_TOKENS),
        **callbacks,
    )
    return agent, llm


async def run_turns(runner: Runner, service, app_name: str, turns: int) -> str:
    session = await service.create_session(app_name=app_name, user_id="u1")
    for turn in range(1, turns + 1):
        message = types.Content(role="user", parts=[types.Part(text=f"Turn {turn}: go")])
        async for _ in runner.run_async(user_id="u1", session_id=session.id, new_message=message):
            pass
    return session.id


def stored_search_payloads(events) -> list[str]:
    return [
        (p.function_response.response or {}).get("result", "")
        for e in events
        for p in (e.content.parts if e.content and e.content.parts else ())
        if p.function_response and p.function_response.name == "web_search"
    ]


class SessionInspector:
    """An agent before_model_callback (runs after plugins) that checks the live session."""

    def __init__(self) -> None:
        self.raw_ok: list[bool] = []
        self.pruned_seen = 0

    def __call__(self, callback_context, llm_request):
        payloads = stored_search_payloads(callback_context.session.events)
        self.raw_ok.append(all(len(p) > RESULT_TOKENS * 3 for p in payloads))
        self.pruned_seen += sum(is_tombstone(fr) for fr in responses(llm_request.contents))
        return None


def naive_in_place_prune(callback_context, llm_request):
    """The seed's callback, editing the request's objects in place (what the kit avoids)."""
    for content in llm_request.contents[:-4]:
        for part in content.parts or ():
            fr = part.function_response
            if fr and fr.name == "web_search":
                fr.response = {"status": "pruned"}


@pytest.mark.parametrize("pruner_kind", ["kit", "naive"])
async def test_in_memory_session_events_are_never_changed(pruner_kind: str) -> None:
    inspector = SessionInspector()
    if pruner_kind == "kit":
        plugins = [ToolPayloadPruningPlugin({"web_search"})]
    else:  # control: proves ADK shares payload objects with the live session
        plugins = []
    callbacks = [inspector] if pruner_kind == "kit" else [naive_in_place_prune, inspector]
    agent, _ = research_agent(before_model_callback=callbacks)
    service = InMemorySessionService()
    runner = Runner(
        app=App(name="prune_mem", root_agent=agent, plugins=plugins), session_service=service
    )
    await run_turns(runner, service, "prune_mem", 2)
    await runner.close()
    if pruner_kind == "kit":
        assert inspector.pruned_seen > 0
        assert all(inspector.raw_ok)
    else:
        assert not all(inspector.raw_ok)


async def test_plugin_on_runner_prunes_what_the_model_sees() -> None:
    plugin = ToolPayloadPruningPlugin({"web_search"}, keep_recent=4)
    agent, llm = research_agent()
    service = InMemorySessionService()
    runner = Runner(
        app=App(name="prune_plugin", root_agent=agent, plugins=[plugin]), session_service=service
    )
    session_id = await run_turns(runner, service, "prune_plugin", 3)
    await runner.close()
    records = plugin.report.records(session_id)
    assert len(records) == len(llm.stats) > 20
    # accounting matches what the model received and what it reported back
    assert [r.tokens_after for r in records] == [s.tokens for s in llm.stats]
    assert all(r.prompt_tokens == r.tokens_after for r in records)
    assert records[-1].pruned_parts == 8  # 9 searches, the last one inside the window
    assert records[-1].tokens_after < records[-1].tokens_before * 0.5
    stored = await service.get_session(app_name="prune_plugin", user_id="u1", session_id=session_id)
    assert len(stored_search_payloads(stored.events)) == 9
    assert all(len(p) > RESULT_TOKENS * 3 for p in stored_search_payloads(stored.events))


async def test_pruner_as_llm_agent_callbacks() -> None:
    pruner = PruneStaleToolPayloads({"web_search"})
    agent, llm = research_agent(
        before_model_callback=pruner, after_model_callback=pruner.after_model_callback
    )
    service = InMemorySessionService()
    runner = Runner(app=App(name="prune_cb", root_agent=agent), session_service=service)
    session_id = await run_turns(runner, service, "prune_cb", 2)
    await runner.close()
    records = pruner.report.records()
    assert [r.tokens_after for r in records] == [s.tokens for s in llm.stats]
    assert records[-1].pruned_parts > 0 and records[-1].prompt_tokens == records[-1].tokens_after
    stored = await service.get_session(app_name="prune_cb", user_id="u1", session_id=session_id)
    rebuilt = PruningReport.from_events(stored.events)
    assert [r.tokens_after for r in rebuilt.records()] == [r.tokens_after for r in records]


async def test_stored_events_in_database_keep_raw_payloads(db_url: str) -> None:
    app_name = f"prune_db_{uuid.uuid4().hex[:8]}"
    plugin = ToolPayloadPruningPlugin({"web_search"})
    agent, llm = research_agent()
    service = DatabaseSessionService(db_url=db_url)
    runner = Runner(
        app=App(name=app_name, root_agent=agent, plugins=[plugin]), session_service=service
    )
    session_id = await run_turns(runner, service, app_name, 2)
    await runner.close()
    await service.close()
    assert plugin.report.records()[-1].pruned_parts > 0

    reopened = DatabaseSessionService(db_url=db_url)
    try:
        stored = await reopened.get_session(app_name=app_name, user_id="u1", session_id=session_id)
    finally:
        await reopened.close()
    payloads = stored_search_payloads(stored.events)
    assert len(payloads) == 6
    assert payloads == [
        bench.search_text(f"{topic} angle {k} (turn {t})", RESULT_TOKENS)
        for t, topic in ((1, bench.TOPICS[0]), (2, bench.TOPICS[1]))
        for k in (1, 2, 3)
    ]
    assert STATE_KEY not in stored.state  # temp: figures are never persisted
    rebuilt = PruningReport.from_events(stored.events)
    assert [(r.tokens_before, r.tokens_after) for r in rebuilt.records()] == [
        (r.tokens_before, r.tokens_after) for r in plugin.report.records()
    ]
    assert all(
        METADATA_KEY in (e.custom_metadata or {})
        for e in stored.events
        if e.author == "researcher" and e.content and e.content.role == "model"
    )


@pytest.mark.parametrize("pruning_first", [True, False])
async def test_works_with_context_filter_and_compaction(pruning_first: bool) -> None:
    pruning = ToolPayloadPruningPlugin({"web_search"})
    context_filter = ContextFilterPlugin(num_invocations_to_keep=2)
    plugins = [pruning, context_filter] if pruning_first else [context_filter, pruning]
    agent, llm = research_agent()
    compaction = EventsCompactionConfig(
        compaction_interval=2,
        overlap_size=1,
        summarizer=LlmEventSummarizer(llm=ReplyLlm()),
    )
    app = App(
        name="prune_mix", root_agent=agent, plugins=plugins, events_compaction_config=compaction
    )
    service = InMemorySessionService()
    runner = Runner(app=app, session_service=service)
    session_id = await run_turns(runner, service, "prune_mix", 5)
    await runner.close()
    stored = await service.get_session(app_name="prune_mix", user_id="u1", session_id=session_id)
    assert any(e.actions and e.actions.compaction for e in stored.events)
    assert len(llm.stats) == 7 + 4 * 8  # every turn ran to its answer
    assert pruning.report.records()[-1].pruned_parts > 0
    for record in pruning.report.records():
        assert record.tokens_after <= record.tokens_before


async def test_no_orphaned_function_responses_with_other_plugins() -> None:
    seen: list[list[types.Content]] = []

    def capture(callback_context, llm_request):
        seen.append(list(llm_request.contents))

    agent, _ = research_agent(before_model_callback=capture)
    compaction = EventsCompactionConfig(
        compaction_interval=2, overlap_size=0, summarizer=LlmEventSummarizer(llm=ReplyLlm())
    )
    app = App(
        name="prune_pairs",
        root_agent=agent,
        plugins=[
            ContextFilterPlugin(num_invocations_to_keep=1),
            ToolPayloadPruningPlugin({"web_search"}, keep_recent=2),
        ],
        events_compaction_config=compaction,
    )
    service = InMemorySessionService()
    runner = Runner(app=app, session_service=service)
    await run_turns(runner, service, "prune_pairs", 4)
    await runner.close()
    assert seen and any(is_tombstone(fr) for c in seen for fr in responses(c))
    for contents in seen:
        calls: set[str] = set()
        for content in contents:
            for part in content.parts or ():
                if part.function_call:
                    calls.add(part.function_call.id)
                if part.function_response:
                    assert part.function_response.id in calls
