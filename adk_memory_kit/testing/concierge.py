"""The lunch concierge's instruction and its scripted offline behaviour (no API key set).

Shared by the sample agent (``agents/concierge``) and ``adk-memory-kit demo``. The responder
plays the concierge conversation of agents/README.md. It does not know the
delivery address: on "order lunch" it calls ``get_profile`` and ``load_memory``, and its reply
quotes what ``load_memory`` actually returned in the request (with the memory's date). When
memory holds no delivery instruction, it says so and asks.
"""

from __future__ import annotations

import re
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.genai import types

from adk_memory_kit.testing.llm import call, conversation, last_function_responses, last_user_text
from adk_memory_kit.working_memory import working_memory_guide

CONCIERGE_INSTRUCTION = (
    "You are a lunch concierge. Call get_profile before asking about preferences; when the "
    "user states a lasting preference (diet, language, ...), save it with save_preference. "
    "When you need something the user said in an earlier conversation (such as a delivery "
    "address), call load_memory. Keep the current order's goal and facts in working memory. "
    "When the user says goodbye or the order is done, call end_session.\n\n"
    + working_memory_guide()
)
"""The concierge's static instruction (for a real model; the scripted one ignores it)."""

OFFLINE = "[offline scripted model]"
MEMORY_QUERY = "delivery address office"

_DELIVER = re.compile(r"deliver(?:ed|y)? (?:it |lunch )?to (?:the )?([^.;,\n\"]+)", re.IGNORECASE)
_DIET = re.compile(r"\b(vegetarian|vegan|pescatarian|halal|kosher)\b", re.IGNORECASE)
_BYE = re.compile(r"\b(bye|goodbye|that'?s all)\b", re.IGNORECASE)
_ORDER = re.compile(r"\b(order|lunch|hungry)\b", re.IGNORECASE)
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


def recalled_lines(payload: dict[str, Any]) -> list[str]:
    """The quoted memory lines of a ``load_memory`` result (the kit's framed block)."""
    memories = payload.get("memories")
    if not isinstance(memories, str):
        return []
    return [line for line in memories.splitlines() if line.lstrip().startswith(">")]


def _latest(request: LlmRequest, tool: str) -> dict[str, Any] | None:
    """The newest ``tool`` response in the request's conversation, if any."""
    for content in reversed(conversation(request)):
        for part in content.parts or []:
            if part.function_response and part.function_response.name == tool:
                return dict(part.function_response.response or {})
    return None


def recalled_address(request: LlmRequest) -> tuple[str, str] | None:
    """(address, date) from the delivery instruction ``load_memory`` returned, if it did."""
    payload = _latest(request, "load_memory") or {}
    block = str(payload.get("memories") or "")
    for line in recalled_lines(payload):
        if match := _DELIVER.search(line):
            dated = _DATE.search(block[: block.find(line)].rsplit("\n[", 1)[-1] + line)
            return match.group(1).strip(), dated.group(1) if dated else "an earlier session"
    return None


def _diet(request: LlmRequest) -> str | None:
    profile = (_latest(request, "get_profile") or {}).get("profile") or {}
    return (profile.get("diet") or {}).get("value")


def _order_reply(request: LlmRequest) -> str:
    """The reply once the profile and memory were read: built from those tool results only."""
    diet = _diet(request)
    found = recalled_address(request)
    meal = f"a {diet} lunch" if diet else "lunch"
    profile = f"Your profile says diet: {diet}." if diet else "Your profile has no diet set."
    if not found:
        return f"{OFFLINE} {profile} I found no delivery address in memory: where should {meal} go?"
    address, when = found
    return (
        f"{OFFLINE} {profile} From memory ({when}): deliver to {address}. "
        f"Shall I order {meal} to the {address}?"
    )


def offline_concierge_responder(request: LlmRequest) -> list[types.Part] | str:
    """Profile, then memory, then working memory, then a reply from what the tools returned."""
    responses = last_function_responses(request)
    if responses:
        name, payload = responses[0].name, responses[0].response or {}
        if name == "save_preference":
            if payload.get("status") != "ok":
                return f"{OFFLINE} I could not save that: {payload.get('reason', 'rejected')}."
            return f"{OFFLINE} Saved to your profile: {payload['name']} = {payload['value']}."
        if name == "get_profile":
            return [call("load_memory", query=MEMORY_QUERY)]
        if name == "load_memory":
            found = recalled_address(request)
            if found:
                address, _ = found
                return [
                    call("set_goal", goal="Order lunch"),
                    call(
                        "record_fact", name="delivery_address", value=address, source="load_memory"
                    ),
                ]
            return _order_reply(request)
        if name in {"set_goal", "record_fact"}:
            return _order_reply(request)
        if name == "end_session":
            # rows_stored counts what closing the session added; the facts the router
            # routed were stored during the turns they were said in (not counted here)
            rows = payload.get("rows_stored")  # None: the memory service does not count
            added = (
                f"; closing it added {rows} more memory row{'s' if rows != 1 else ''}"
                if rows is not None
                else ""
            )
            return (
                f"{OFFLINE} Session closed. What you asked me to remember was saved when you "
                f"said it{added}. Goodbye!"
            )
        return f"{OFFLINE} Done."
    said = last_user_text(request)
    if _BYE.search(said):
        return [call("end_session")]
    if (diet := _DIET.search(said)) and "order" not in said.lower():
        return [call("save_preference", name="diet", value=diet.group(1).lower())]
    if _ORDER.search(said):
        return [call("get_profile")]
    return f"{OFFLINE} Noted."
