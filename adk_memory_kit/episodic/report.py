"""Plain-text renderings of the log for people: a session timeline and a cost table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adk_memory_kit.episodic.entry import LogEntry
from adk_memory_kit.episodic.store import CostLine, CostSummary

_PREVIEW = 70


def _short(value: Any, limit: int = _PREVIEW) -> str:
    text = value if isinstance(value, str) else _compact(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _compact(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def money(cost: float | None, unpriced: int = 0) -> str:
    """``$0.001234``; ``unknown`` when nothing was priced; a note when some calls were not."""
    if cost is None:
        return "unknown" if unpriced else "$0"
    shown = f"${cost:.6f}" if cost < 1 else f"${cost:,.2f}"
    return f"{shown} (+{unpriced} unpriced)" if unpriced else shown


def _tokens(entry: LogEntry) -> str:
    if entry.input_tokens is None and entry.output_tokens is None:
        return ""
    mark = " est." if entry.tokens_estimated else ""
    return f"{entry.input_tokens or 0:,} in / {entry.output_tokens or 0:,} out tok{mark}"


def describe(entry: LogEntry) -> str:
    """One line of detail for an entry (from its stored, redacted payload)."""
    payload = entry.payload if isinstance(entry.payload, dict) else {}
    if payload.get("truncated"):
        return f"payload truncated ({payload.get('size', 0):,} bytes)"
    parts: list[str] = []
    if entry.kind == "model_call":
        parts.append(_tokens(entry))
        parts.append(money(entry.cost_usd, 1 if entry.cost_usd is None else 0))
        calls = payload.get("function_calls") or []
        if calls:
            parts.append("calls " + ", ".join(str(c.get("name")) for c in calls))
        elif payload.get("text"):
            parts.append(repr(_short(payload["text"], 50)))
    elif entry.kind == "tool_call":
        parts.append(f"args {_short(payload.get('args', {}), 40)}")
        parts.append(f"-> {_short(payload.get('result'), 40)}")
    elif entry.kind in ("tool_error", "error"):
        parts.append(f"FAILED {entry.error_type or entry.error_code or 'error'}")
        if payload.get("where"):
            parts.append(f"in {payload['where']}")
    elif entry.kind == "state_delta":
        parts.append("keys " + ", ".join(sorted((payload.get("delta") or {}).keys())))
    elif entry.kind == "transfer":
        parts.append(f"-> {entry.name}")
    elif entry.kind == "user_message":
        parts.append(repr(_short(payload.get("text", ""), 60)))
    else:
        parts.append(_short(payload, 60))
    if entry.error_code and entry.kind == "model_call":
        parts.append(f"error code {entry.error_code}")
    if entry.latency_ms is not None:
        parts.append(f"{entry.latency_ms:,.0f} ms")
    return " | ".join(p for p in parts if p)


def format_timeline(entries: Sequence[LogEntry]) -> str:
    """A readable timeline: one block per invocation, one line per entry."""
    if not entries:
        return "(no entries)"
    lines: list[str] = []
    invocation = None
    for e in entries:
        if e.invocation_id != invocation:
            invocation = e.invocation_id
            lines.append(f"invocation {invocation or '-'}  ({e.time:%Y-%m-%d %H:%M:%S %Z})")
        lines.append(
            f"  {e.seq:>4}  {e.time:%H:%M:%S.%f}"[:-3]
            + f"  {e.agent[:14]:<14} {e.kind:<14} {e.name[:22]:<22} {describe(e)}"
        )
    model = [e for e in entries if e.kind == "model_call"]
    priced = [e.cost_usd for e in model if e.cost_usd is not None]
    unpriced = len(model) - len(priced)
    lines.append(
        f"{len(entries)} entries, {len(model)} model calls, "
        f"{sum(e.input_tokens or 0 for e in model):,} in / "
        f"{sum(e.output_tokens or 0 for e in model):,} out tokens, "
        f"cost {money(sum(priced) if priced else None, unpriced)}"
    )
    return "\n".join(lines)


def _table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    out = ["  ".join(str(c).ljust(w) for c, w in zip(header, widths, strict=True))]
    out.append("  ".join("-" * w for w in widths))
    out += ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(out)


def format_costs(summary: CostSummary) -> str:
    """The cost summary as one table: the total, then by model, agent, user and session."""
    header = ("group", "key", "model calls", "tool calls", "input tok", "output tok", "cost")

    def row(group: str, line: CostLine) -> tuple[str, ...]:
        est = f" ({line.estimated_calls} est.)" if line.estimated_calls else ""
        return (
            group,
            str(line.key) if line.key is not None else "-",
            f"{line.model_calls:,}{est}",
            f"{line.tool_calls:,}",
            f"{line.input_tokens:,}",
            f"{line.output_tokens:,}",
            money(line.cost_usd, line.unpriced_calls),
        )

    rows = [row("total", summary.total)]
    for group, lines in (
        ("model", summary.by_model),
        ("agent", summary.by_agent),
        ("user", summary.by_user),
        ("session", summary.by_session),
    ):
        rows += [row(group, line) for line in lines]
    return _table(rows, header)
