"""The question a forget request leaves pending, and the user's answer acted on.

A request that matched only weakly deletes nothing: the memories it may mean are held for the
user's answer (their ids in :data:`PENDING_FORGET_KEY`, their texts in ``temp:`` state for the
agent to show, :func:`ask_about`); the routing plugin hands the answer, in a later turn, to
:func:`settle`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from adk_memory_kit._adk_compat import context_memory_service
from adk_memory_kit.core.markers import ASKED_TEXTS_KEY, FORGET_STATE_KEY, PENDING_FORGET_KEY
from adk_memory_kit.routing.edits.entry_scores import entry_text
from adk_memory_kit.routing.edits.forget_records import forget_record, log_deletion
from adk_memory_kit.routing.edits.said_earlier import SAID_ITEM, SaidEarlier
from adk_memory_kit.routing.outcomes import RoutingOutcome
from adk_memory_kit.routing.rule import MemoryHome

if TYPE_CHECKING:
    from google.adk.agents.context import Context

logger = logging.getLogger(__name__)

#: At most this many memories are shown to the user for one confirmation.
MAX_CONFIRM = 3


def ask_about(context: Context, memories: Sequence[Any], said: Mapping[str, SaidEarlier]) -> None:
    """Hold ``memories`` (best first) for the user's answer: in session state
    (:data:`PENDING_FORGET_KEY`) a stored memory's id, or a sentence said earlier in the
    session and not stored yet as ``said:<event id>:<index>`` (``said`` maps the scored
    entries' ids to them); their texts in ``temp:`` state for this invocation
    (:data:`ASKED_TEXTS_KEY`). With none, an older question is dropped."""
    state = context.state
    items: list[tuple[str, str]] = []  # (pending item, text)
    held = state.get(PENDING_FORGET_KEY)
    if isinstance(held, dict) and held.get("invocation_id") == context.invocation_id:
        # another request of the same message asked first: both questions are one
        texts = state.get(ASKED_TEXTS_KEY) or []
        items = list(zip(held.get("ids") or [], texts, strict=False))
    for memory in memories:
        key = str(memory.id)
        if key in said:
            key = f"{SAID_ITEM}{said[key].event_id}:{said[key].index}"
        if all(key != item for item, _ in items):
            items.append((key, entry_text(memory)))
    items = items[:MAX_CONFIRM]
    if not items:
        if state.get(PENDING_FORGET_KEY):
            state[PENDING_FORGET_KEY] = None
        if state.get(ASKED_TEXTS_KEY):
            state[ASKED_TEXTS_KEY] = None
        return
    state[PENDING_FORGET_KEY] = {
        "ids": [item for item, _ in items],
        "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "invocation_id": context.invocation_id,
    }
    state[ASKED_TEXTS_KEY] = [text for _, text in items]


async def settle(context: Context, answer: bool | Sequence[int]) -> RoutingOutcome | None:
    """The user's answer to the question a forget request left pending: ``True`` deletes
    every pending memory, a list of numbers (from 1, in the order shown) those only (a
    closed forget-log row; the count in :data:`FORGET_STATE_KEY` with ``"confirmed":
    True``; a sentence not stored yet is marked in the outcome's ``earlier``, so it never
    is); ``False`` keeps them. Either way the question is closed, but not in the turn that
    asked it. ``None``: nothing was pending."""
    state = context.state
    pending = state.get(PENDING_FORGET_KEY)
    if not isinstance(pending, dict) or pending.get("invocation_id") == context.invocation_id:
        return None  # nothing asked, or asked in this very turn: the answer comes later
    state[PENDING_FORGET_KEY] = None
    ids = [i for i in pending.get("ids") or [] if isinstance(i, str)][:MAX_CONFIRM]
    if answer is not True and answer is not False:
        ids = [ids[n - 1] for n in answer if isinstance(n, int) and 0 < n <= len(ids)]
    service = context_memory_service(context)
    if answer is False or not ids:
        logger.info("forget request: the user kept what was asked about")
        state[FORGET_STATE_KEY] = {**forget_record(0, [], None), "confirmed": False}
        return RoutingOutcome(MemoryHome.FORGET, "skipped", None, "kept: the user said no")
    session = context.session
    deleted, gone, homes = 0, [], []
    earlier: list[tuple[str, int, MemoryHome]] = []
    for item in ids:
        if item.startswith(SAID_ITEM):
            event_id, _, index = item.removeprefix(SAID_ITEM).rpartition(":")
            if event_id and index.isdigit():
                earlier.append((event_id, int(index), MemoryHome.FORGET))
            continue
        if service is None:
            continue
        count = await service.delete_memory(
            app_name=session.app_name, user_id=session.user_id, memory_id=item
        )
        if count:
            deleted += count
            gone.append(item)
    if deleted:
        homes.append("long_term")
    if earlier:
        homes.append("this_session")
    total = deleted + len(earlier)
    state[FORGET_STATE_KEY] = {**forget_record(total, homes, None), "confirmed": True}
    if deleted:
        await log_deletion(service, session, gone, homes, deleted)
    logger.info("forget request: %d item(s) deleted as the user confirmed", total)
    return RoutingOutcome(
        MemoryHome.FORGET, "forgotten", None, f"{total} deleted", earlier=tuple(earlier)
    )
