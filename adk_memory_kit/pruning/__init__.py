"""Context pruning: tool-payload tombstones, a callback and a plugin, with token accounting."""

from __future__ import annotations

from adk_memory_kit.pruning.callback import PruneStaleToolPayloads
from adk_memory_kit.pruning.core import PruningOutcome, prune_contents
from adk_memory_kit.pruning.plugin import ToolPayloadPruningPlugin
from adk_memory_kit.pruning.report import (
    LAST_STATE_KEY,
    METADATA_KEY,
    STATE_KEY,
    PruningRecord,
    PruningReport,
    format_records,
)
from adk_memory_kit.pruning.tokens import (
    estimate_content_tokens,
    estimate_part_tokens,
    estimate_request_tokens,
    estimate_text_tokens,
)
from adk_memory_kit.pruning.tombstones import PrunedPayload, default_tombstone

__all__ = [
    "METADATA_KEY",
    "LAST_STATE_KEY",
    "STATE_KEY",
    "PrunedPayload",
    "PruneStaleToolPayloads",
    "PruningOutcome",
    "PruningRecord",
    "PruningReport",
    "ToolPayloadPruningPlugin",
    "default_tombstone",
    "estimate_content_tokens",
    "estimate_part_tokens",
    "estimate_request_tokens",
    "estimate_text_tokens",
    "format_records",
    "prune_contents",
]
