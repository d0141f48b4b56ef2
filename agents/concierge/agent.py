"""Lunch concierge: profile, routing, recall, working memory and lifecycle in one ``App``.

``adk web agents --session_service_uri=pgvector:// --memory_service_uri=pgvector://``

* ``save_preference`` / ``get_profile`` write and read ``user:pref_<name>`` (fixed vocabulary);
* ``load_memory`` (the kit's framed version of ADK's tool) searches long-term memory on demand,
  and ``BudgetedPreloadMemoryTool`` adds a capped, quoted and dated recall block to each call;
* ``WorkingMemoryToolset`` keeps the current order's goal and facts in ``wm`` / ``wm_view``;
* ``MemoryRoutingPlugin`` routes what the user said at the end of every turn, with the model
  when one is configured, else with the offline learned router (``user:`` state,
  session state, long-term memory, the review queue for behaviour changes, or dropped);
* ``MemoryCheckpointPlugin`` ingests the session every 3 turns, and ``end_session`` closes it
  into long-term memory when the user says goodbye.

``adk web`` and ``adk eval`` load ``app`` (an ``App`` carries plugins; ``root_agent`` cannot).

Model: Gemini (``gemini-2.5-flash``, or ``ADK_MEMORY_KIT_MODEL``) when ``GOOGLE_API_KEY`` or
Vertex AI is configured; otherwise the kit's scripted offline concierge
(``adk_memory_kit.testing.offline_concierge_responder``, which ``adk-memory-kit demo`` runs too).
"""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.apps import App

from adk_memory_kit import (
    ApprovedInstructionsPlugin,
    BudgetedPreloadMemoryTool,
    EpisodicLogPlugin,
    MemoryApplier,
    MemoryCheckpointPlugin,
    MemoryRoutingPlugin,
    UserMessageRedactionPlugin,
    WorkingMemoryToolset,
    configured_model,
    conversation_edit_handlers,
    end_session_tool,
    make_profile_tools,
    working_memory_instruction,
)
from adk_memory_kit.recall import FramedLoadMemoryTool, RecallBudget
from adk_memory_kit.routing import ReviewQueue, routing_extractor
from adk_memory_kit.testing import CONCIERGE_INSTRUCTION, ScriptedLlm, offline_concierge_responder

CHECKPOINT_EVERY = 3

MODEL = configured_model() or ScriptedLlm(responder=offline_concierge_responder)
REAL_MODEL = None if isinstance(MODEL, ScriptedLlm) else MODEL  # None: offline routing
RECALL = RecallBudget(max_tokens=400, max_results=3)  # one budget for pulled and pushed recall

root_agent = LlmAgent(
    name="concierge",
    model=MODEL,
    static_instruction=CONCIERGE_INSTRUCTION,
    instruction=working_memory_instruction(),  # contains {wm_view?}
    tools=[
        *make_profile_tools(),
        FramedLoadMemoryTool(RECALL),
        BudgetedPreloadMemoryTool(RECALL),
        WorkingMemoryToolset(),
        end_session_tool(),
    ],
)

REVIEW_QUEUE = ReviewQueue()

app = App(
    name="concierge",
    root_agent=root_agent,
    plugins=[
        # ADK's events table keeps the turn with its secrets masked (the model still sees the
        # message as typed, in that turn only)
        UserMessageRedactionPlugin(),
        # the review queue lives in the kit's database (ADK_MEMORY_KIT_DB_URL, else embedded)
        # with a model configured, routing asks it once per turn after the reply (rules as a
        # gate, the offline router as fallback); offline, the learned router alone
        MemoryRoutingPlugin(
            routing_extractor(REAL_MODEL),
            # "please forget ..." deletes (with a model configured, it picks among the closest
            # memories what the request names); a changed fact supersedes the old one
            MemoryApplier(
                review_queue=REVIEW_QUEUE, **conversation_edit_handlers(model=REAL_MODEL)
            ),
        ),
        # what a person approved in the review queue reaches the agent (revocable)
        ApprovedInstructionsPlugin(REVIEW_QUEUE),
        MemoryCheckpointPlugin(every_n_invocations=CHECKPOINT_EVERY),
        # every model and tool call, for the console's traces and costs
        EpisodicLogPlugin(),
    ],
)
