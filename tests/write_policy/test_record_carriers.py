"""Where the routing and recall records ride: event metadata, never the session state."""

from __future__ import annotations

from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions

from adk_memory_kit.routing.records import (
    RECALL_RECORD_KEY,
    ROUTING_RECORD_KEY,
    ROUTING_STATE_KEY,
    attach_pending_records,
    event_record,
)

ROUTING = {"v": 1, "routed_events": ["e1"], "sentences": {}}
RECALL = {"v": 1, "stems": ["ab12"]}


def test_pending_records_move_to_metadata_and_other_state_stays():
    event = Event(
        author="concierge",
        custom_metadata={"adk_memory_kit.pruning": {"call": 1}},
        actions=EventActions(
            state_delta={
                f"temp:{ROUTING_RECORD_KEY}": ROUTING,
                f"temp:{RECALL_RECORD_KEY}": RECALL,
                "user:pref_diet": "vegan",
                "temp:other": 1,
            }
        ),
    )
    assert attach_pending_records(event)
    assert event.actions.state_delta == {"user:pref_diet": "vegan", "temp:other": 1}
    assert event.custom_metadata == {
        "adk_memory_kit.pruning": {"call": 1},
        ROUTING_RECORD_KEY: ROUTING,
        RECALL_RECORD_KEY: RECALL,
    }
    assert event_record(event, ROUTING_RECORD_KEY) == ROUTING
    assert event_record(event, RECALL_RECORD_KEY) == RECALL


def test_streamed_chunks_sharing_actions_each_get_the_record():
    shared = EventActions(state_delta={f"temp:{RECALL_RECORD_KEY}": RECALL})
    first, last = (Event(author="a", partial=p, actions=shared) for p in (True, False))
    assert attach_pending_records(first) and attach_pending_records(last)
    for chunk in (first, last):
        assert chunk.custom_metadata == {RECALL_RECORD_KEY: RECALL}
        assert chunk.actions.state_delta == {}
    assert shared.state_delta == {f"temp:{RECALL_RECORD_KEY}": RECALL}  # ADK's own untouched


def test_an_event_without_records_is_left_alone():
    event = Event(author="a", actions=EventActions(state_delta={"wm": {"goal": "x"}}))
    actions = event.actions
    assert not attach_pending_records(event)
    assert event.actions is actions and event.custom_metadata is None
    assert event_record(event, ROUTING_RECORD_KEY) is None


def test_records_are_read_from_metadata_the_callback_key_and_older_sessions():
    by_key = Event(author="a", actions=EventActions(state_delta={ROUTING_STATE_KEY: ROUTING}))
    legacy = Event(
        author="a",
        actions=EventActions(
            state_delta={"_adk_memory_kit_routing": ROUTING, "_adk_memory_kit_recall": RECALL}
        ),
    )
    assert event_record(by_key, ROUTING_RECORD_KEY) == ROUTING
    assert event_record(by_key, RECALL_RECORD_KEY) is None  # the session key is routing's only
    assert event_record(legacy, ROUTING_RECORD_KEY) == ROUTING
    assert event_record(legacy, RECALL_RECORD_KEY) == RECALL
    newer = {**ROUTING, "v": 2}
    both = Event(
        author="a",
        custom_metadata={ROUTING_RECORD_KEY: newer},
        actions=EventActions(state_delta={"_adk_memory_kit_routing": ROUTING}),
    )
    assert event_record(both, ROUTING_RECORD_KEY) == newer  # metadata first
