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
from google.adk.tools.base_tool import BaseTool
from google.genai import types

from adk_memory_kit._adk_compat import (
    DYNAMIC_INSTRUCTION_PREAMBLE,
    insert_transient_user_content,
)
from adk_memory_kit.pruning import (
    METADATA_KEY,
    STATE_KEY,
    PruneStaleToolPayloads,
    PruningReport,
    ToolPayloadPruningPlugin,
)
from adk_memory_kit.testing import ScriptedLlm
from tests.support.pruning import dump, is_tombstone, load_benchmark, responses

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it

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


def assert_paired(contents: list[types.Content]) -> None:
    """Every function response in a request follows its function call."""
    calls: set[str] = set()
    for content in contents:
        for part in content.parts or ():
            if part.function_call:
                calls.add(part.function_call.id)
            if part.function_response:
                assert part.function_response.id in calls


@pytest.mark.parametrize("keep_invocations", [2, 1])
@pytest.mark.parametrize("pruning_first", [True, False])
async def test_works_with_context_filter_and_compaction(
    pruning_first: bool, keep_invocations: int
) -> None:
    pruning = ToolPayloadPruningPlugin({"web_search"})
    context_filter = ContextFilterPlugin(num_invocations_to_keep=keep_invocations)
    plugins = [pruning, context_filter] if pruning_first else [context_filter, pruning]
    seen: list[list[types.Content]] = []

    def capture(callback_context, llm_request):  # an agent callback: runs after the plugins
        seen.append(list(llm_request.contents))

    agent, llm = research_agent(before_model_callback=capture)
    compaction = EventsCompactionConfig(
        compaction_interval=2,
        overlap_size=1,
        summarizer=LlmEventSummarizer(llm=ScriptedLlm(responder=lambda _: "summary")),
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
    records = pruning.report.records()
    assert len(records) == len(seen) == len(llm.stats)
    assert records[-1].pruned_parts > 0
    filtered = False
    for record, contents, stat in zip(records, seen, llm.stats, strict=True):
        assert_paired(contents)
        # eager pruning: every search result outside the window is a tombstone, none inside
        window = len(contents) - 4
        for index, content in enumerate(contents):
            for fr in responses([content]):
                if fr.name == "web_search":
                    assert is_tombstone(fr) == (index < window), (record.call, index)
        tombstones = sum(is_tombstone(fr) for fr in responses(contents))
        assert (record.tokens_before > record.tokens_after) == (record.pruned_parts > 0)
        if pruning_first:  # the filter runs on the pruned request and may drop more
            assert tombstones <= record.pruned_parts and stat.tokens <= record.tokens_after
            filtered = filtered or record.contents > len(contents)
        else:  # the model saw exactly what the pruner sent
            assert (tombstones, stat.tokens, len(contents)) == (
                record.pruned_parts,
                record.tokens_after,
                record.contents,
            )
    if pruning_first and keep_invocations == 1:  # the filter did drop pruned contents
        assert filtered


async def test_no_orphaned_function_responses_with_other_plugins() -> None:
    seen: list[list[types.Content]] = []

    def capture(callback_context, llm_request):
        seen.append(list(llm_request.contents))

    agent, _ = research_agent(before_model_callback=capture)
    compaction = EventsCompactionConfig(
        compaction_interval=2,
        overlap_size=0,
        summarizer=LlmEventSummarizer(llm=ScriptedLlm(responder=lambda _: "summary")),
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
        assert_paired(contents)


TRANSIENT_PREFIXES = ("recall:", "Referenced inline data", DYNAMIC_INSTRUCTION_PREAMBLE)


def is_transient(content: types.Content) -> bool:
    text = content.parts[0].text if content.parts else None
    return content.role == "user" and (text or "").startswith(TRANSIENT_PREFIXES)


class TransientBlindLlm(bench.ResearchLlm):
    """The benchmark's research model, deciding from the history part of each request."""

    async def generate_content_async(self, llm_request, stream: bool = False):
        history = [c for c in llm_request.contents if not is_transient(c)]
        visible = llm_request.model_copy(update={"contents": history})
        async for reply in super().generate_content_async(visible, stream):
            yield reply


class RecallBlock(BaseTool):
    """Inserts a recall block of varying size into each request, as ADK's preload does."""

    def __init__(self) -> None:
        super().__init__(name="recall_block", description="recall_block")
        self.calls = 0

    async def process_llm_request(self, *, tool_context, llm_request) -> None:
        self.calls += 1
        text = "recall: " + "remembered detail " * (20 + (self.calls * 53) % 120)
        insert_transient_user_content(
            llm_request, [types.Content(role="user", parts=[types.Part(text=text)])]
        )


def growing_instruction(context) -> str:
    """An instruction that grows with the session state (like ``{wm_view?}``)."""
    notes = context.state.get("findings", [])
    lines = [f"- {n['topic']}: {n['summary']} ({n['source']})" for n in notes]
    return bench.INSTRUCTION + "\nWorking notes:\n" + "\n".join(lines)


async def threshold_run(setup: str) -> tuple[list[list[str]], list[str], PruningReport]:
    """Per request the model saw: tombstoned search ids, and the history as JSON."""
    pruned: list[list[str]] = []
    history: list[str] = []

    def capture(callback_context, llm_request):
        contents = [c for c in llm_request.contents if not is_transient(c)]
        assert len(contents) < len(llm_request.contents) or setup == "plain"
        pruned.append([fr.id for fr in responses(contents) if is_tombstone(fr)])
        history.append(dump(contents))

    tools = bench.make_tools(RESULT_TOKENS)
    options: dict = {"instruction": growing_instruction}
    if setup == "plain":
        options = {"instruction": bench.INSTRUCTION}
    else:
        tools.append(RecallBlock())
    if setup == "static_text":  # the dynamic instruction becomes a trailing user content
        options["static_instruction"] = "Be brief."
    if setup == "static_media":  # [static media, dynamic instruction] lead every request
        media = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG"))
        options["static_instruction"] = types.Content(parts=[types.Part(text="Logo:"), media])
    agent = LlmAgent(
        name="researcher",
        model=TransientBlindLlm(searches_per_turn=3),
        tools=tools,
        before_model_callback=capture,
        **options,
    )
    plugin = ToolPayloadPruningPlugin({"web_search"}, threshold_tokens=3000)
    service = InMemorySessionService()
    runner = Runner(
        app=App(name="prune_grow", root_agent=agent, plugins=[plugin]), session_service=service
    )
    await run_turns(runner, service, "prune_grow", 6)
    await runner.close()
    return pruned, history, plugin.report


@pytest.mark.parametrize("setup", ["system", "static_text", "static_media"])
async def test_threshold_mode_ignores_growing_instruction_and_inserted_content(
    setup: str,
) -> None:
    baseline, _, plain = await threshold_run("plain")
    pruned, history, report = await threshold_run(setup)
    records = report.records()
    assert [r.threshold_crossed for r in records] == [r.threshold_crossed for r in plain.records()]
    overheads = [r.tokens_before - len(h) // 4 for r, h in zip(records, history, strict=True)]
    assert overheads[-1] > overheads[0] + 100  # the request around the history did grow
    assert pruned == baseline  # the same payloads are pruned at the same calls
    crossed = [i for i, r in enumerate(records) if r.threshold_crossed]
    assert len(crossed) >= 2
    for previous, current in zip(pruned, pruned[1:], strict=False):
        assert set(previous) <= set(current)  # a tombstoned payload never comes back raw
    changed = [
        i
        for i in range(1, len(history))
        if not history[i].startswith(history[i - 1][:-1])  # JSON list: drop the closing "]"
    ]
    assert changed and set(changed) <= set(crossed)  # history is rewritten only at a crossing
