"""Pins every private ADK name and table the kit relies on (adk_memory_kit/_adk_compat.py).

One test per item, against the installed ADK. When an ADK upgrade renames or changes one of
them, the matching test fails here, naming the item, instead of the kit degrading silently.
"""

from __future__ import annotations

import uuid

import pytest
from google.adk.agents import LlmAgent
from google.adk.memory.in_memory_memory_service import InMemoryMemoryService
from google.adk.models.llm_request import LlmRequest
from google.adk.runners import Runner
from google.adk.sessions import DatabaseSessionService, InMemorySessionService
from google.adk.sessions.schemas.v1 import StorageSession, StorageUserState
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types

from adk_memory_kit import _adk_compat as compat
from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.contracts import UserMemoryEraser
from adk_memory_kit.pruning.core import is_dynamic_instruction
from adk_memory_kit.testing import ScriptedLlm, conversation, last_user_text


def text(role: str, value: str) -> types.Content:
    return types.Content(role=role, parts=[types.Part(text=value)])


async def one_request(**agent_options) -> LlmRequest:
    """The request ADK's real flow sends to the model for one user message."""
    seen: list[LlmRequest] = []

    def capture(callback_context, llm_request):
        seen.append(llm_request)

    model = ScriptedLlm(turns=["fine"])
    agent = LlmAgent(name="a", model=model, before_model_callback=capture, **agent_options)
    sessions = InMemorySessionService()
    runner = Runner(app_name="compat", agent=agent, session_service=sessions)
    session = await sessions.create_session(app_name="compat", user_id="u", state={"x": "1"})
    async for _ in runner.run_async(
        user_id="u", session_id=session.id, new_message=text("user", "hello there")
    ):
        pass
    assert len(seen) == 1
    return seen[0]


# ------------------------------------------------------------ request internals


async def test_dynamic_instruction_preamble_labels_adks_dynamic_instruction():
    """_INSTRUCTION_PREAMBLE: ADK starts the dynamic instruction's user content with it."""
    assert compat.DYNAMIC_INSTRUCTION_PREAMBLE, "ADK's _INSTRUCTION_PREAMBLE is gone"
    request = await one_request(static_instruction="Be brief.", instruction="state x={x}")
    labelled = [c for c in request.contents if is_dynamic_instruction(c)]
    assert len(labelled) == 1, "ADK no longer labels the dynamic instruction with the preamble"
    assert "state x=1" in labelled[0].parts[0].text
    assert compat.label_dynamic_instruction("v").startswith(compat.DYNAMIC_INSTRUCTION_PREAMBLE)


async def test_static_instruction_prefix_end_counts_adks_stable_prefix():
    """_static_instruction_prefix_end_index: [static media, dynamic instruction] lead."""
    media = types.Part(inline_data=types.Blob(mime_type="image/png", data=b"\x89PNG"))
    request = await one_request(
        static_instruction=types.Content(parts=[types.Part(text="Logo:"), media]),
        instruction="state x={x}",
    )
    end = compat.static_instruction_prefix_end(request)
    assert end == 2, f"ADK's static prefix is now {end} contents"
    assert is_dynamic_instruction(request.contents[1])
    assert last_user_text(request) == "hello there"
    assert compat.static_instruction_prefix_end(LlmRequest(contents=[text("user", "x")])) is None


def test_insert_transient_user_content_goes_to_the_current_turn_boundary():
    """_insert_transient_user_content: before the trailing user batch, after a tool reply."""
    assert callable(getattr(LlmRequest, "_insert_transient_user_content", None))
    block = text("user", "<RECALLED_MEMORY>x")
    request = LlmRequest(contents=[text("user", "a"), text("model", "b"), text("user", "c")])
    compat.insert_transient_user_content(request, [block])
    assert [c.parts[0].text for c in request.contents] == ["a", "b", block.parts[0].text, "c"]

    reply = types.Content(
        role="user",
        parts=[types.Part(function_response=types.FunctionResponse(name="t", response={}))],
    )
    request = LlmRequest(contents=[text("user", "a"), text("model", "b"), reply])
    compat.insert_transient_user_content(request, [block])
    assert request.contents[-1] is block


async def test_the_test_double_sees_past_adks_labelled_instruction():
    """The preamble (formerly copied into scripted.py) hides ADK's injected instruction."""
    request = await one_request(static_instruction="Be brief.", instruction="state x={x}")
    assert last_user_text(request) == "hello there"
    assert all(not is_dynamic_instruction(c) for c in conversation(request))


# ------------------------------------------------------------ ADK's session tables


def test_adk_table_names():
    """ADK's ORM still names its tables ``sessions`` and ``user_states``."""
    assert StorageSession.__tablename__ == compat.SESSIONS_TABLE
    assert StorageUserState.__tablename__ == compat.USER_STATES_TABLE
    assert {"app_name", "user_id", "id", "update_time"} <= set(
        StorageSession.__table__.columns.keys()
    )
    assert {"app_name", "user_id", "state"} <= set(StorageUserState.__table__.columns.keys())


@pytest.mark.slow
async def test_delete_database_user_state(db_url):
    """``user_states`` on DatabaseSessionService: one keyed DELETE removes the user's state."""
    service = DatabaseSessionService(db_url=db_url)
    app, user = f"compat_{uuid.uuid4().hex[:8]}", "alice"
    try:
        await service.create_session(app_name=app, user_id=user, state={"user:seat": "aisle"})
        await service.create_session(app_name=app, user_id="bob", state={"user:seat": "window"})
        assert await service.get_user_state(app_name=app, user_id=user) == {"seat": "aisle"}
        await compat.delete_database_user_state(service, app, user)
        assert await service.get_user_state(app_name=app, user_id=user) == {}
        assert await service.get_user_state(app_name=app, user_id="bob") == {"seat": "window"}
    finally:
        await service.close()


async def test_sqlite_connection_deletes_user_state(tmp_path):
    """``_get_db_connection`` and ``user_states`` on SqliteSessionService."""
    service = SqliteSessionService(db_path=str(tmp_path / "sessions.db"))
    assert compat.can_open_sqlite(service), "SqliteSessionService._get_db_connection is gone"
    await service.create_session(app_name="a", user_id="alice", state={"user:seat": "aisle"})
    await service.create_session(app_name="a", user_id="bob", state={"user:seat": "window"})
    await compat.delete_sqlite_user_state(service, "a", "alice")
    assert await service.get_user_state(app_name="a", user_id="alice") == {}
    assert await service.get_user_state(app_name="a", user_id="bob") == {"seat": "window"}


def test_user_memory_eraser_is_a_contract_not_a_name_lookup():
    """forget_user checks the UserMemoryEraser protocol: the kit's service has it, ADK's not."""
    assert issubclass(PgVectorMemoryService, UserMemoryEraser)
    assert not isinstance(InMemoryMemoryService(), UserMemoryEraser)


async def test_context_memory_service_is_the_runners_memory_service():
    memory = InMemoryMemoryService()
    seen: list = []

    def probe(tool_context) -> dict:
        """Record the memory service the tool sees."""
        seen.append(compat.context_memory_service(tool_context))
        return {"ok": True}

    from adk_memory_kit.testing import call

    agent = LlmAgent(name="a", model=ScriptedLlm(turns=[[call("probe")], "done"]), tools=[probe])
    sessions = InMemorySessionService()
    runner = Runner(agent=agent, app_name="app", session_service=sessions, memory_service=memory)
    session = await sessions.create_session(app_name="app", user_id="u")
    async for _ in runner.run_async(
        user_id="u", session_id=session.id, new_message=text("user", "hi")
    ):
        pass
    assert seen == [memory]
