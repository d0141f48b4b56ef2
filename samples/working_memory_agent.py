"""Working memory for an ADK agent: a rebooking assistant that keeps its task scratchpad.

Run it:  python samples/working_memory_agent.py
With GOOGLE_API_KEY set it talks to Gemini (WM_SAMPLE_MODEL, default gemini-2.5-flash);
without one it plays a scripted model, so it runs offline.

The layout to copy: stable text (role + working-memory rules) in ``static_instruction``, so
the request prefix never changes and Gemini context caching keeps working; the changing
view in ``instruction`` through the optional placeholder ``{wm_view?}``.
"""

from __future__ import annotations

import asyncio
import os
from typing import Any

from google.adk.agents.llm_agent import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adk_memory_kit.testing import ScriptedLlm, call
from adk_memory_kit.working_memory import (
    WORKING_MEMORY_TOOL_NAMES,
    WorkingMemoryToolset,
    repeated_tool_calls,
    working_memory_guide,
    working_memory_instruction,
)

ROLE = "You help travellers change flight bookings. Be brief and confirm before changing."


def lookup_booking(booking_ref: str) -> dict[str, Any]:
    """Look up a booking by its reference."""
    return {"booking_ref": booking_ref, "flight": "AB123", "date": "14 Nov", "fare_class": "Y"}


def list_earlier_flights(booking_ref: str) -> dict[str, Any]:
    """List earlier flights on the same day that keep the fare class."""
    return {"options": [{"flight": "AB117", "departs": "07:40", "seat_12A_free": True}]}


def build_agent(model: str | BaseLlm) -> LlmAgent:
    """The agent: static guide for caching, dynamic working-memory view."""
    return LlmAgent(
        name="rebooker",
        model=model,
        static_instruction=f"{ROLE}\n\n{working_memory_guide()}",
        instruction=working_memory_instruction(),  # contains {wm_view?}
        tools=[WorkingMemoryToolset(), lookup_booking, list_earlier_flights],
    )


def scripted_model() -> ScriptedLlm:
    """The three-turn rebooking conversation, as tool calls."""
    aircraft_q = "Does the user accept a different aircraft?"
    turns: list[list[types.Part] | str] = [
        [
            call("set_goal", goal="Move booking QX7T2L on 14 Nov to an earlier flight"),
            call("add_constraint", constraint="no overnight layover"),
            call("lookup_booking", booking_ref="QX7T2L"),
        ],
        [
            call(
                "record_fact",
                name="booking_ref",
                value="QX7T2L",
                source="lookup_booking",
                pinned=True,
            ),
            call("record_fact", name="fare_class", value="Y", source="lookup_booking"),
            call("update_step", step="Find booking", status="done"),
            call("add_open_question", question=aircraft_q),
        ],
        [types.Part(text="Found QX7T2L (AB123, fare Y). Is a different aircraft fine?")],
        [
            call("resolve_open_question", question="different aircraft"),
            call("add_constraint", constraint="keep seat 12A if possible"),
            call("list_earlier_flights", booking_ref="QX7T2L"),
        ],
        [
            call(
                "record_fact",
                name="best_option",
                value="AB117 07:40, same fare, seat 12A free",
                source="list_earlier_flights",
            ),
            call("update_step", step="List earlier options", status="done"),
            call("update_step", step="Confirm change with user", status="doing"),
        ],
        [types.Part(text="AB117 at 07:40 keeps fare Y and seat 12A. Shall I confirm?")],
        [
            call("update_step", step="Confirm change with user", status="done"),
            call("complete_task"),
        ],
        [types.Part(text="Done: you are on AB117 at 07:40, seat 12A.")],
    ]
    return ScriptedLlm(
        model="scripted-rebooker",
        responder=lambda request: turns.pop(0) if turns else "(end of script)",
    )


USER_TURNS = [
    "Please move booking QX7T2L on 14 Nov to an earlier flight. No overnight layover.",
    "Any aircraft is fine, but keep seat 12A if possible.",
    "Yes, confirm it.",
]


async def main(model: str | BaseLlm | None = None, *, quiet: bool = False) -> dict[str, Any]:
    """Run the conversation; return the views after each turn and the final state."""
    if model is None:
        api_key = os.environ.get("GOOGLE_API_KEY")
        model = os.environ.get("WM_SAMPLE_MODEL", "gemini-2.5-flash") if api_key else None
        model = model or scripted_model()
    service = InMemorySessionService()
    runner = Runner(agent=build_agent(model), app_name="rebooking", session_service=service)
    session = await service.create_session(app_name="rebooking", user_id="traveller")
    views: list[str] = []
    for text in USER_TURNS:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for event in runner.run_async(
            user_id="traveller", session_id=session.id, new_message=message
        ):
            if event.content and event.content.parts and event.content.parts[0].text:
                if not quiet:
                    print(f"[{event.author}] {event.content.parts[0].text}")
        current = await service.get_session(
            app_name="rebooking", user_id="traveller", session_id=session.id
        )
        views.append(current.state.get("wm_view") or "")
        if not quiet:
            print(f"--- wm_view after the turn (user said {text!r}):\n{views[-1] or '(empty)'}\n")
    repeats = repeated_tool_calls(current.events, exclude=WORKING_MEMORY_TOOL_NAMES)
    if not quiet:
        print(f"repeated identical tool calls: {repeats}")
    return {"views": views, "state": dict(current.state), "repeated_tool_calls": repeats}


if __name__ == "__main__":
    asyncio.run(main())
