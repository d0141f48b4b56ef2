"""Moved: the write policy lives with the router (``adk_memory_kit.routing.write_policy``,
``adk_memory_kit.routing.records``; ``WritePolicy`` in ``adk_memory_kit``). These names keep
working for one release, each with a ``DeprecationWarning`` naming its new home."""

from adk_memory_kit.core.deprecation import moved_names

_POLICY = "adk_memory_kit.routing.write_policy"
_RECORDS = "adk_memory_kit.routing.records"

__getattr__ = moved_names(
    __name__,
    {
        "NEVER_STORED": _POLICY,
        "RoutedOptions": _POLICY,
        "SentenceVerdict": _POLICY,
        "WritePolicy": "adk_memory_kit.core.session_policy",
        "resolve_policy": "adk_memory_kit.core.session_policy",
        "select_events": _POLICY,
        "RECALL_RECORD_KEY": _RECORDS,
        "ROUTING_RECORD_KEY": _RECORDS,
        "ROUTING_STATE_KEY": _RECORDS,
        "RoutingDecisions": _RECORDS,
        "attach_pending_records": _RECORDS,
        "event_record": _RECORDS,
        "session_recall_stems": _RECORDS,
        "write_recall_record": _RECORDS,
        "write_routing_record": _RECORDS,
    },
)
