"""The scripted offline model's behaviour (used when no GOOGLE_API_KEY is set).

It plays the rebooking conversation of this folder's README section. It reads the goal,
constraints and facts back from the ``<working_memory>`` block in the request (what
``{wm_view?}`` rendered), not from the transcript, and judges flights against them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.genai import types

from adk_memory_kit.testing import call, last_function_responses, last_user_text

from .tools import shift_day, weekday

OFFLINE = "[offline scripted model]"
ROUTE_QUESTION = "Which route: origin and destination airports?"
ARRIVAL_QUESTION = "By when must the traveller arrive (day and time)?"

_VIEW = re.compile(r"<working_memory>\n(.*?)\n</working_memory>", re.DOTALL)
_FACT = re.compile(r"^- ([a-z][a-z0-9_]*)\*? = (.*) \[[^\]]*\]$")
_ROUTE = re.compile(r"\b([A-Z]{3})\s*(?:to|-)\s*([A-Z]{3})\b")
_ARRIVE = re.compile(r"\barriv\w*\s+(?:by|before|no later than)\s+([^.,;!?\n]+)", re.IGNORECASE)
_TIME = re.compile(r"\b(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b", re.IGNORECASE)
_TASK = re.compile(r"\b(rebook|flight|cancel\w*)\b", re.IGNORECASE)
_HOLD = re.compile(r"\b(hold|book it|take it|go ahead|yes|ok(?:ay)?|sounds good)\b", re.IGNORECASE)
_CONFIRM = re.compile(r"\b(confirm\w*|yes|go ahead|book it|do it)\b", re.IGNORECASE)


@dataclass
class _View:
    """What the rendered working-memory block in the request says."""

    goal: str = ""
    constraints: list[str] = field(default_factory=list)
    facts: dict[str, str] = field(default_factory=dict)
    open: list[str] = field(default_factory=list)


def _read_view(request: LlmRequest) -> _View:
    """Parse the newest ``<working_memory>`` block in the request (empty view if none)."""
    blocks = [
        match
        for content in request.contents or []
        for part in content.parts or []
        if part.text
        for match in _VIEW.findall(part.text)
    ]
    view = _View()
    if not blocks:
        return view
    section = ""
    for line in blocks[-1].splitlines():
        if line.startswith("Goal: "):
            view.goal = line[len("Goal: ") :]
        elif not line.startswith("- "):
            section = line.split(" ", 1)[0].rstrip(":").lower()  # Constraints, Facts, Open...
        elif section == "constraints":
            view.constraints.append(line[2:])
        elif section == "facts" and (match := _FACT.match(line)):
            view.facts[match.group(1)] = match.group(2)
        elif section == "open":
            view.open.append(line[2:])
    return view


def _constraints_in(text: str) -> list[str]:
    """The rules a traveller states, in the words the agent records them with."""
    found = []
    if re.search(r"red[- ]?eye", text, re.IGNORECASE):
        found.append("no red-eye")
    if seat := re.search(r"\b(aisle|window)\b", text, re.IGNORECASE):
        found.append(f"{seat.group(1).lower()} seat")
    if arrive := _ARRIVE.search(text):
        found.append(f"arrive before {arrive.group(1).strip()}")
    return found


def _deadline(constraints: list[str]) -> tuple[str, int] | None:
    """(weekday, minutes after midnight) of an 'arrive before ...' constraint."""
    for constraint in constraints:
        if not constraint.startswith("arrive before "):
            continue
        rest = constraint[len("arrive before ") :]
        day, time = weekday(rest), _TIME.search(rest)
        if day and time:
            hour = int(time.group(1)) % 12 if time.group(3) else int(time.group(1))
            if (time.group(3) or "").lower() == "pm":
                hour += 12
            return day, hour * 60 + int(time.group(2) or 0)
    return None


def _rejection(flight: dict[str, Any], constraints: list[str], deadline: tuple[str, int]) -> str:
    """Why ``flight`` breaks a constraint ('' when it meets them all)."""
    rules = " ".join(constraints).lower()
    if "red-eye" in rules and flight.get("red_eye"):
        return "red-eye"
    if "aisle seat" in rules and not flight.get("aisle_seat_free"):
        return "no aisle seat"
    day, _, clock = str(flight.get("arrives", "")).rpartition(" ")
    hours, _, minutes = clock.partition(":")
    if day == deadline[0] and int(hours) * 60 + int(minutes or 0) >= deadline[1]:
        return "arrives too late"
    if day not in (deadline[0], shift_day(deadline[0], -1)):
        return "arrives too late"
    return ""


def _seat_type(constraints: list[str]) -> str:
    rules = " ".join(constraints)
    return "window" if "window seat" in rules else "aisle"


def _latest_response(request: LlmRequest, tool: str) -> dict[str, Any]:
    for content in reversed(request.contents or []):
        for part in content.parts or []:
            if part.function_response and part.function_response.name == tool:
                return dict(part.function_response.response or {})
    return {}


def _on_user(request: LlmRequest, text: str, view: _View) -> list[types.Part] | str:
    """A new user message: start the task, record what they said, search, hold or finish."""
    facts = view.facts
    if "held_seat" in facts and "booking" not in facts and _CONFIRM.search(text):
        hold = re.search(r"\bhold (H[0-9A-F]{6})\b", facts["held_seat"])
        return [
            call("update_step", step="Book seat", status="doing"),
            call(
                "book_seat",
                flight_id=facts["best_flight"],
                hold_ref=hold.group(1) if hold else "",
            ),
        ]
    if "best_flight" in facts and "held_seat" not in facts and _HOLD.search(text):
        return [
            call("update_step", step="Hold seat", status="doing"),
            call(
                "hold_seat",
                flight_id=facts["best_flight"],
                seat_type=_seat_type(view.constraints),
            ),
        ]
    calls: list[types.Part] = []
    route = _ROUTE.search(text)
    if not view.goal:
        if not (route or _constraints_in(text) or _TASK.search(text)):
            return f"{OFFLINE} I rebook flights: tell me the route (e.g. SFO to JFK) and rules."
        where = f" from {route.group(1)} to {route.group(2)}" if route else ""
        calls += [
            call("set_goal", goal=f"Rebook the traveller's cancelled flight{where}"),
            call("update_step", step="Collect constraints", status="doing"),
        ]
    if route and "route" not in facts:
        value = f"{route.group(1)} to {route.group(2)}"
        calls.append(call("record_fact", name="route", value=value, source="user", pinned=True))
    route = route or _ROUTE.search(facts.get("route", ""))
    constraints = list(view.constraints)
    for constraint in _constraints_in(text):
        if constraint not in constraints:
            calls.append(call("add_constraint", constraint=constraint))
            constraints.append(constraint)
    deadline = _deadline(constraints)
    if route and ROUTE_QUESTION in view.open:
        calls.append(call("resolve_open_question", question="route"))
    if deadline and ARRIVAL_QUESTION in view.open:
        calls.append(call("resolve_open_question", question="arrive"))
    if route and deadline and "flights_seen" not in facts:
        return [
            *calls,
            call("update_step", step="Collect constraints", status="done"),
            call("update_step", step="Search flights", status="doing"),
            call(
                "search_flights",
                origin=route.group(1),
                destination=route.group(2),
                date=shift_day(deadline[0], -1),  # arrive before X on day D: fly on D-1
            ),
        ]
    if not route and ROUTE_QUESTION not in view.open:
        calls.append(call("add_open_question", question=ROUTE_QUESTION))
    if not deadline and ARRIVAL_QUESTION not in view.open:
        calls.append(call("add_open_question", question=ARRIVAL_QUESTION))
    return calls or _status(request, view)


def _after_search(payload: dict[str, Any], view: _View) -> list[types.Part]:
    """Record what the search found, judged against the constraints in working memory."""
    deadline = _deadline(view.constraints) or ("", 0)
    flights = list(payload.get("flights") or [])
    reasons = {f["flight_id"]: _rejection(f, view.constraints, deadline) for f in flights}
    fitting = [f for f in flights if not reasons[f["flight_id"]]]
    rejected = ", ".join(f"{fid} {why}" for fid, why in reasons.items() if why) or "none"
    summary = (
        f"{len(flights)} flights {payload.get('origin')} to {payload.get('destination')} "
        f"on {payload.get('date')}, matching every constraint: {len(fitting)}; rejected: {rejected}"
    )
    calls = [call("record_fact", name="flights_seen", value=summary, source="search_flights")]
    if not fitting:
        question = "No flight meets every constraint: which one may be relaxed?"
        return [*calls, call("add_open_question", question=question)]
    best = min(fitting, key=lambda f: f.get("fare_usd", 0))
    option = (
        f"{best['flight_id']} departs {best['departs']}, arrives {best['arrives']}, "
        f"aisle seat free, {best['fare_usd']} USD"
    )
    return [
        *calls,
        call(
            "record_fact",
            name="best_flight",
            value=best["flight_id"],
            source="search_flights",
            pinned=True,
        ),
        call("record_fact", name="best_option", value=option, source="search_flights"),
        call("update_step", step="Search flights", status="done"),
        call("update_step", step="Hold seat", status="todo"),
    ]


def _after_hold(payload: dict[str, Any]) -> list[types.Part] | str:
    if payload.get("status") != "held":
        return f"{OFFLINE} The hold failed ({payload.get('message', 'unknown error')})."
    held = (
        f"{payload['flight_id']} seat {payload['seat']} ({payload['seat_type']}), "
        f"hold {payload['hold_ref']}"
    )
    return [
        call("record_fact", name="held_seat", value=held, source="hold_seat", pinned=True),
        call("update_step", step="Hold seat", status="done"),
        call("update_step", step="Confirm with traveller", status="doing"),
    ]


def _after_booking(payload: dict[str, Any], view: _View) -> list[types.Part] | str:
    """Only a confirmed booking rebooks the traveller; a failed one leaves the hold."""
    if payload.get("status") != "booked":
        return f"{OFFLINE} The booking failed ({payload.get('message', 'unknown error')})."
    booked = f"{payload['flight_id']}, booking {payload['booking_ref']}"
    return [
        call("record_fact", name="booking", value=booked, source="book_seat", pinned=True),
        call("update_step", step="Book seat", status="done"),
        call("update_step", step="Confirm with traveller", status="done"),
        call("complete_task", summary=f"Rebooked on {booked}"),
    ]


def _status(request: LlmRequest, view: _View) -> str:
    """A reply built from working memory (what a model says once its tool calls are done)."""
    if not view.goal:
        booked = _latest_response(request, "book_seat")
        held = _latest_response(request, "hold_seat")
        if booked.get("status") == "booked":
            seat = f", seat {held['seat']}" if held.get("flight_id") == booked["flight_id"] else ""
            return (
                f"{OFFLINE} Done: you are rebooked on {booked['flight_id']}{seat} "
                f"(booking {booked['booking_ref']}). Safe travels!"
            )
        return f"{OFFLINE} Nothing in progress. Tell me which flight to rebook."
    rules = "; ".join(view.constraints) or "none yet"
    facts = view.facts
    if "held_seat" in facts:
        return (
            f"{OFFLINE} Holding {facts['held_seat']}; it meets every constraint ({rules}). "
            "Shall I confirm the booking?"
        )
    if "best_option" in facts:
        return (
            f"{OFFLINE} Best fit for your constraints ({rules}): {facts['best_option']} "
            f"({facts.get('flights_seen', '')}). Shall I hold it?"
        )
    if view.open:
        return f"{OFFLINE} Noted ({rules}). {view.open[0]}"
    return f"{OFFLINE} Working on: {view.goal}. Constraints: {rules}."


def offline_rebooker_responder(request: LlmRequest) -> list[types.Part] | str:
    """Scripted behaviour: goal and constraints, search, record the best fit, hold, finish."""
    view = _read_view(request)
    responses = {r.name: dict(r.response or {}) for r in last_function_responses(request)}
    if "search_flights" in responses:
        return _after_search(responses["search_flights"], view)
    if "hold_seat" in responses:
        return _after_hold(responses["hold_seat"])
    if "book_seat" in responses:
        return _after_booking(responses["book_seat"], view)
    if responses:  # only working-memory tools ran: tell the traveller where things stand
        return _status(request, view)
    return _on_user(request, last_user_text(request), view)
