"""Printing helpers for the demo: headings, turns, tool calls and state."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterable
from typing import Any

from google.adk.events.event import Event


def heading(title: str) -> None:
    print(f"\n{'=' * 78}\n{title}\n{'=' * 78}", flush=True)


def step(text: str) -> None:
    print(f"\n-- {text}", flush=True)


def note(text: str, indent: int = 3) -> None:
    pad = " " * indent
    print(textwrap.fill(text, width=78, initial_indent=pad, subsequent_indent=pad), flush=True)


def _short(value: Any, limit: int = 90) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def show_events(events: Iterable[Event]) -> None:
    """One line per tool call and per reply."""
    for event in events:
        for part in (event.content.parts if event.content else None) or []:
            if part.function_call:
                args = ", ".join(
                    f"{k}={_short(v, 60)}" for k, v in (part.function_call.args or {}).items()
                )
                print(f"   [tool call] {part.function_call.name}({args})")
            elif part.function_response:
                print(
                    f"   [tool result] {part.function_response.name} -> "
                    f"{_short(part.function_response.response)}"
                )
            elif part.text and not part.thought and event.author != "user":
                for line in textwrap.wrap(part.text, 74) or [""]:
                    print(f"   {event.author}> {line}")


def show_table(rows: list[tuple[Any, ...]], header: tuple[str, ...]) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]
    line = "   " + "  ".join(str(h).ljust(w) for h, w in zip(header, widths, strict=True))
    print(line)
    print("   " + "  ".join("-" * w for w in widths))
    for row in rows:
        print("   " + "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)))
