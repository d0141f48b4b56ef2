"""MemoryCheckpointPlugin and end_session through a real Runner, and the Monday/Thursday story."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import pytest
from google.adk.agents.llm_agent import LlmAgent
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import App
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import DatabaseSessionService
from google.adk.sessions.base_session_service import GetSessionConfig
from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.load_memory_tool import LoadMemoryTool
from google.adk.tools.tool_context import ToolContext
from google.genai import types

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.lifecycle import (
    CHECKPOINT_STATE_KEY,
    IdleIngestJob,
    MemoryCheckpointConfig,
    MemoryCheckpointPlugin,
    end_session_tool,
)
from adk_memory_kit.testing import ScriptedLlm

pytestmark = pytest.mark.slow  # Postgres- or Runner-heavy: `pytest -m 'not slow'` skips it


def text_reply(text: str) -> LlmResponse:
    return LlmResponse(content=types.Content(role="model", parts=[types.Part(text=text)]))


def call(name: str, **args) -> LlmResponse:
    part = types.Part(function_call=types.FunctionCall(name=name, args=args))
    return LlmResponse(content=types.Content(role="model", parts=[part]))


def last_part(req: LlmRequest) -> types.Part:
    return req.contents[-1].parts[-1]


def new_app() -> str:
    return f"lc_{uuid.uuid4().hex[:10]}"


async def say(runner: Runner, user: str, session_id: str, text: str, **kw) -> list:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    return [
        e
        async for e in runner.run_async(
            user_id=user, session_id=session_id, new_message=message, **kw
        )
    ]


async def count(memory, app: str, user: str) -> int:
    return sum((await memory.count_memories(app_name=app, user_id=user)).values())


async def memory_texts(memory, app: str, user: str, query: str) -> list[str]:
    found = await memory.search_memory(app_name=app, user_id=user, query=query, limit=50)
    return [m.content.parts[0].text for m in found.memories]


async def reloaded_record(db_url: str, app: str, session_id: str) -> dict:
    """``adk_memory_kit:checkpoint:last`` as a fresh DatabaseSessionService reads it back."""
    fresh = DatabaseSessionService(db_url=db_url)
    try:
        stored = await fresh.get_session(app_name=app, user_id="u1", session_id=session_id)
    finally:
        await fresh.close()
    record = stored.state[CHECKPOINT_STATE_KEY]
    assert set(record) == {"time", "trigger", "rows_stored", "policy", "session_id"}
    when = datetime.fromisoformat(record["time"])
    assert when.utcoffset() == timedelta(0)
    assert abs((datetime.now(timezone.utc) - when).total_seconds()) < 300
    return record


def echo_agent() -> LlmAgent:
    def script(req: LlmRequest) -> LlmResponse:
        return text_reply(f"echo: {last_part(req).text}")

    return LlmAgent(name="echo", model=ScriptedLlm(model="scripted", responder=script))


@pytest.mark.parametrize("truncated", [False, True], ids=["full-session", "truncated-session"])
async def test_checkpoint_every_second_invocation_through_a_runner(
    sessions, memory, db_url, truncated
):
    app = new_app()
    plugin = MemoryCheckpointPlugin(every_n_invocations=2)
    runner = Runner(
        app=App(name=app, root_agent=echo_agent(), plugins=[plugin]),
        session_service=sessions,
        memory_service=memory,
    )
    s = await sessions.create_session(app_name=app, user_id="u1")
    extra = (
        {"run_config": RunConfig(get_session_config=GetSessionConfig(num_recent_events=2))}
        if truncated
        else {}
    )
    counts = []
    for turn in range(1, 6):
        await say(runner, "u1", s.id, f"turn {turn}", **extra)
        counts.append(await count(memory, app, "u1"))
    # each turn adds a user and a model text event; ingested after turns 2 and 4 only
    assert counts == [0, 4, 4, 8, 8]
    # what the plugin reports is what memory holds for the session, not the event count
    assert plugin.last_result is not None and plugin.last_result.rows_stored == 8
    assert "echo: turn 4" in await memory_texts(memory, app, "u1", "echo turn 4")
    record = await reloaded_record(db_url, app, s.id)
    assert record["trigger"] == "checkpoint" and record["rows_stored"] == 8
    assert record["policy"] == "full_transcript" and record["session_id"] == s.id


async def test_a_failing_checkpoint_does_not_fail_the_turn(sessions, memory, embedder, db_url):
    class BrokenMemory(PgVectorMemoryService):
        async def add_session_to_memory(self, session) -> None:
            raise RuntimeError("memory is down")

    app = new_app()
    broken = BrokenMemory(db_url, embedder=embedder)
    runner = Runner(
        app=App(name=app, root_agent=echo_agent(), plugins=[MemoryCheckpointPlugin(1)]),
        session_service=sessions,
        memory_service=broken,
    )
    s = await sessions.create_session(app_name=app, user_id="u1")
    events = await say(runner, "u1", s.id, "hello")
    assert events[-1].content.parts[0].text == "echo: hello"
    await broken.close()


def goodbye_agent() -> LlmAgent:
    def script(req: LlmRequest) -> LlmResponse:
        part = last_part(req)
        if part.function_response is not None:
            return text_reply("Goodbye, see you soon!")
        if "bye" in (part.text or "").lower():
            return call("end_session")
        return text_reply(f"echo: {part.text}")

    return LlmAgent(
        name="closer",
        model=ScriptedLlm(model="scripted", responder=script),
        tools=[end_session_tool()],
    )


async def test_end_session_tool_closes_the_session_without_the_plugin(sessions, memory, db_url):
    app = new_app()
    runner = Runner(
        app=App(name=app, root_agent=goodbye_agent()),
        session_service=sessions,
        memory_service=memory,
    )
    s = await sessions.create_session(app_name=app, user_id="u1")
    await say(runner, "u1", s.id, "my bike is the red Cannondale")
    assert await count(memory, app, "u1") == 0
    events = await say(runner, "u1", s.id, "ok bye")
    responses = [
        p.function_response.response
        for e in events
        for p in e.content.parts or []
        if p.function_response
    ]
    assert responses and responses[0]["status"] == "session_closed"
    found = await memory_texts(memory, app, "u1", "red Cannondale bike")
    assert "my bike is the red Cannondale" in found and "ok bye" in found
    # the tool reports the rows stored (3 text events so far), not the session's events
    assert responses[0]["rows_stored"] == 3 == await count(memory, app, "u1")
    assert "events_saved" not in responses[0]
    record = await reloaded_record(db_url, app, s.id)
    assert record["trigger"] == "end_session" and record["rows_stored"] == 3


async def test_end_session_with_the_plugin_also_keeps_the_farewell(sessions, memory, db_url):
    app = new_app()
    runner = Runner(
        app=App(
            name=app,
            root_agent=goodbye_agent(),
            plugins=[MemoryCheckpointPlugin(every_n_invocations=None)],
        ),
        session_service=sessions,
        memory_service=memory,
    )
    s = await sessions.create_session(app_name=app, user_id="u1")
    await say(runner, "u1", s.id, "first turn")
    assert await count(memory, app, "u1") == 0
    await say(runner, "u1", s.id, "bye now")
    found = await memory_texts(memory, app, "u1", "goodbye see you soon")
    assert "Goodbye, see you soon!" in found
    # the plugin's final checkpoint (the farewell included) is what the state says last
    record = await reloaded_record(db_url, app, s.id)
    assert record["trigger"] == "end_session" and record["rows_stored"] == 4
    assert record["rows_stored"] == await count(memory, app, "u1")
    # a later turn is not checkpointed: the end flag lived in temp: state only
    await say(runner, "u1", s.id, "one more")
    assert "echo: one more" not in await memory_texts(memory, app, "u1", "echo one more")


def test_checkpoint_plugin_validates_n():
    with pytest.raises(InvalidInputError):
        MemoryCheckpointPlugin(every_n_invocations=0)
    with pytest.raises(InvalidInputError):
        MemoryCheckpointPlugin(max_tracked_sessions=0)


def test_checkpoint_options_are_one_config_model():
    config = MemoryCheckpointConfig(every_n_invocations=2, attempts=4, backoff=0)
    plugin = MemoryCheckpointPlugin(config=config)
    assert plugin.config is config and (plugin.every_n_invocations, plugin.attempts) == (2, 4)
    assert MemoryCheckpointPlugin(2, attempts=4, backoff=0).config == config
    assert MemoryCheckpointPlugin(None).every_n_invocations is None
    assert MemoryCheckpointPlugin().config == MemoryCheckpointConfig()
    for bad, field in [
        ({"every_n_invocations": 1.5}, "every_n_invocations"),
        ({"every_n_invocations": True}, "every_n_invocations"),
        ({"max_tracked_sessions": -1}, "max_tracked_sessions"),
        ({"attempts": 0}, "attempts"),  # checked here, not at the first checkpoint
        ({"backoff": float("inf")}, "backoff"),
    ]:
        with pytest.raises(InvalidInputError, match=rf"MemoryCheckpointConfig\.{field}\b"):
            MemoryCheckpointPlugin(**bad)
    with pytest.raises(InvalidInputError, match="not both"):
        MemoryCheckpointPlugin(2, config=config)
    with pytest.raises(InvalidInputError, match="config must be a MemoryCheckpointConfig"):
        MemoryCheckpointPlugin(config={"attempts": 2})


async def test_truncated_session_counts_stay_bounded():
    """In truncated-session mode the in-process count is an LRU of sessions."""
    plugin = MemoryCheckpointPlugin(every_n_invocations=2, max_tracked_sessions=3)
    truncated = RunConfig(get_session_config=GetSessionConfig(num_recent_events=2))

    def ctx(session_id: str) -> SimpleNamespace:
        session = SimpleNamespace(app_name="app", user_id="u1", id=session_id, events=[], state={})
        return SimpleNamespace(session=session, run_config=truncated, memory_service=None)

    async def invoke(session_id: str) -> None:
        await plugin.after_run_callback(invocation_context=ctx(session_id))

    for i in range(1000):
        await invoke(f"s{i}")
        assert plugin.tracked_sessions <= 3
    # least recently used goes first: a session in use keeps its count
    for session_id in ("a", "b", "c", "a", "d"):
        await invoke(session_id)
    assert [key[2] for key in plugin._seen] == ["c", "a", "d"]
    assert plugin._seen[("app", "u1", "a")] == 2


# ----------------------------------------------------------------- Monday / Thursday
def remember_diet(diet: str, tool_context: ToolContext) -> dict:
    """Store the user's lasting diet preference."""
    tool_context.state["user:diet"] = diet.lower()
    return {"status": "saved", "diet": diet}


def get_profile(tool_context: ToolContext) -> dict:
    """Read the user's profile."""
    return {"diet": tool_context.state.get("user:diet", "unknown")}


def lunch_agent() -> LlmAgent:
    def script(req: LlmRequest) -> LlmResponse:
        part = last_part(req)
        if part.function_response is not None:
            name = part.function_response.name
            if name == "remember_diet":
                return text_reply("Noted, you are vegetarian.")
            if name == "get_profile":
                return call("load_memory", query="delivery address office")
            result = part.function_response.response
            result = result.get("result", result)  # {"result": LoadMemoryResponse}
            if hasattr(result, "model_dump"):
                result = result.model_dump()
            memories = result.get("memories", [])
            texts = [p.get("text") or "" for m in memories for p in m["content"]["parts"]]
            hit = next((t for t in texts if "deliver" in t), "nowhere known")
            return text_reply(f"Shall I deliver as before? You said: {hit}")
        text = part.text or ""
        if "vegetarian" in text:
            return call("remember_diet", diet="vegetarian")
        if "lunch" in text:
            return call("get_profile")
        return text_reply("ok")

    return LlmAgent(
        name="lunch_assistant",
        model=ScriptedLlm(model="scripted", responder=script),
        instruction="Help the user order lunch.",
        tools=[FunctionTool(remember_diet), FunctionTool(get_profile), LoadMemoryTool()],
    )


async def test_monday_preference_and_instruction_are_known_on_thursday(sessions, memory):
    app, user = new_app(), "user-17"
    runner = Runner(
        app=App(name=app, root_agent=lunch_agent()),
        session_service=sessions,
        memory_service=memory,
    )
    monday = await sessions.create_session(app_name=app, user_id=user)
    said = "I'm vegetarian, and please always deliver to the Pune office reception."
    await say(runner, user, monday.id, said)

    # Without the idle job nothing reaches long-term memory; the user: state already works.
    assert await count(memory, app, user) == 0
    thursday_clock = datetime.now(timezone.utc) + timedelta(days=3)
    job = IdleIngestJob(
        sessions,
        memory,
        app_name=app,
        idle_after=timedelta(minutes=30),
        clock=lambda: thursday_clock,
    )
    assert [k.session_id for k in (await job.run_once()).ingested] == [monday.id]

    thursday = await sessions.create_session(app_name=app, user_id=user)
    assert thursday.state.get("user:diet") == "vegetarian"
    events = await say(runner, user, thursday.id, "Can you order me lunch?")
    profile = [
        p.function_response.response
        for e in events
        for p in e.content.parts or []
        if p.function_response and p.function_response.name == "get_profile"
    ]
    assert profile == [{"diet": "vegetarian"}]
    assert "Pune office reception" in events[-1].content.parts[0].text
    top = await memory_texts(memory, app, user, "delivery address office")
    assert top[0] == said
    # nothing leaks to another user of the same app
    assert await memory_texts(memory, app, "someone-else", "delivery address office") == []
