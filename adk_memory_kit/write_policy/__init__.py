"""The write policy: one decision, applied on every path that writes a session to memory.

See :mod:`adk_memory_kit.write_policy.policy` and docs/write_policy.md.
"""

from adk_memory_kit.routing.records import (
    RECALL_RECORD_KEY,
    ROUTING_RECORD_KEY,
    ROUTING_STATE_KEY,
    RoutingDecisions,
    attach_pending_records,
    event_record,
    session_recall_stems,
    write_recall_record,
    write_routing_record,
)
from adk_memory_kit.write_policy.policy import (
    NEVER_STORED,
    RoutedOptions,
    SentenceVerdict,
    WritePolicy,
    resolve_policy,
    select_events,
)

__all__ = [
    "NEVER_STORED",
    "RECALL_RECORD_KEY",
    "ROUTING_RECORD_KEY",
    "ROUTING_STATE_KEY",
    "RoutedOptions",
    "RoutingDecisions",
    "SentenceVerdict",
    "WritePolicy",
    "attach_pending_records",
    "event_record",
    "resolve_policy",
    "select_events",
    "session_recall_stems",
    "write_recall_record",
    "write_routing_record",
]
