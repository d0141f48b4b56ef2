"""A request to forget, acted on: what it names goes from every home, or the user is asked.

What to forget is the request minus its verb phrase (:func:`~.forget_requests.forget_subject`;
"my gym, my work and my address": each part on its own). A subject that names nothing is not
guessed at: nothing is deleted and the state asks for a confirmation. A request the grammar
cannot read (another language, another idiom) deletes nothing either: the memories closest to
the whole sentence are shown to the user to confirm. Otherwise the user's
memories (and sentences said earlier in the session, not stored yet) are scored
(:mod:`.forget_matcher`) and chosen (:mod:`.forget_choice`); ``user:`` preferences, session
notes and working-memory facts that name it are cleared too (:mod:`.state_forget`). The
request itself is never stored; the session state gets ``FORGET_STATE_KEY`` = the count and the
homes reached, never the text; what was only close is held for the user's answer
(:mod:`.pending_forget`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from adk_memory_kit._adk_compat import context_memory_service
from adk_memory_kit.core.markers import FORGET_STATE_KEY
from adk_memory_kit.routing.edits.edit_settings import EditSettings
from adk_memory_kit.routing.edits.entry_scores import dense_score
from adk_memory_kit.routing.edits.floor_search import below_the_floor
from adk_memory_kit.routing.edits.forget_choice import ForgetChooser
from adk_memory_kit.routing.edits.forget_matcher import ForgetMatcher
from adk_memory_kit.routing.edits.forget_records import forget_record, log_deletion
from adk_memory_kit.routing.edits.forget_requests import (
    asks_to_forget,
    forget_subject,
    is_idiom,
    is_vague,
    keeps_what_it_says,
    subject_parts,
)
from adk_memory_kit.routing.edits.pending_forget import MAX_CONFIRM, ask_about
from adk_memory_kit.routing.edits.said_earlier import (
    SAID_KEY,
    SaidEarlier,
    said_entry,
    unstored_sentences,
)
from adk_memory_kit.routing.edits.state_forget import forget_in_state
from adk_memory_kit.routing.outcomes import NOT_A_REQUEST, RoutingOutcome
from adk_memory_kit.routing.rule import Candidate, MemoryHome

if TYPE_CHECKING:
    from google.adk.agents.context import Context

logger = logging.getLogger(__name__)


@dataclass
class LongTermForget:
    """What a forget request did in long-term memory and to sentences not stored yet."""

    deleted: int = 0
    deleted_ids: list[str] = field(default_factory=list)
    homes: list[str] = field(default_factory=list)
    chosen: list[Any] = field(default_factory=list)
    #: how many close matches were asked about rather than deleted
    ambiguous: int = 0
    #: (memory, closeness) the user is asked about
    asked: list[tuple[Any, float]] = field(default_factory=list)
    #: the scored entries' ids of the sentences said earlier, not stored yet
    said_earlier: dict[str, SaidEarlier] = field(default_factory=dict)
    #: those sentences the request named: never stored
    earlier: list[SaidEarlier] = field(default_factory=list)


class Forgetting:
    """Acts on forget requests, with ``settings``' bars, a matcher and a chooser."""

    def __init__(
        self, settings: EditSettings, matcher: ForgetMatcher, chooser: ForgetChooser
    ) -> None:
        self.settings = settings
        self.matcher = matcher
        self.chooser = chooser

    async def forget(self, candidate: Candidate, context: Context) -> RoutingOutcome:
        """Delete what the request names from every home; the count goes to state."""
        subject = forget_subject(candidate.text)
        session = context.session
        state = context.state
        if is_idiom(candidate.text):
            # "forget it, I'll do it myself": nothing to delete, nothing to keep
            logger.info("forget request: an idiom, nothing done")
            return RoutingOutcome(MemoryHome.FORGET, "skipped", None, "an idiom: nothing named")
        if not (asks_to_forget(candidate.text) or is_vague(subject)):
            if keeps_what_it_says(candidate.text):
                # "I forgot my passport", "don't forget my birthday is on Friday": no deletion
                # asked for; the applier keeps the sentence as a fact
                logger.info("forget request: no deletion asked for, kept as a fact")
                return RoutingOutcome(MemoryHome.FORGET, "skipped", None, NOT_A_REQUEST)
            # a request in words the parser does not know (another language, another idiom):
            # nothing is deleted unasked; the memories closest to the whole sentence are
            # shown to the user (choosing by harm: a question costs a turn, a wrong deletion
            # a fact), else the agent is told it was not understood
            service = context_memory_service(context)
            closest = await self.closest_to(service, context, candidate.text)
            ask_about(context, closest, {})
            state[FORGET_STATE_KEY] = forget_record(0, [], len(closest) or "unclear")
            logger.info(
                "forget request: not understood, nothing deleted, %d shown to confirm",
                len(closest),
            )
            return RoutingOutcome(MemoryHome.FORGET, "skipped", None, "request not understood")
        if is_vague(subject):
            # "forget what I said": nothing named, nothing guessed at; the agent asks
            state[FORGET_STATE_KEY] = forget_record(0, [], "vague")
            logger.info("forget request: too vague to act on, confirmation asked")
            return RoutingOutcome(MemoryHome.FORGET, "skipped", None, "vague: nothing named")
        service = context_memory_service(context)
        found = LongTermForget()
        if service is not None and hasattr(service, "search"):
            found = await self.in_long_term(service, context, subject)
        homes = found.homes
        deleted = found.deleted + forget_in_state(state, subject, homes)
        ambiguous = found.ambiguous
        # not guessed at when ambiguous: the agent asks the user which one they meant
        state[FORGET_STATE_KEY] = forget_record(deleted, homes, ambiguous or None)
        asked = sorted(found.asked, key=lambda pair: -pair[1])
        taken = {str(m.id) for m in found.chosen}  # what was deleted is among them
        ask_about(context, [m for m, _ in asked if str(m.id) not in taken], found.said_earlier)
        if deleted:
            await log_deletion(service, session, found.deleted_ids, homes, deleted)
        logger.info("forget request: %d item(s) deleted (%s)", deleted, ", ".join(homes) or "none")
        if ambiguous and not deleted:
            return RoutingOutcome(
                MemoryHome.FORGET, "skipped", None, f"ambiguous: {ambiguous} close matches"
            )
        return RoutingOutcome(
            MemoryHome.FORGET,
            "forgotten",
            None,
            f"{deleted} deleted",
            earlier=tuple((s.event_id, s.index, MemoryHome.FORGET) for s in found.earlier),
        )

    async def closest_to(self, service: Any, context: Context, text: str) -> list[Any]:
        """The user's current memories at least ``ask_min_similarity`` close to ``text`` (the
        store's search, its relevance floor lifted), closest first, at most ``MAX_CONFIRM``:
        what a request the parser could not read may mean, to show, never to delete."""
        if service is None:
            return []
        found = await below_the_floor(
            service,
            context.session,
            text,
            self.settings.unread_request_candidates,
            include_superseded=False,
        )
        close = [m for m in found if dense_score(m) >= self.settings.ask_min_similarity]
        return sorted(close, key=dense_score, reverse=True)[:MAX_CONFIRM]

    async def in_long_term(self, service: Any, context: Context, subject: str) -> LongTermForget:
        """Delete the memories ``subject`` names (each part of it on its own) and mark the
        sentences said earlier that it names; gather what to ask the user about."""
        session = context.session
        judge = self.settings.forget_judge
        found = LongTermForget()
        # what the user said earlier in this session and no router stored yet (ingestion
        # would store it later) is weighed beside the stored memories
        pending = {
            f"{SAID_KEY}{i}": s
            for i, s in enumerate(unstored_sentences(context, self.settings.earlier_sentences))
        }
        found.said_earlier = pending
        twins: dict[str, str] = {}  # a said sentence already stored -> that memory's id
        chosen = found.chosen
        for part in subject_parts(subject):  # "my gym, my work and my address": each
            scored, closeness, searched, askable = await self.matcher.scored_closeness(
                service,
                session,
                part,
                widen=judge.max_candidates * 2 if judge else 0,
                extra=[said_entry(key, s) for key, s in pending.items()],
                twins=twins,
            )
            # the offline decision is the one made without a judge: over what the search
            # found
            picked, unsure = self.chooser.decide(part, scored[:searched])
            close: list[tuple[Any, float]] = []
            if judge is not None and scored:
                picked, unsure = await self.chooser.judged(part, scored, closeness, picked, unsure)
            elif not picked and not unsure:
                # nothing matched, not even weakly: a memory close in meaning though it
                # shares no word ("my court date" / "I'm due before the magistrates") is
                # shown to the user, never deleted unasked
                close = [
                    (m, closeness[i]) for i, (m, _, _) in enumerate(scored[:searched]) if askable[i]
                ]
                unsure = len(close)
            chosen += [m for m in picked if all(m.id != c.id for c in chosen)]
            found.ambiguous += unsure
            if unsure:  # what the agent shows the user and asks about, best first
                found.asked += close or [
                    (m, score)
                    for m, score, _ in scored[:searched]
                    if score >= self.settings.forget_min_similarity
                ]
        unstored: list[SaidEarlier] = []
        for memory in chosen:
            if str(memory.id) in pending:  # not stored yet: ingestion will leave it out
                unstored.append(pending[str(memory.id)])
                continue
            count = await service.delete_memory(
                app_name=session.app_name, user_id=session.user_id, memory_id=memory.id
            )
            if count:
                found.deleted += count
                found.deleted_ids.append(str(memory.id))
        if found.deleted:
            found.homes.append("long_term")
        gone = {str(m.id) for m in chosen}
        # a sentence ingested since (a checkpoint) was weighed once, as its stored row;
        # that row going means the sentence is never stored again either
        marked = [pending[key] for key, twin in twins.items() if twin in gone]
        if unstored:
            found.deleted += len(unstored)
            found.homes.append("this_session")
        found.earlier = [*unstored, *marked]
        return found
