"""Per-model-call token accounting for the pruning layer."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from typing import Any

from adk_memory_kit.core.validation import check_positive_int

STATE_KEY = "temp:adk_memory_kit.pruning"
"""``temp:`` state key holding the current model call's record (never persisted)."""

METADATA_KEY = "adk_memory_kit.pruning"

LAST_STATE_KEY = "adk_memory_kit:pruning:last"
"""Session state key (persisted, no ``temp:`` prefix): what the newest model call pruned.

A compact dict: ``call``, ``at`` (ISO-8601 UTC), ``tokens_before``, ``tokens_after``,
``pruned_parts`` and ``pruned`` (the tool names whose payloads became tombstones), so the dev
UI's State tab shows the pruner's work without opening a raw request."""
"""Key of the record in the model response event's ``custom_metadata`` (persisted)."""


@dataclass
class PruningRecord:
    """Token figures for one model call."""

    call: int
    """Sequence number of the call within its report (1-based)."""
    tokens_before: int
    """Estimated request tokens before pruning."""
    tokens_after: int
    """Estimated request tokens after pruning (what was sent)."""
    pruned_parts: int
    """Function responses replaced by tombstones."""
    contents: int
    """Number of contents in the request."""
    threshold_crossed: bool | None = None
    """Threshold mode only: whether this call moved the pruning boundary."""
    session_id: str | None = None
    invocation_id: str | None = None
    agent_name: str | None = None
    prompt_tokens: int | None = None
    """Prompt tokens reported by the model (``usage_metadata``), when available."""
    cached_tokens: int | None = None
    """Cached prompt tokens reported by the model, when available."""
    elapsed_ms: float | None = None
    """Time the pruning callback took."""

    @property
    def saved_tokens(self) -> int:
        """Estimated tokens removed from this request."""
        return self.tokens_before - self.tokens_after

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of all fields."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PruningRecord:
        """Rebuild a record from :meth:`to_dict` output, ignoring unknown keys."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


class PruningReport:
    """A bounded, in-memory log of :class:`PruningRecord` objects."""

    def __init__(self, max_records: int = 10_000) -> None:
        check_positive_int("max_records", max_records)
        self._records: deque[PruningRecord] = deque(maxlen=max_records)
        self._counter = itertools.count(1)

    def next_call(self) -> int:
        """Reserve the next call number."""
        return next(self._counter)

    def add(self, record: PruningRecord) -> PruningRecord:
        """Append ``record`` (the oldest record drops out when full)."""
        self._records.append(record)
        return record

    def find(self, call: int) -> PruningRecord | None:
        """The record with sequence number ``call``, if still held."""
        for record in reversed(self._records):
            if record.call == call:
                return record
        return None

    def records(self, session_id: str | None = None) -> list[PruningRecord]:
        """All held records, oldest first, optionally for one session."""
        if session_id is None:
            return list(self._records)
        return [r for r in self._records if r.session_id == session_id]

    def clear(self) -> None:
        """Drop every record."""
        self._records.clear()

    def __len__(self) -> int:
        return len(self._records)

    def to_dicts(self, session_id: str | None = None) -> list[dict[str, Any]]:
        """Records as JSON-ready dicts."""
        return [r.to_dict() for r in self.records(session_id)]

    def format_table(self, session_id: str | None = None) -> str:
        """A Markdown table of tokens before/after per call (the growth curve)."""
        return format_records(self.records(session_id))

    @classmethod
    def from_events(cls, events: Iterable[Any]) -> PruningReport:
        """Rebuild a report from stored session events' ``custom_metadata``.

        Works for any session service, because the figures travel on the model
        response events; ``prompt_tokens`` comes from each event's ``usage_metadata``.
        """
        report = cls()
        for event in events:
            data = (getattr(event, "custom_metadata", None) or {}).get(METADATA_KEY)
            if not isinstance(data, dict):
                continue
            record = PruningRecord.from_dict({**data, "call": report.next_call()})
            usage = getattr(event, "usage_metadata", None)
            if usage is not None and record.prompt_tokens is None:
                record.prompt_tokens = usage.prompt_token_count
                record.cached_tokens = usage.cached_content_token_count
            report.add(record)
        return report


def format_records(records: Iterable[PruningRecord]) -> str:
    """Render records as a Markdown table."""
    lines = [
        "| call | agent | contents | tokens before | tokens after | saved | pruned"
        " | model prompt |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in records:
        prompt = "" if r.prompt_tokens is None else str(r.prompt_tokens)
        lines.append(
            f"| {r.call} | {r.agent_name or ''} | {r.contents} | {r.tokens_before} | "
            f"{r.tokens_after} | {r.saved_tokens} | {r.pruned_parts} | {prompt} |"
        )
    return "\n".join(lines)
