"""The rebooker's tools: offline, deterministic stand-ins for a booking API.

``hold_seat`` only holds a seat; the traveller is rebooked only when ``book_seat`` confirms
that hold (the agent calls it after the traveller says yes).
"""

from __future__ import annotations

import hashlib
import re
from datetime import date as _date
from datetime import timedelta
from typing import Any

_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_AIRLINES = ("KX", "QV", "TB")
# departs, arrives, arrives the next day, red-eye, aisle seat free, fare (USD)
_SCHEDULE = (
    ("06:15", "14:45", False, False, True, 420),
    ("09:40", "18:05", False, False, False, 405),
    ("13:05", "21:40", False, False, False, 389),
    ("22:30", "06:59", True, True, True, 259),
)
_SEAT_LETTERS = {"aisle": "C", "window": "A", "middle": "B"}


def _seed(*parts: str) -> int:
    return int(hashlib.sha256("|".join(parts).encode()).hexdigest()[:8], 16)


def weekday(text: str) -> str | None:
    """The full weekday name in ``text`` ('fri' and 'Friday' give 'Friday'), if any."""
    for day in _DAYS:
        if re.search(rf"\b{day[:3]}(?:{day[3:]})?\b", text, re.IGNORECASE):
            return day
    return None


def shift_day(day: str, by: int) -> str:
    """``day`` moved by ``by`` days: a weekday name or an ISO date (else ``day +N``)."""
    name = weekday(day)
    if name:
        return _DAYS[(_DAYS.index(name) + by) % 7]
    try:
        return (_date.fromisoformat(day.strip()) + timedelta(days=by)).isoformat()
    except ValueError:
        return f"{day.strip()} {by:+d} day"


def search_flights(origin: str, destination: str, date: str) -> dict[str, Any]:
    """Search nonstop flights from origin to destination departing on date.

    Args:
        origin: departure airport code, e.g. SFO.
        destination: arrival airport code, e.g. JFK.
        date: departure day, a weekday name (Thursday) or an ISO date (2025-11-13).
    """
    origin, destination = origin.strip().upper(), destination.strip().upper()
    day = weekday(date) or date.strip()
    if not (origin and destination and day):
        return {"error": "origin, destination and date are all required"}
    seed = _seed(origin, destination, day)
    flights = []
    for index, (departs, arrives, next_day, red_eye, aisle, fare) in enumerate(_SCHEDULE):
        number = 100 + (seed >> index) % 800
        flights.append(
            {
                "flight_id": f"{_AIRLINES[(seed + index) % 3]}{number}",
                "departs": f"{day} {departs}",
                "arrives": f"{shift_day(day, 1) if next_day else day} {arrives}",
                "red_eye": red_eye,
                "aisle_seat_free": aisle,
                "fare_usd": fare + seed % 17,
            }
        )
    return {"origin": origin, "destination": destination, "date": day, "flights": flights}


def hold_seat(flight_id: str, seat_type: str = "aisle") -> dict[str, Any]:
    """Hold a seat on a flight for 30 minutes; nothing is charged until the booking is confirmed.

    Args:
        flight_id: the flight, as returned by search_flights (e.g. KX214).
        seat_type: aisle, window or middle.
    """
    flight = flight_id.strip().upper()
    kind = seat_type.strip().lower()
    if not re.fullmatch(r"[A-Z]{2}\d{2,4}", flight):
        return {"status": "error", "message": f"unknown flight id {flight_id!r}"}
    if kind not in _SEAT_LETTERS:
        return {"status": "error", "message": "seat_type must be aisle, window or middle"}
    seed = _seed(flight, kind)
    return {
        "status": "held",
        "flight_id": flight,
        "seat": f"{8 + seed % 20}{_SEAT_LETTERS[kind]}",
        "seat_type": kind,
        "hold_ref": f"H{seed % 0xFFFFFF:06X}",
        "expires_in_minutes": 30,
    }


def book_seat(flight_id: str, hold_ref: str) -> dict[str, Any]:
    """Book the seat held by hold_seat: the traveller is rebooked only once this succeeds.

    Args:
        flight_id: the held flight (e.g. KX214).
        hold_ref: the hold reference hold_seat returned (e.g. H1A2B3C).
    """
    flight = flight_id.strip().upper()
    ref = hold_ref.strip().upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2,4}", flight):
        return {"status": "error", "message": f"unknown flight id {flight_id!r}"}
    if not re.fullmatch(r"H[0-9A-F]{6}", ref):
        return {"status": "error", "message": "hold_ref must be the reference hold_seat returned"}
    seed = _seed(flight, ref)
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    booking = "".join(letters[(seed >> (5 * i)) % len(letters)] for i in range(6))
    return {"status": "booked", "flight_id": flight, "hold_ref": ref, "booking_ref": booking}
