"""``WorkingMemoryToolset``: the tools the model calls to keep its task scratchpad."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Literal

from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.base_toolset import BaseToolset, ToolPredicate
from google.adk.tools.function_tool import FunctionTool
from google.adk.tools.tool_context import ToolContext

from adk_memory_kit.errors import SchemaMismatchError
from adk_memory_kit.working_memory import operations as ops
from adk_memory_kit.working_memory.config import (
    DEFAULT_KEY,
    WorkingMemoryConfig,
    check_state_key,
    view_key_for,
)
from adk_memory_kit.working_memory.guards import tools_called_in_invocation
from adk_memory_kit.working_memory.metrics import tool_calls_by_task
from adk_memory_kit.working_memory.model import Scratchpad
from adk_memory_kit.working_memory.render import render_view

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

    Each tool reads, edits and writes the scratchpad with no ``await`` in between, so
    tools issued together in one model turn cannot overwrite each other's edits.
    """

    def __init__(self, key: str, config: WorkingMemoryConfig, own_names: set[str]) -> None:
        self.key = key
        self.view_key = view_key_for(key)
        self.config = config
        self.own_names = own_names

    def _load(self, tool_context: ToolContext) -> Scratchpad:
        return Scratchpad.load(tool_context.state.get(self.key), key=self.key)

    def _apply(
        self, tool_context: ToolContext, edit: Callable[[Scratchpad], ops.Outcome]
    ) -> dict[str, Any]:
        try:
            pad = self._load(tool_context)
        except SchemaMismatchError as exc:
            return {"status": "rejected", "message": str(exc), "evicted": []}
        outcome = edit(pad)
        reply: dict[str, Any] = {
            "status": "ok" if outcome.ok else "rejected",
            "message": outcome.message,
            "evicted": outcome.evicted,
        }
        if outcome.ok and outcome.changed:
            view = render_view(pad, self.config)
            tool_context.state[self.key] = pad.dump()
            tool_context.state[self.view_key] = view.text
            if view.hidden_facts:
                reply["not_in_view"] = view.hidden_facts
        return reply

    async def set_goal(self, goal: str, tool_context: ToolContext) -> dict[str, Any]:
        """Set the goal of the current task (replaces an earlier goal).

        Args:
          goal: one sentence saying what the user wants done.
        """
        return self._apply(tool_context, lambda pad: ops.set_goal(pad, goal, self.config))

    async def add_constraint(self, constraint: str, tool_context: ToolContext) -> dict[str, Any]:
        """Record a rule the user stated for this task, so it is not forgotten later.

        Args:
          constraint: the rule, in a few words (e.g. "no overnight layover").
        """
        return self._apply(
            tool_context, lambda pad: ops.add_constraint(pad, constraint, self.config)
        )

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
          source: 'user' if the user said it, else the name of the tool whose result in
            this turn contains it.
          pinned: true for facts that must never be evicted (references, user choices).
        """
        called = tools_called_in_invocation(
            tool_context.session.events,
            tool_context.invocation_id,
            branch=tool_context.branch,
            exclude=sorted(self.own_names),
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
            ),
        )

    async def update_step(
        self,
        step: str,
        status: Literal["todo", "doing", "done"],
        tool_context: ToolContext,
    ) -> dict[str, Any]:
        """Add a plan step, or change the status of an existing one.

        Args:
          step: short description of the step (the same text updates the same step).
          status: todo, doing or done.
        """
        return self._apply(
            tool_context, lambda pad: ops.update_step(pad, step, status, self.config)
        )

    async def add_open_question(self, question: str, tool_context: ToolContext) -> dict[str, Any]:
        """Note a question that must be answered before the task can finish.

        Args:
          question: the question, in one sentence.
        """
        return self._apply(
            tool_context, lambda pad: ops.add_open_question(pad, question, self.config)
        )

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

    async def complete_task(self, tool_context: ToolContext) -> dict[str, Any]:
        """Clear working memory when the task is done or the user abandons it."""
        tasks = tool_calls_by_task(
            tool_context.session.events,
            exclude=self.own_names,
            task_end={n for n in self.own_names if n.endswith("complete_task")},
        )
        finished = [t for t in tasks if t.completed]
        repeated = finished[-1].repeated if finished else 0
        tool_context.state[self.key] = None
        tool_context.state[self.view_key] = ""
        return {
            "status": "cleared",
            "message": "Working memory cleared. Call set_goal when a new task starts.",
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

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        """The working-memory tools, after ``tool_filter``."""
        return [t for t in self._tools if self._is_tool_selected(t, readonly_context)]
