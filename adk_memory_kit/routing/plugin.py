"""The end-of-turn router: extract candidates from the finished turn, route and apply them.

Use it as a Runner plugin (every agent of the app) or as one agent's ``after_agent_callback``:

    app = App(..., plugins=[MemoryRoutingPlugin(RuleBasedExtractor(), applier)])
    agent = LlmAgent(..., after_agent_callback=memory_routing_callback(extractor, applier))

State writes made here are recorded in the event the callback produces, so the session service
persists ``user:`` and session keys as usual (``temp:`` keys are never persisted). A failing
extractor or store never breaks the turn: it is logged and the turn completes.

The kit's own bookkeeping (the routing and recall records the write policy reads) goes into the
events' ``custom_metadata`` when the plugin is used, never into the session state; the
agent-callback form writes one documented key instead (see :mod:`.records`).
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import TYPE_CHECKING, Any

from google.adk.plugins.base_plugin import BasePlugin
from typing_extensions import override

from adk_memory_kit.core.db_errors import contained_doors, describe, translates_db_errors
from adk_memory_kit.core.markers import ASKED_TEXTS_KEY, FORGET_STATE_KEY, PENDING_FORGET_KEY
from adk_memory_kit.routing.apply import MemoryApplier
from adk_memory_kit.routing.edits.confirmations import chosen_items
from adk_memory_kit.routing.edits.forget_notes import answer_note, combined_record, request_note
from adk_memory_kit.routing.edits.forget_requests import asks_to_forget, may_ask_to_forget
from adk_memory_kit.routing.extractors import Extractor, event_text, turn_events
from adk_memory_kit.routing.outcomes import RECORDING_EARLIER, RoutingOutcome
from adk_memory_kit.routing.records import (
    asks_for_a_lookup,
    lookup_query_stems,
    record_shown_memories,
)
from adk_memory_kit.routing.rule import MemoryHome
from adk_memory_kit.routing.side_calls import ROUTING_CONTEXT
from adk_memory_kit.text.sentences import split_sentences

if TYPE_CHECKING:
    from google.adk.agents.base_agent import BaseAgent
    from google.adk.agents.context import Context
    from google.adk.agents.invocation_context import InvocationContext
    from google.adk.events.event import Event
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.genai import types

logger = logging.getLogger(__name__)

OutcomeHook = Callable[[list[RoutingOutcome]], None]


@translates_db_errors("route_turn")
async def route_turn(
    context: Context,
    extractor: Extractor,
    applier: MemoryApplier,
    events: Sequence[Event] | None = None,
    *,
    pending_record: bool = False,
    applied_early: Sequence[RoutingOutcome] = (),
    early_requests: Collection[str] = (),
) -> list[RoutingOutcome]:
    """Extract from this invocation's events (or ``events``) and apply; never raises.

    ``pending_record``: leave the routing record for :class:`MemoryRoutingPlugin`'s event hook
    to move into the event's metadata (only with the plugin installed); otherwise it is written
    under the session key ``ROUTING_STATE_KEY``. ``early_requests``: the texts of forget
    requests already acted on before the reply (their outcomes ``applied_early``): recorded,
    never applied twice.
    """
    if events is None:
        events = turn_events(context.session, context.invocation_id)
    if not events:
        return []
    token = ROUTING_CONTEXT.set(context)  # the extractor's own model call is logged with it
    try:
        candidates = await extractor.extract(events)
    except Exception as exc:
        logger.warning("memory routing: extraction failed (%s)", describe(exc))
        return []
    finally:
        ROUTING_CONTEXT.reset(token)
    # a lasting "fact" the agent then looked up was a request for that work (the router
    # reads a sentence alone; the turn shows what the agent did with it)
    looked_up = lookup_query_stems(events).get(context.invocation_id or "", set())
    candidates = [
        c
        for c in candidates
        if not (
            c.needed_in_future_sessions
            and not c.exact_value
            and asks_for_a_lookup(c.text, looked_up)
        )
    ]
    fresh = [c for c in candidates if not (c.forget_request and c.text in early_requests)]
    recording = RECORDING_EARLIER.set(True)  # this turn's record carries outcomes' `earlier`
    try:
        outcomes = await applier.apply(fresh, context) if fresh else []
    finally:
        RECORDING_EARLIER.reset(recording)
    _record_decisions(
        context, events, candidates, applier, pending_record, [*applied_early, *outcomes]
    )
    return outcomes


def _record_decisions(
    context: Context,
    events: Sequence[Event],
    candidates: Sequence,
    applier: MemoryApplier,
    pending: bool,
    outcomes: Sequence[RoutingOutcome] = (),
) -> None:
    """Write-policy hook: record where each sentence went, on the turn's own events (and
    the earlier sentences an outcome gave a home, ``RoutingOutcome.earlier``)."""
    from adk_memory_kit.routing.records import write_routing_record

    try:
        decided = [(c, applier.classify(c)[1]) for c in candidates]
        earlier = [where for o in outcomes for where in o.earlier]
        write_routing_record(context, events, decided, pending=pending, earlier=earlier)
    except Exception as exc:  # the record is best effort; ingestion then re-classifies
        logger.warning("memory routing: could not record decisions (%s)", type(exc).__name__)


def _default_extractor() -> Extractor:
    from adk_memory_kit.routing.offline import shared_learned_extractor

    return shared_learned_extractor()


class TurnRouter:
    """Routes each event of a turn exactly once, however many agents end during the turn.

    In ADK a turn can end in a sub-agent (after a transfer the next turns start there), and
    a workflow agent's children finish before it does. So routing runs after *every* agent
    and takes only the events of this invocation it has not routed yet.
    """

    def __init__(
        self,
        extractor: Extractor,
        applier: MemoryApplier,
        *,
        remember: int = 512,
        pending_record: bool = False,
    ):
        self.extractor = extractor
        self.applier = applier
        self.pending_record = pending_record
        self._routed: OrderedDict[str, set[str]] = OrderedDict()
        self._early: OrderedDict[str, list[RoutingOutcome]] = OrderedDict()
        self._early_texts: dict[str, set[str]] = {}
        self._replied: OrderedDict[str, None] = OrderedDict()
        self._remember = remember

    def _remembered(self, table: OrderedDict[str, Any], invocation_id: str, empty: Any) -> Any:
        entry = table.setdefault(invocation_id, empty)
        table.move_to_end(invocation_id)
        while len(table) > self._remember:
            gone, _ = table.popitem(last=False)
            self._early_texts.pop(gone, None)
        return entry

    async def __call__(self, context: Context) -> list[RoutingOutcome]:
        routed = self._remembered(self._routed, context.invocation_id, set())
        fresh = [
            e
            for e in turn_events(context.session, context.invocation_id)
            if e.id not in routed and not e.partial
        ]
        routed.update(e.id for e in fresh)
        early = self._early.pop(context.invocation_id, [])
        return await route_turn(
            context,
            self.extractor,
            self.applier,
            fresh,
            pending_record=self.pending_record,
            applied_early=early,
            early_requests=self._early_texts.pop(context.invocation_id, set()),
        )

    @translates_db_errors("before_reply")
    async def before_reply(self, context: Context) -> tuple[list[str], list[RoutingOutcome]]:
        """Act, before the model replies, on what the user's message asks of their memory:
        an answer to a question a forget request left pending (settled by the applier's
        ``confirmation_handler``), then its requests to forget when that is all it says
        (applied now, and left out when the turn is routed at its end; a message that also
        states something is applied in order at the end of the turn). Returns the notes for
        the model (:mod:`.forget_notes`) and the outcomes; once per invocation."""
        if context.invocation_id in self._replied:
            return [], []  # another agent's model call in the same turn: acted on already
        self._remembered(self._replied, context.invocation_id, None)
        early = self._remembered(self._early, context.invocation_id, [])
        said = [
            e
            for e in turn_events(context.session, context.invocation_id)
            if e.author == "user" and not e.partial
        ]
        text = " ".join(event_text(e) for e in said).strip()
        if not text:
            return [], []
        sentences = [
            (e.id, i, sentence)
            for e in said
            for i, sentence in enumerate(split_sentences(event_text(e)))
        ]
        notes: list[str] = []
        settle = self.applier.confirmation_handler
        pending = context.state.get(PENDING_FORGET_KEY)
        if settle is not None and isinstance(pending, dict):
            # a question the model never showed (asked at the end of a turn that also said
            # something) is closed unanswered: nothing the user did not see is deleted
            shown = pending.get("shown") is True
            answer = chosen_items(text, len(pending.get("ids") or [])) if shown else None
            settled = await settle(context, False if answer is None else answer)
            if settled is not None:
                early.append(settled)
            if settled is not None and answer is not None:
                # the answer itself ("The first one.") is about the question, never a memory
                answered = tuple((at, i, MemoryHome.FORGET) for at, i, _ in sentences)
                early.append(
                    RoutingOutcome(
                        MemoryHome.FORGET, "skipped", None, "an answer", earlier=answered
                    )
                )
                record = context.state.get(FORGET_STATE_KEY) or {}
                if note := answer_note(int(record.get("deleted") or 0), answer):
                    notes.append(note)
        # with a model as the extractor, only a request the grammar reads is acted on early
        # (no second model call per turn); the rest waits for the end of the turn
        offline = getattr(self.extractor, "runs_offline", False) is True
        maybe = (
            may_ask_to_forget(text)
            if offline
            else any(asks_to_forget(sentence) for _, _, sentence in sentences)
        )
        if self.applier.forget_handler is None or not maybe:
            return notes, list(early)
        candidates = await self.extractor.extract(said)
        requests = [c for c in candidates if c.forget_request]
        if len(requests) != len(candidates):
            # a message that also states something ("I live in Leeds now, forget my old
            # address") is applied in order at the end of the turn, as it was said
            return notes, list(early)
        records: list[dict[str, Any]] = []
        recording = RECORDING_EARLIER.set(True)
        try:
            for request in requests:
                # each request's own record (one that is no request, "forget it, ...",
                # writes none: the previous record stays)
                previous = context.state.get(FORGET_STATE_KEY)
                context.state[FORGET_STATE_KEY] = None
                early.append(await self.applier.apply_one(request, context))
                record = context.state.get(FORGET_STATE_KEY)
                if isinstance(record, dict):
                    records.append(record)
                else:
                    context.state[FORGET_STATE_KEY] = previous
        finally:
            RECORDING_EARLIER.reset(recording)
        self._early_texts[context.invocation_id] = {c.text for c in requests}
        if records:
            asked = context.state.get(ASKED_TEXTS_KEY) or []
            asked = [t for t in asked if isinstance(t, str)]
            if note := request_note(combined_record(records), asked):
                notes.append(note)
            pending = context.state.get(PENDING_FORGET_KEY)
            if asked and isinstance(pending, dict):
                context.state[PENDING_FORGET_KEY] = {**pending, "shown": True}
            record_shown_memories(context, asked)
        return notes, list(early)


@contained_doors
class MemoryRoutingPlugin(BasePlugin):
    """Routes the facts of every turn at its end, as a Runner plugin.

    Args:
        extractor: defaults to the offline learned router (:class:`~.offline.LearnedExtractor`,
            rules as its gate); see :func:`~.choice.routing_extractor` for a model.
        applier: defaults to a :class:`MemoryApplier` with the default vocabulary, the
            conversation-edit handlers and a review queue on the memory service's database.
        agent_names: only route after these agents end (``None``: after any agent; each event
            is routed once either way).
        on_outcomes: called with the outcomes whenever something was routed (for metrics or
            tests; outcomes never contain fact text).
    """

    def __init__(
        self,
        extractor: Extractor | None = None,
        applier: MemoryApplier | None = None,
        *,
        name: str = "memory_routing",
        agent_names: Collection[str] | None = None,
        on_outcomes: OutcomeHook | None = None,
    ) -> None:
        super().__init__(name=name)
        self.router = TurnRouter(
            extractor or _default_extractor(), applier or MemoryApplier(), pending_record=True
        )
        self.agent_names = set(agent_names) if agent_names is not None else None
        self.on_outcomes = on_outcomes

    @override
    async def after_agent_callback(
        self, *, agent: BaseAgent, callback_context: Context
    ) -> types.Content | None:
        if self.agent_names is not None and agent.name not in self.agent_names:
            return None
        outcomes = await self.router(callback_context)
        if outcomes and self.on_outcomes is not None:
            self.on_outcomes(outcomes)
        return None

    @override
    async def before_model_callback(
        self, *, callback_context: Context, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Write-policy hook: record what recall preloaded, so replies restating it are known.

        Then, once per turn, a request to forget in the user's message (or their answer to a
        question one left pending) is acted on before the model replies, and the model is
        told what was done (:meth:`TurnRouter.before_reply`): the count deleted, or the
        memories a weak match may mean, for the user to confirm."""
        from adk_memory_kit.routing.records import write_recall_record

        try:
            write_recall_record(callback_context, llm_request)
        except Exception as exc:
            logger.warning("memory routing: could not record recall (%s)", type(exc).__name__)
        try:
            notes, outcomes = await self.router.before_reply(callback_context)
        except Exception as exc:  # the turn goes on; the end-of-turn routing still runs
            logger.warning("memory routing: forget request not handled (%s)", describe(exc))
            return None
        if notes:
            llm_request.append_instructions(notes)
        if outcomes and self.on_outcomes is not None:
            self.on_outcomes(outcomes)
        return None

    @override
    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        """Move the kit's pending records into the event's ``custom_metadata`` before ADK
        appends and yields it, so they never show in the session state."""
        from adk_memory_kit.routing.records import attach_pending_records

        try:
            attach_pending_records(event)
        except Exception as exc:  # best effort, as the records themselves
            logger.warning("memory routing: could not attach records (%s)", type(exc).__name__)
        return None


def memory_routing_callback(
    extractor: Extractor | None = None,
    applier: MemoryApplier | None = None,
    *,
    on_outcomes: OutcomeHook | None = None,
) -> Callable[..., Awaitable[None]]:
    """An ``after_agent_callback`` doing what :class:`MemoryRoutingPlugin` does, for one agent."""
    router = TurnRouter(extractor or _default_extractor(), applier or MemoryApplier())

    async def after_agent_callback(callback_context: Context) -> None:
        outcomes = await router(callback_context)
        if outcomes and on_outcomes is not None:
            on_outcomes(outcomes)
        return None

    return after_agent_callback
