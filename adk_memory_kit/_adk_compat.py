"""The one door to private ADK names and tables.

Every use of a private google-adk name (a leading-underscore function, attribute or constant)
or of ADK's own database tables (``sessions``, ``user_states``) lives in this module and
nowhere else in the kit. Each item is pinned by a test in ``tests/compat/test_adk_compat.py``
against the installed ADK, so an ADK release that renames or changes one fails those tests
loudly instead of degrading the kit silently.

At run time each item degrades the way its docstring says (a missing name is treated as
absent, never guessed), so an unexpected ADK keeps the kit importable.

Sections: request internals (pruning, recall, the test double), then ADK's session tables
(forget, the idle job).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from google.genai import types

if TYPE_CHECKING:
    from google.adk.models.llm_request import LlmRequest
    from google.adk.sessions.database_session_service import DatabaseSessionService
    from google.adk.sessions.sqlite_session_service import SqliteSessionService

# ----------------------------------------------------------------- request internals

DYNAMIC_INSTRUCTION_PREAMBLE: str | None
try:  # the label ADK puts before a dynamic instruction sent as a user content
    from google.adk.flows.llm_flows.instructions import (
        _INSTRUCTION_PREAMBLE as DYNAMIC_INSTRUCTION_PREAMBLE,
    )
except ImportError:  # pragma: no cover - pinned by tests/compat
    DYNAMIC_INSTRUCTION_PREAMBLE = None
"""ADK's ``_INSTRUCTION_PREAMBLE``: the first line of the dynamic instruction when ADK sends it
as a user content (an agent with ``static_instruction``); ``None`` if this ADK has none."""


def is_labelled_instruction_text(text: str | None) -> bool:
    """Whether ``text`` is ADK's labelled dynamic instruction (starts with its preamble)."""
    return (
        DYNAMIC_INSTRUCTION_PREAMBLE is not None
        and isinstance(text, str)
        and text.startswith(DYNAMIC_INSTRUCTION_PREAMBLE)
    )


def label_dynamic_instruction(instruction: str) -> str:
    """``instruction`` labelled the way ADK labels it (ADK's ``_label_dynamic_instruction``).

    For tests and replays that build requests by hand; raises ``RuntimeError`` when this ADK
    has no such label.
    """
    try:
        from google.adk.flows.llm_flows.prompt._instructions import _label_dynamic_instruction
    except ImportError as exc:  # pragma: no cover - pinned by tests/compat
        raise RuntimeError("this ADK does not label dynamic instructions") from exc
    return _label_dynamic_instruction(instruction)


def static_instruction_prefix_end(llm_request: LlmRequest) -> int | None:
    """How many leading contents ADK keeps as the static-instruction prefix, else ``None``.

    ADK (``LlmRequest._static_instruction_prefix_end_index``) puts a non-text
    ``static_instruction`` and the dynamic instruction first in the request, as a prefix that
    stays stable across turns. ``None`` when the request has no such prefix.
    """
    end = getattr(llm_request, "_static_instruction_prefix_end_index", None)
    return end if isinstance(end, int) and not isinstance(end, bool) else None


def insert_transient_user_content(
    llm_request: LlmRequest, contents: Sequence[types.Content]
) -> None:
    """Insert request-scoped user contents at the current-turn boundary, as ADK's preload does.

    Uses ADK's ``LlmRequest._insert_transient_user_content`` (which also respects the
    static-instruction prefix). If this ADK has none, the contents go before the trailing
    user contents of the request, after a function response.
    """
    insert = getattr(llm_request, "_insert_transient_user_content", None)
    if callable(insert):
        insert(list(contents))
        return
    index = len(llm_request.contents)  # pragma: no cover - pinned by tests/compat
    while index > 0:  # pragma: no cover
        content = llm_request.contents[index - 1]
        if content.role != "user" or any(p.function_response for p in content.parts or []):
            break
        index -= 1
    llm_request.contents[index:index] = list(contents)  # pragma: no cover


# ----------------------------------------------------------------- ADK's session tables

USER_STATES_TABLE = "user_states"
"""ADK's table of ``user:`` state (``DatabaseSessionService`` and ``SqliteSessionService``):
one row per (app_name, user_id)."""

SESSIONS_TABLE = "sessions"
"""ADK's table of sessions (``DatabaseSessionService``): ``app_name``, ``user_id``, ``id``,
``update_time``."""


async def delete_database_user_state(
    service: DatabaseSessionService, app_name: str, user_id: str
) -> None:
    """Delete the ``user_states`` row of one user on a ``DatabaseSessionService``.

    ADK has no public API to delete user state; this runs one keyed DELETE on the service's
    own engine (``db_engine``), after ``prepare_tables`` so the table exists.
    """
    from sqlalchemy import text

    await service.prepare_tables()
    async with service.db_engine.begin() as conn:
        await conn.execute(
            text(f"DELETE FROM {USER_STATES_TABLE} WHERE app_name = :app AND user_id = :user"),
            {"app": app_name, "user": user_id},
        )


def can_open_sqlite(service: SqliteSessionService) -> bool:
    """Whether this ADK's ``SqliteSessionService`` has ``_get_db_connection`` (ADK 2.x)."""
    return callable(getattr(service, "_get_db_connection", None))


@asynccontextmanager
async def sqlite_connection(service: SqliteSessionService) -> AsyncIterator[Any]:
    """The service's own aiosqlite connection (ADK's private ``_get_db_connection``)."""
    async with service._get_db_connection() as db:  # noqa: SLF001 - the one door
        yield db


async def delete_sqlite_user_state(
    service: SqliteSessionService, app_name: str, user_id: str
) -> None:
    """Delete the ``user_states`` row of one user on a ``SqliteSessionService``."""
    async with sqlite_connection(service) as db:
        await db.execute(
            f"DELETE FROM {USER_STATES_TABLE} WHERE app_name = ? AND user_id = ?",
            (app_name, user_id),
        )
        await db.commit()


# --- idle job: listing ADK's sessions table (section owned by the data layer) ---


def idle_sessions_source(cutoff: datetime) -> tuple[str, dict[str, Any]]:
    """``(select_sql, params)``: the sessions of the app bound to ``:app`` in a
    ``DatabaseSessionService``'s ``sessions`` table last updated at or before ``cutoff``, as
    rows ``(user_id, session_id, update_time)``.

    ADK stores ``update_time`` as a naive UTC timestamp; the select returns it as an aware
    ``timestamptz`` equal (to the microsecond) to the session's ``last_update_time``, so the
    idle job can compare it with its watermarks. The statement runs in the caller's query
    (a CTE); the table must exist (call the service's ``prepare_tables`` first).
    """
    naive_utc = cutoff.astimezone(timezone.utc).replace(tzinfo=None)
    select = (
        "SELECT s.user_id, s.id AS session_id, (s.update_time AT TIME ZONE 'UTC') AS update_time"
        f" FROM {SESSIONS_TABLE} s WHERE s.app_name = :app AND s.update_time <= :sessions_cutoff"
    )
    return select, {"sessions_cutoff": naive_utc}


def context_memory_service(context: Any) -> Any:
    """The memory service of the run a ``ToolContext``/``Context`` belongs to (``None`` when the
    Runner has none). ADK exposes ``search_memory``/``add_memory`` on the context but not the
    service itself (needed to delete or correct one memory): read the invocation context."""
    invocation = getattr(context, "_invocation_context", None)
    return getattr(invocation, "memory_service", None)


def context_plugins(context: Any) -> list[Any]:
    """The Runner's plugins for the run a callback ``Context`` belongs to (``[]`` when none).

    ADK gives callbacks no public handle on the plugin manager; the routing plugin needs it
    to report its own model call (the extraction) to plugins that log model calls.
    """
    invocation = getattr(context, "_invocation_context", None)
    manager = getattr(invocation, "plugin_manager", None)
    return list(getattr(manager, "plugins", None) or [])
