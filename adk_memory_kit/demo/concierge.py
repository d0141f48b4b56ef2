"""The concierge the demo runs (the copyable sample lives in agents/concierge/).

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

import re
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.apps.app import App
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.plugins.base_plugin import BasePlugin
from google.genai import types

from adk_memory_kit.core.model_access import configured_model
from adk_memory_kit.lifecycle import MemoryCheckpointPlugin, end_session_tool
from adk_memory_kit.lifecycle.conversation_edits import conversation_edit_handlers
from adk_memory_kit.recall import BudgetedPreloadMemoryTool, FramedLoadMemoryTool
from adk_memory_kit.routing import (
    MemoryApplier,
    MemoryRoutingPlugin,
    ReviewQueue,
    make_profile_tools,
    routing_extractor,
)
from adk_memory_kit.routing.plugin import OutcomeHook
from adk_memory_kit.testing import ScriptedLlm, call, last_function_responses, last_user_text
from adk_memory_kit.working_memory import (
    WorkingMemoryToolset,
    working_memory_guide,
    working_memory_instruction,
)

APP_NAME = "concierge"

STATIC_INSTRUCTION = (
    "You are a lunch concierge. Call get_profile before asking about preferences; when the "
    "user states a lasting preference (diet, language, ...), save it with save_preference. "
    "When you need something the user said in an earlier conversation (such as a delivery "
    "address), call load_memory. Keep the current order's goal and facts in working memory. "
    "When the user says goodbye or the order is done, call end_session.\n\n"
    + working_memory_guide()
)

_DELIVER = re.compile(r"deliver(?:ed|y)? (?:it |lunch )?to (?:the )?([^.;,\n]+)", re.IGNORECASE)
_DIET = re.compile(r"\b(vegetarian|vegan|pescatarian|halal|kosher)\b", re.IGNORECASE)
_BYE = re.compile(r"\b(bye|goodbye|that'?s all|thanks,? that'?s it)\b", re.IGNORECASE)
_ORDER = re.compile(r"\b(order|lunch|hungry)\b", re.IGNORECASE)


_REPR_TEXT = re.compile(r"""text=(["'])(.*?)(?<!\\)\1""", re.DOTALL)


def recalled_texts(payload: dict[str, Any]) -> list[str]:
    """Memory texts from a ``load_memory`` result.

    The kit's :class:`FramedLoadMemoryTool` returns ``{"memories": "<framed block>"}`` whose
    quoted lines start with ``> ``. ADK's own ``load_memory`` returns a pydantic model, which
    its ``FunctionTool`` hands over as ``{"result": <model or its repr>}``.
    """
    memories = payload.get("memories")
    if isinstance(memories, str):
        return [line[2:] for line in memories.splitlines() if line.startswith("> ")]
    texts = []
    for memory in memories or []:
        parts = (memory.get("content") or {}).get("parts") or []
        texts.append(" ".join(p.get("text") or "" for p in parts))
    result = payload.get("result")
    for entry in getattr(result, "memories", None) or []:  # in-process: the model object
        texts.append(" ".join(p.text or "" for p in entry.content.parts or []))
    if isinstance(result, str):  # after a round trip through a session store: its repr
        texts.extend(m.group(2) for m in _REPR_TEXT.finditer(result))
    return texts


def offline_concierge_responder(request: LlmRequest) -> list[types.Part] | str:
    """Scripted behaviour for the Monday/Thursday story when no model is configured."""
    responses = last_function_responses(request)
    if responses:
        name, payload = responses[0].name, responses[0].response or {}
        if name == "save_preference":
            return "[offline scripted model] Noted, I saved that to your profile."
        if name == "get_profile":
            return [call("load_memory", query="delivery address office")]
        if name == "load_memory":
            for text in recalled_texts(payload):
                if match := _DELIVER.search(text):
                    address = match.group(1).strip()
                    return [
                        call(
                            "record_fact",
                            name="delivery_address",
                            value=address,
                            source="load_memory",
                        )
                    ]
            return "[offline scripted model] Where should I deliver your lunch?"
        if name == "record_fact":
            return (
                "[offline scripted model] Your profile says vegetarian, and last time you asked "
                "for delivery to the office reception I found in memory. Shall I order a "
                "vegetarian lunch there?"
            )
        if name == "end_session":
            return "[offline scripted model] Enjoy your lunch, goodbye!"
        return "[offline scripted model] Done."
    said = last_user_text(request)
    if _BYE.search(said):
        return [call("end_session")]
    if (diet := _DIET.search(said)) and "order" not in said.lower():
        return [call("save_preference", name="diet", value=diet.group(1).lower())]
    if _ORDER.search(said):
        return [call("get_profile")]
    return "[offline scripted model] Noted."


def build_concierge_agent(model: str | BaseLlm | None = None) -> LlmAgent:
    """The concierge agent (tools only; plugins come with :func:`build_concierge_app`)."""
    return LlmAgent(
        name="concierge",
        model=model or configured_model() or ScriptedLlm(responder=offline_concierge_responder),
        static_instruction=STATIC_INSTRUCTION,
        instruction=working_memory_instruction(),
        tools=[
            *make_profile_tools(),
            FramedLoadMemoryTool(max_tokens=400, max_results=3),
            BudgetedPreloadMemoryTool(max_tokens=400, max_results=3),
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
    else the offline learned router) and the checkpoint plugin, ready for an ``App``."""
    return [
        MemoryRoutingPlugin(
            routing_extractor(routing_model),
            MemoryApplier(
                review_queue=review_queue or ReviewQueue(), **conversation_edit_handlers()
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
