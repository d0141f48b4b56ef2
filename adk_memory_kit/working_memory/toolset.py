"""``WorkingMemoryToolset``: the tools the model calls to keep its task scratchpad."""

from __future__ import annotations

import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any, Literal

from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset, ToolPredicate
from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.tool_context import ToolContext
from typing_extensions import override

from adk_memory_kit.core.tool_errors import tool_errors
from adk_memory_kit.errors import SchemaMismatchError
from adk_memory_kit.sensitive import redact_value
from adk_memory_kit.working_memory import operations as ops
from adk_memory_kit.working_memory.config import (
    DEFAULT_KEY,
    WorkingMemoryConfig,
    check_state_key,
    last_task_key_for,
    view_key_for,
)
from adk_memory_kit.working_memory.guards import (
    tools_called_in_invocation,
    user_texts_in_invocation,
)
from adk_memory_kit.working_memory.metrics import tool_calls_by_task
from adk_memory_kit.working_memory.model import Scratchpad
from adk_memory_kit.working_memory.render import render_view

_TURNS_KEPT = 64
"""Model turns whose writers are tracked at once (one per concurrent invocation is needed)."""

WORKING_MEMORY_TOOL_NAMES: tuple[str, ...] = (
    "set_goal",
    "add_constraint",
    "record_fact",
    "update_step",
    "add_open_question",
    "resolve_open_question",
    "complete_task",
)


class _Tools:
    """The tool functions, bound to one state key and one budget.

    Each tool reads, edits and writes the scratchpad with no ``await`` in between, and
    ``tool_context.state`` writes through to the session's state, so a later call in the
    same model turn builds on an earlier call's write. ADK then deep-merges the state
    deltas of one turn's calls into one event and re-applies the latest write of a dict
    or list key on top; a deep merge keeps every dict key any call wrote, so the stored
    scratchpad keeps its facts in a list (which the merge replaces whole) and every load
    applies the budget again.

    The merge takes a string key (the view) from the last call in *call* order, but the
    latest write of a list or dict key from the call that *ran* last. Those differ when a
    callback awaits, so each write is also copied into the pending deltas of the earlier
    writers of the same model turn: whichever call runs last decides both keys.
    """

    def __init__(self, key: str, config: WorkingMemoryConfig, own_names: set[str]) -> None:
        self.key = key
        self.view_key = view_key_for(key)
        self.last_task_key = last_task_key_for(key)
        self.config = config
        self.own_names = own_names
        # Weak references: a turn's contexts die with the turn, so nothing is kept alive.
        self._turns: OrderedDict[tuple[str, str], list[weakref.ref[ToolContext]]] = OrderedDict()

    def _turn_key(self, tool_context: ToolContext) -> tuple[str, str] | None:
        """(invocation, id of the model event holding this call), or None if not found."""
        call_id = tool_context.function_call_id
        if not call_id:
            return None
        for event in reversed(tool_context.session.events):
            if any(c.id == call_id for c in event.get_function_calls()):
                return tool_context.invocation_id, event.id
        return None

    def _write(self, tool_context: ToolContext, values: dict[str, Any]) -> None:
        """Write ``values`` to state and into the deltas of this turn's earlier writers; every
        string in them passes the kit's redaction gate first."""
        for key, value in values.items():
            tool_context.state[key] = redact_value(value)
        turn = self._turn_key(tool_context)
        if turn is None:
            return
        writers = [other for ref in self._turns.get(turn, []) if (other := ref()) is not None]
        for other in writers:
            if other is tool_context:
                continue
            delta = other.actions.state_delta
            for key in (self.key, self.view_key):
                if key in delta:
                    delta[key] = tool_context.state.get(key)
        if all(other is not tool_context for other in writers):
            writers.append(tool_context)
        self._turns[turn] = [weakref.ref(other) for other in writers]
        self._turns.move_to_end(turn)
        while len(self._turns) > _TURNS_KEPT:
            self._turns.popitem(last=False)

    def _apply(
        self, tool_context: ToolContext, edit: Callable[[Scratchpad], ops.Outcome]
    ) -> dict[str, Any]:
        raw = tool_context.state.get(self.key)
        try:
            pad = Scratchpad.load(raw, key=self.key, config=self.config)
        except SchemaMismatchError as exc:
            return {"status": "rejected", "message": str(exc), "evicted": []}
        repaired = raw is not None and pad.dump() != raw
        outcome = edit(pad)
        reply: dict[str, Any] = {
            "status": "ok" if outcome.ok else "rejected",
            "message": outcome.message,
            "evicted": outcome.evicted,
        }
        view = render_view(pad, self.config)
        if (outcome.ok and outcome.changed) or repaired:
            # an edit that empties the pad removes it, as complete_task does
            stored = None if pad.is_empty() else pad.dump()
            self._write(tool_context, {self.key: stored, self.view_key: view.text})
        elif tool_context.state.get(self.view_key, "") != view.text:
            self._write(tool_context, {self.view_key: view.text})
        if view.hidden_facts and outcome.ok and outcome.changed:
            reply["not_in_view"] = view.hidden_facts
        return reply

    @tool_errors
    async def set_goal(self, goal: str, tool_context: ToolContext) -> dict[str, Any]:
        """Set the goal of the current task (replaces an earlier goal).

        Args:
          goal: one sentence saying what the user wants done.
        """
        return self._apply(tool_context, lambda pad: ops.set_goal(pad, goal, self.config))

    @tool_errors
    async def add_constraint(self, constraint: str, tool_context: ToolContext) -> dict[str, Any]:
        """Record a rule the user stated for this task, so it is not forgotten later.

        Args:
          constraint: the rule, in a few words (e.g. "no overnight layover").
        """
        return self._apply(
            tool_context, lambda pad: ops.add_constraint(pad, constraint, self.config)
        )

    @tool_errors
    async def record_fact(
        self,
        name: str,
        value: str,
        source: str,
        tool_context: ToolContext,
        pinned: bool = False,
    ) -> dict[str, Any]:
        """Record a verified fact needed later in this task.

        Args:
          name: short snake_case name, e.g. booking_ref.
          value: the fact itself, kept short.
          source: 'user' only if the user's message in this turn contains the value
            (use the user's words), else the name of the tool whose result in this turn
            contains it.
          pinned: true for facts that must never be evicted (references, user choices).
        """
        events = tool_context.session.events
        called = tools_called_in_invocation(
            events,
            tool_context.invocation_id,
            branch=tool_context.branch,
            exclude=sorted(self.own_names),
        )
        said = user_texts_in_invocation(
            events, tool_context.invocation_id, tool_context.user_content
        )
        return self._apply(
            tool_context,
            lambda pad: ops.record_fact(
                pad,
                name,
                value,
                source,
                pinned,
                called_tools=called,
                config=self.config,
                now=time.time(),
                user_texts=said,
            ),
        )

    @tool_errors
    async def update_step(
        self,
        step: str,
        status: Literal["todo", "doing", "done"],
        tool_context: ToolContext,
        step_id: str = "",
        depends_on: list[str] | None = None,
    ) -> dict[str, Any]:
        """Add a plan step, or change the status of an existing one.

        Args:
          step: short description of the step (the same text updates the same step).
          status: todo, doing or done.
          step_id: optional short id (e.g. 'fetch') to refer to the step from others.
          depends_on: optional ids of steps that must be done before this one starts.
        """
        return self._apply(
            tool_context,
            lambda pad: ops.update_step(
                pad, step, status, self.config, step_id=step_id or None, depends_on=depends_on
            ),
        )

    @tool_errors
    async def add_open_question(self, question: str, tool_context: ToolContext) -> dict[str, Any]:
        """Note a question that must be answered before the task can finish.

        Args:
          question: the question, in one sentence.
        """
        return self._apply(
            tool_context, lambda pad: ops.add_open_question(pad, question, self.config)
        )

    @tool_errors
    async def resolve_open_question(
        self, question: str, tool_context: ToolContext
    ) -> dict[str, Any]:
        """Remove an open question once it is answered (record the answer as a fact).

        Args:
          question: the open question's text, or a distinctive part of it.
        """
        return self._apply(
            tool_context, lambda pad: ops.resolve_open_question(pad, question, self.config)
        )

    @tool_errors
    async def complete_task(self, tool_context: ToolContext, summary: str = "") -> dict[str, Any]:
        """Clear working memory when the task is done or the user abandons it.

        Args:
          summary: optional, one sentence on how the task ended (e.g. "rebooked on UA 512").
        """
        tasks = tool_calls_by_task(
            tool_context.session.events,
            exclude=self.own_names,
            task_end={n for n in self.own_names if n.endswith("complete_task")},
        )
        finished = [t for t in tasks if t.completed]
        repeated = finished[-1].repeated if finished else 0
        values: dict[str, Any] = {self.key: None, self.view_key: ""}
        try:
            pad = Scratchpad.load(tool_context.state.get(self.key), key=self.key)
        except SchemaMismatchError:
            pad = Scratchpad()  # an unreadable pad is cleared without a record
        record = ops.finished_task(pad, summary, self.config, now=time.time())
        if record is not None:
            values[self.last_task_key] = record
        self._write(tool_context, values)
        return {
            "status": "cleared",
            "message": "Working memory cleared"
            + (f"; the finished task is summarized in {self.last_task_key}" if record else "")
            + ". Call set_goal when a new task starts.",
            "repeated_tool_calls": repeated,
        }


class WorkingMemoryToolset(BaseToolset):
    """Tools that keep a bounded, typed task scratchpad in session state.

    The scratchpad lives under ``key`` (default ``wm``) as plain JSON data; its rendered
    view lives under ``<key>_view`` and is what the instruction shows through the optional
    placeholder ``{wm_view?}`` (see ``working_memory_instruction``). Give each branch of
    a ``ParallelAgent`` its own ``key`` and combine them with ``merge_branches_callback``.
    """

    def __init__(
        self,
        *,
        key: str = DEFAULT_KEY,
        config: WorkingMemoryConfig | None = None,
        tool_filter: ToolPredicate | list[str] | None = None,
        tool_name_prefix: str | None = None,
    ) -> None:
        super().__init__(tool_filter=tool_filter, tool_name_prefix=tool_name_prefix)
        self.key = check_state_key(key)
        self.view_key = view_key_for(key)
        self.config = config or WorkingMemoryConfig()
        own = set(WORKING_MEMORY_TOOL_NAMES)
        if tool_name_prefix:
            own |= {f"{tool_name_prefix}_{n}" for n in WORKING_MEMORY_TOOL_NAMES}
        tools = _Tools(self.key, self.config, own)
        self._tools: list[BaseTool] = [
            FunctionTool(getattr(tools, name)) for name in WORKING_MEMORY_TOOL_NAMES
        ]

    @property
    def tool_names(self) -> list[str]:
        """Names of all the toolset's tools as the model sees them (prefix applied)."""
        prefix = f"{self.tool_name_prefix}_" if self.tool_name_prefix else ""
        return [prefix + t.name for t in self._tools]

    @override
    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The working-memory tools, after ``tool_filter``."""
        return [t for t in self._tools if self._is_tool_selected(t, readonly_context)]
