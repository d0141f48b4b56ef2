"""Relative dates in what the user said, resolved against the time it was said.

"I was in Lisbon last Tuesday", read a month later, must still mean that Tuesday. When a fact
is extracted, :func:`resolve_relative_dates` annotates each relative phrase with its calendar
date (``last Tuesday (2026-11-24)``) and returns the first date, which the extractors use as
the fact's ``valid_from`` (when it was true in the world).

Handled (case-insensitive): ``today``, ``tonight``, ``yesterday``, ``tomorrow``,
``last|this|next <weekday>``, ``last|this|next week|month|year``, ``<n> days|weeks|months|years
ago`` and ``in <n> days|weeks|months|years``. Weeks start on Monday; ``last/next month`` is
the first day of that month. The patterns are linear-time (no nested quantifiers).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_UNITS = "day|week|month|year"
_PATTERN = re.compile(
    r"\b(?:(?P<word>today|tonight|yesterday|tomorrow)"
    r"|(?P<rel>last|this|next)\s+(?P<what>" + "|".join(_WEEKDAYS) + "|" + _UNITS + r")"
    r"|(?P<n>\d{1,3})\s+(?P<unit>" + _UNITS + r")s?\s+ago"
    r"|in\s+(?P<n2>\d{1,3})\s+(?P<unit2>" + _UNITS + r")s?)\b"
    r"(?!\s*\(\d{4}-\d{2}-\d{2}\))",
    re.IGNORECASE,
)


def _add_months(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _shift(day: date, unit: str, n: int) -> date:
    unit = unit.lower()
    if unit == "day":
        return day + timedelta(days=n)
    if unit == "week":
        return day + timedelta(weeks=n)
    if unit == "month":
        return _add_months(day, n)
    return date(day.year + n, 1, 1) if n else day


def _resolve(match: re.Match[str], today: date) -> date:
    word = (match.group("word") or "").lower()
    if word in ("today", "tonight"):
        return today
    if word == "yesterday":
        return today - timedelta(days=1)
    if word == "tomorrow":
        return today + timedelta(days=1)
    if match.group("rel"):
        rel, what = match.group("rel").lower(), match.group("what").lower()
        if what in _WEEKDAYS:
            target = _WEEKDAYS.index(what)
            if rel == "last":
                back = (today.weekday() - target) % 7 or 7
                return today - timedelta(days=back)
            if rel == "next":
                ahead = (target - today.weekday()) % 7 or 7
                return today + timedelta(days=ahead)
            return today + timedelta(days=target - today.weekday())
        step = {"last": -1, "this": 0, "next": 1}[rel]
        if what == "week":
            monday = today - timedelta(days=today.weekday())
            return monday + timedelta(weeks=step)
        if what == "month":
            return _add_months(today, step)
        return date(today.year + step, 1, 1)
    if match.group("n"):
        return _shift(today, match.group("unit"), -int(match.group("n")))
    return _shift(today, match.group("unit2"), int(match.group("n2")))


def resolve_relative_dates(text: str, reference: datetime | None) -> tuple[str, date | None]:
    """``text`` with each relative date annotated, and the first resolved date.

    Without a ``reference`` time nothing is resolved (the text comes back unchanged).
    """
    if reference is None or not text:
        return text, None
    today = reference.date()
    first: date | None = None
    parts: list[str] = []
    last = 0
    for match in _PATTERN.finditer(text):
        resolved = _resolve(match, today)
        first = first or resolved
        parts.append(text[last : match.end()])
        parts.append(f" ({resolved.isoformat()})")
        last = match.end()
    if first is None:
        return text, None
    parts.append(text[last:])
    return "".join(parts), first
