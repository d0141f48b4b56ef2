"""Flight rebooker: the traveller's constraints kept in working memory across many turns.

``adk web agents --session_service_uri=pgvector:// --memory_service_uri=pgvector://``

The traveller states rules early ("no red-eye", "aisle seat", "arrive before 9am Friday"). The
agent records them with ``WorkingMemoryToolset``; the rendered scratchpad (``wm_view``) is in
every request through ``instruction`` (``{wm_view?}``), so the rules still apply many turns
later, while the stable text stays in ``static_instruction`` (Gemini context caching).

Model: Gemini (``gemini-2.5-flash``, or ``ADK_MEMORY_KIT_MODEL``) when ``GOOGLE_API_KEY`` or
Vertex AI is configured; otherwise the scripted offline model in ``offline.py``.
"""

from __future__ import annotations

from google.adk.agents import LlmAgent
from google.adk.apps import App

from adk_memory_kit import (
    EpisodicLogPlugin,
    UserMessageRedactionPlugin,
    WorkingMemoryToolset,
    configured_model,
    working_memory_guide,
    working_memory_instruction,
)
from adk_memory_kit.testing import ScriptedLlm

from .offline import offline_rebooker_responder
from .tools import book_seat, hold_seat, search_flights

ROLE = (
    "You rebook travellers whose flight was cancelled. Record every rule the traveller "
    "states as a constraint and keep to all of them for the whole task. Search with "
    "search_flights, record the best option that meets every constraint, hold a seat with "
    "hold_seat only after the traveller agrees, and book it with book_seat only once the "
    "traveller confirms; the traveller is rebooked only when book_seat succeeds. Then call "
    "complete_task. Be brief."
)


root_agent = LlmAgent(
    name="rebooker",
    model=configured_model() or ScriptedLlm(responder=offline_rebooker_responder),
    description="Rebooks cancelled flights, keeping the traveller's constraints in mind.",
    static_instruction=f"{ROLE}\n\n{working_memory_guide()}",
    instruction=working_memory_instruction(),  # contains {wm_view?}
    tools=[WorkingMemoryToolset(), search_flights, hold_seat, book_seat],
)

# ``adk web`` loads ``app``: the episodic log records every model and tool call (the console's
# traces and costs; ADK_MEMORY_KIT_DB_URL, else the embedded server)
app = App(
    name="rebooker",
    root_agent=root_agent,
    plugins=[UserMessageRedactionPlugin(), EpisodicLogPlugin()],
)
