"""The concierge the demo runs (the copyable sample lives in agents/concierge/).

Its instruction and offline model are the sample's own, from the public
:mod:`adk_memory_kit.testing` (``CONCIERGE_INSTRUCTION``, ``offline_concierge_responder``).

Wired as an ADK ``App`` so its plugins apply to every model call:

* ``save_preference`` / ``get_profile`` write and read ``user:pref_<name>`` (fixed vocabulary);
* ``load_memory`` (the kit's framed version of ADK's tool) pulls long-term memory on demand,
  and ``BudgetedPreloadMemoryTool`` pushes a capped recall block before each call; both
  quote and date every memory as data;
* ``WorkingMemoryToolset`` keeps the current task's goal and facts in ``wm``/``wm_view``;
* ``MemoryRoutingPlugin`` routes what the user said at the end of every turn;
* ``MemoryCheckpointPlugin`` ingests the session every N turns, and ``end_session`` closes it
  when the user says goodbye.
"""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.models.base_llm import BaseLlm
from google.adk.plugins.base_plugin import BasePlugin

from adk_memory_kit.core.model_access import configured_model
from adk_memory_kit.lifecycle import MemoryCheckpointPlugin, end_session_tool
from adk_memory_kit.recall import BudgetedPreloadMemoryTool, FramedLoadMemoryTool, RecallBudget
from adk_memory_kit.routing import (
    MemoryApplier,
    MemoryRoutingPlugin,
    ReviewQueue,
    make_profile_tools,
    routing_extractor,
)
from adk_memory_kit.routing.edits.conversation_edits import conversation_edit_handlers
from adk_memory_kit.routing.plugin import OutcomeHook
from adk_memory_kit.testing import CONCIERGE_INSTRUCTION, ScriptedLlm, offline_concierge_responder
from adk_memory_kit.working_memory import WorkingMemoryToolset, working_memory_instruction

APP_NAME = "concierge"

#: One recall budget for the pulled (load_memory) and the pushed (preload) recall.
RECALL = RecallBudget(max_tokens=400, max_results=3)


def build_concierge_agent(model: str | BaseLlm | None = None) -> LlmAgent:
    """The concierge agent (tools only; plugins come with :func:`build_concierge_app`)."""
    return LlmAgent(
        name="concierge",
        model=model or configured_model() or ScriptedLlm(responder=offline_concierge_responder),
        static_instruction=CONCIERGE_INSTRUCTION,
        instruction=working_memory_instruction(),
        tools=[
            *make_profile_tools(),
            FramedLoadMemoryTool(RECALL),
            BudgetedPreloadMemoryTool(RECALL),
            WorkingMemoryToolset(),
            end_session_tool(),
        ],
    )


def concierge_plugins(
    *,
    review_queue: ReviewQueue | None = None,
    on_outcomes: OutcomeHook | None = None,
    checkpoint_every: int = 3,
    routing_model: str | BaseLlm | None = None,
) -> list[BasePlugin]:
    """The routing plugin (the model behind the rule gate when ``routing_model`` is given,
    else the offline learned router; the same model judges forget requests) and the
    checkpoint plugin, ready for an ``App``."""
    return [
        MemoryRoutingPlugin(
            routing_extractor(routing_model),
            MemoryApplier(
                review_queue=review_queue or ReviewQueue(),
                **conversation_edit_handlers(model=routing_model),
            ),
            on_outcomes=on_outcomes,
        ),
        MemoryCheckpointPlugin(every_n_invocations=checkpoint_every),
    ]


def build_concierge_app(
    model: str | BaseLlm | None = None,
    *,
    review_queue: ReviewQueue | None = None,
    on_outcomes: OutcomeHook | None = None,
) -> App:
    """The concierge as an ``App`` with its plugins (what ``adk web`` and the demo run).
    Routing uses the agent's model when it is a real one, else the offline router."""
    agent = build_concierge_agent(model)
    real = None if isinstance(agent.model, ScriptedLlm) else agent.model
    return App(
        name=APP_NAME,
        root_agent=agent,
        plugins=concierge_plugins(
            review_queue=review_queue, on_outcomes=on_outcomes, routing_model=real
        ),
    )
