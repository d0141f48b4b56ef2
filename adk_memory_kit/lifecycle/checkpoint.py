"""MemoryCheckpointPlugin and the ``end_session`` tool.

The plugin ingests the session after every N-th invocation, which bounds what a crash can
lose to fewer than N turns; each checkpoint is an upsert, so repeated checkpoints of one
session leave one copy. The tool is the explicit end: the model calls it when the user says
goodbye or the task is done, and the session is ingested at once. With the plugin installed,
the tool also asks for a final checkpoint after the invocation, so the closing reply is
remembered too.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Literal

from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions
from google.adk.plugins.base_plugin import BasePlugin
from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.tool_context import ToolContext
from typing_extensions import override

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.db_errors import contained_doors, describe
from adk_memory_kit.core.tool_errors import tool_errors
from adk_memory_kit.lifecycle.closer import CloseResult, SessionCloser
from adk_memory_kit.lifecycle.config import MemoryCheckpointConfig, SessionCloserConfig

if TYPE_CHECKING:
    from google.adk.agents.invocation_context import InvocationContext

logger = logging.getLogger(__name__)

# temp: state lives for one invocation only and is never persisted.
END_SESSION_STATE_KEY = "temp:adk_memory_kit_end_session"
CHECKPOINT_STATE_KEY = "adk_memory_kit:checkpoint:last"
"""Session state key saying what the last checkpoint or ``end_session`` stored (no user text)."""


def checkpoint_record(
    result: CloseResult, trigger: Literal["checkpoint", "end_session"], policy: str | None
) -> dict[str, Any]:
    """The ``adk_memory_kit:checkpoint:last`` value: ``{time, trigger, rows_stored, policy,
    session_id}``; ``time`` is ISO-8601 UTC, ``policy`` the memory service's write policy
    (``None`` when it has none)."""
    return {
        "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "trigger": trigger,
        "rows_stored": result.rows_stored,
        "policy": policy,
        "session_id": result.session_id,
    }


def _policy_name(memory_service: object) -> str | None:
    if isinstance(memory_service, PgVectorMemoryService):
        return memory_service.config.write_policy.value
    return None


_UNSET: Any = object()


@contained_doors
class MemoryCheckpointPlugin(BasePlugin):
    """Ingest the session into memory after every ``every_n_invocations``-th invocation.

    An invocation is one ``Runner.run_async`` call (one user turn). The count is the number
    of distinct invocation ids among the session's events, so it survives restarts; if the
    runner loads a truncated session (``RunConfig.get_session_config``) the plugin counts
    the invocations it saw in this process instead, for at most ``max_tracked_sessions``
    sessions (least recently used first out; an evicted session that comes back starts
    counting again, so its next checkpoint can come up to N-1 invocations later). Errors
    are logged, never raised: a failed checkpoint must not fail the user's turn (the next
    checkpoint, the closer or the idle job ingests the session later).

    Options: a :class:`MemoryCheckpointConfig` (``config=``: ``every_n_invocations``,
    ``attempts``, ``backoff``, ``max_tracked_sessions``), or its fields by keyword
    (``every_n_invocations`` may also come first by position), not both. ``name``: the
    plugin's name in the runner.
    """

    def __init__(
        self,
        every_n_invocations: int | None = _UNSET,
        *,
        name: str = "memory_checkpoint",
        config: MemoryCheckpointConfig | None = None,
        **options: Any,
    ) -> None:
        super().__init__(name=name)
        if every_n_invocations is not _UNSET:
            options["every_n_invocations"] = every_n_invocations
        config = MemoryCheckpointConfig.given(config, options, options_label="the plugin's options")
        self.config = config
        self.every_n_invocations = config.every_n_invocations
        self.max_tracked_sessions = config.max_tracked_sessions
        self.attempts = config.attempts
        self.backoff = config.backoff
        self._closer_config = SessionCloserConfig(attempts=config.attempts, backoff=config.backoff)
        self.last_result: CloseResult | None = None
        self._seen: OrderedDict[tuple[str, str, str], int] = OrderedDict()
        self._warned_no_memory = False

    def _invocation_number(self, ctx: InvocationContext) -> int:
        session = ctx.session
        config = ctx.run_config.get_session_config if ctx.run_config else None
        truncated = config is not None and (
            config.num_recent_events is not None or config.after_timestamp is not None
        )
        if not truncated:
            return len({e.invocation_id for e in session.events if e.invocation_id})
        key = (session.app_name, session.user_id, session.id)
        number = self._seen.pop(key, 0) + 1
        self._seen[key] = number  # now the most recently used
        while len(self._seen) > self.max_tracked_sessions:
            self._seen.popitem(last=False)
        return number

    @property
    def tracked_sessions(self) -> int:
        """How many sessions the in-process count currently remembers."""
        return len(self._seen)

    @override
    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        ctx = invocation_context
        ended = bool(ctx.session.state.get(END_SESSION_STATE_KEY))
        number = self._invocation_number(ctx)
        due = self.every_n_invocations is not None and number % self.every_n_invocations == 0
        if not (due or ended):
            return None
        if ctx.memory_service is None:
            if not self._warned_no_memory:
                logger.warning("MemoryCheckpointPlugin: the Runner has no memory_service")
                self._warned_no_memory = True
            return None
        closer = SessionCloser(ctx.session_service, ctx.memory_service, config=self._closer_config)
        session = ctx.session
        try:
            self.last_result = await closer.close(session.app_name, session.user_id, session.id)
            if self.last_result.ok:
                await self._record(ctx, self.last_result, "end_session" if ended else "checkpoint")
        except Exception as exc:  # one line: the kit error, never a traceback or user text
            logger.warning("memory checkpoint of session %s failed: %s", session.id, describe(exc))
        return None

    async def _record(
        self,
        ctx: InvocationContext,
        result: CloseResult,
        trigger: Literal["checkpoint", "end_session"],
    ) -> None:
        """Persist :data:`CHECKPOINT_STATE_KEY` through an event's state delta.

        The run is over, so no tool or callback context is left to write state: the plugin
        appends one content-free event of this invocation (it changes no invocation count and
        is never ingested), which every session service persists with its state delta. Its
        author is the invocation's own agent, one ADK knows (a plugin's name would make ADK's
        agent router warn "Event from an unknown agent" on the next turn), so the next turn
        is routed exactly as before.
        """
        record = checkpoint_record(result, trigger, _policy_name(ctx.memory_service))
        event = Event(
            invocation_id=ctx.invocation_id,
            author=ctx.agent.name if ctx.agent is not None else "user",
            actions=EventActions(state_delta={CHECKPOINT_STATE_KEY: record}),
        )
        await ctx.session_service.append_event(ctx.session, event)


@tool_errors
async def end_session(tool_context: ToolContext) -> dict[str, Any]:
    """Save this conversation to long-term memory because it is finished.

    Call this when the user says goodbye or the task is complete. It takes no arguments.
    """
    tool_context.state[END_SESSION_STATE_KEY] = True
    ctx = tool_context.get_invocation_context()
    session = tool_context.session
    if ctx.memory_service is None:
        return {"status": "error", "message": "no long-term memory is configured"}
    try:
        result = await SessionCloser(ctx.session_service, ctx.memory_service).close(
            session.app_name, session.user_id, session.id
        )
    except Exception as exc:
        logger.warning("end_session could not save session %s: %s", session.id, describe(exc))
        return {"status": "error", "message": f"could not save the conversation: {describe(exc)}"}
    if not result.ok:
        return {"status": result.status}
    record = checkpoint_record(result, "end_session", _policy_name(ctx.memory_service))
    tool_context.state[CHECKPOINT_STATE_KEY] = record  # persisted with this tool's response
    return {"status": "session_closed", "rows_stored": result.rows_stored}


def end_session_tool() -> FunctionTool:
    """A fresh ``end_session`` tool for an agent's ``tools=[...]``."""
    return FunctionTool(func=end_session)
