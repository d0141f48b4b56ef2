"""Applying the route: each candidate is written to its home, or deliberately not written.

===================  =======================================================================
home                 what the applier does
===================  =======================================================================
DROP                 nothing is stored; only "dropped (kinds)" is logged, never the text
PROCEDURAL_REVIEW    queued in the review table for a human; never read back by the agent
USER_STATE           ``user:pref_<name>`` + ``user:pref_<name>_at``, vocabulary names only;
                     ``already_saved`` when the profile tool wrote it in this turn (newer)
LONG_TERM            a dated fact through ``add_memory`` (``subject`` = key: supersession)
SESSION_STATE        ``fact_<key>`` (or appended to ``memory_notes``) in session state
TURN_SCRATCH         ``temp:<key>`` (or ``temp:memory_notes``): gone when the turn ends
===================  =======================================================================

Sensitive-data detection runs again here on every candidate, whatever the extractor said, so
nothing flagged reaches a store; text that reads like an instruction to the agent is treated as
a behaviour change (review), so it cannot be planted in memory. State writes go through the
context's ``state`` (recorded in the event's state delta); long-term writes go through the
``BaseMemoryService`` contract, so any memory service works.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from typing_extensions import override

from adk_memory_kit._adk_compat import context_memory_service
from adk_memory_kit.core.db_errors import db_doors
from adk_memory_kit.core.ids import normalize_fact_text
from adk_memory_kit.errors import InvalidInputError, MemoryKitError
from adk_memory_kit.profile.guards import looks_like_instruction
from adk_memory_kit.profile.tools import write_preference
from adk_memory_kit.profile.vocabulary import DEFAULT_VOCABULARY, PreferenceVocabulary
from adk_memory_kit.routing.edits.conversation_edits import conversation_edit_handlers
from adk_memory_kit.routing.outcomes import (
    NOT_A_REQUEST,
    NOTES_KEY,
    SESSION_FACT_PREFIX,
    RoutingOutcome,
    long_term_entry,
)
from adk_memory_kit.routing.reply_style import REPLY_STYLE
from adk_memory_kit.routing.reply_style import merged as merged_reply_style
from adk_memory_kit.routing.rule import Candidate, MemoryHome, route
from adk_memory_kit.sensitive import HEALTH, Detector, detect_sensitive, finding_kinds

if TYPE_CHECKING:
    from google.adk.agents.context import Context

    from adk_memory_kit.routing.review_queue import ReviewQueue

logger = logging.getLogger(__name__)
_warned_no_long_term = False


def _no_long_term_once(reason: str) -> None:
    """One line per process when the runner's memory service cannot store memories."""
    global _warned_no_long_term
    if _warned_no_long_term:
        return
    _warned_no_long_term = True
    logger.warning(
        "memory router: the runner's memory service cannot store long-term memories (%s: "
        "ADK's default InMemoryMemoryService); configure PgVectorMemoryService "
        "(Runner(memory_service=PgVectorMemoryService()) or adk web "
        "--memory_service_uri=pgvector://). Long-term facts go to session state meanwhile; "
        "the other homes are unaffected",
        reason,
    )


ForgetHandler = Callable[["Candidate", "Context"], Awaitable["RoutingOutcome"]]
"""Acts on a request to forget (``MemoryHome.FORGET``) and says what it did (a count, never
the text). An outcome with the detail :data:`NOT_A_REQUEST` says the sentence asks for no
deletion after all ("Don't forget my birthday is on Friday"): the applier keeps it as a fact."""

#: Preferences whose values add up rather than replace each other: "I'm allergic to
#: penicillin", then "I'm also allergic to shellfish" keeps both ("penicillin, shellfish");
#: an allergy is never dropped by a later sentence (the router never retires one).
ACCUMULATING_PREFERENCES = frozenset({"allergies"})


def _joined(held: object, value: str) -> str:
    """``value`` added to the comma-separated values ``held`` (each once, first seen first)."""
    parts = [p.strip() for p in (held if isinstance(held, str) else "").split(",")]
    parts += [p.strip() for p in value.split(",")]
    seen: dict[str, str] = {}
    for part in parts:
        if part:
            seen.setdefault(part.lower(), part)
    return ", ".join(seen.values())


UpdateHandler = Callable[["Candidate", "Context"], Awaitable["RoutingOutcome | None"]]
"""Writes a fact that replaces an earlier one (``replaces_earlier``) by superseding it;
``None``: nothing to supersede, the fact is stored as usual."""

ConfirmationHandler = Callable[
    ["Context", "bool | Sequence[int]"], Awaitable["RoutingOutcome | None"]
]
"""Settles the question a forget request left pending with the user's answer (``True``: yes,
delete them all; numbers from 1: those shown; ``False``: keep them); ``None`` when nothing
was pending. The count goes to the forget record in state, as a request's does."""


class _Default:
    """The "not given" marker of an applier's handler arguments (``None``: none at all)."""

    @override
    def __repr__(self) -> str:
        return "DEFAULT"


DEFAULT: Any = _Default()

REVIEW_STATE_KEY = "adk_memory_kit:review:last"
"""Session state key (persisted): the newest review-queue item this session queued (id,
status, ISO-8601 time, the command that shows it); the item's text stays in the queue."""


@db_doors
class MemoryApplier:
    """Routes candidates and writes each to its home through an ADK context.

    Args:
        vocabulary: the preference names allowed in ``user:`` state.
        review_queue: where ``PROCEDURAL_REVIEW`` candidates go. By default a
            :class:`ReviewQueue` on the database of the runner's memory service (its engine,
            when it is a ``PgVectorMemoryService``; else ``ADK_MEMORY_KIT_DB_URL`` or the
            embedded server), made at the first such request. ``None``: they are skipped,
            with a warning naming the missing queue (never stored anywhere the agent reads).
        forget_handler: acts on a request to forget (``FORGET``). By default the
            conversation-edit handler (``conversation_edit_handlers()``: the user's memories
            about what the request names are deleted from every home); ``None``: such a
            request is only kept out of every store.
        confirmation_handler: settles a forget request's pending question with the user's
            answer (by default the conversation-edit handler's; the routing plugin calls it
            when the user replies); ``None``: such questions are never settled.
        link_handler: stores a lasting fact not flagged ``replaces_earlier`` beside the current
            memory it is close to, linked to it, so the newer one leads at read time (by
            default the conversation-edit handler: changes said without a change word);
            ``None`` (or when it links none): the fact is stored as usual.
        update_handler: writes a fact flagged ``replaces_earlier`` by superseding the earlier
            one (by default the conversation-edit handler); ``None`` (or when it finds none):
            the fact is stored as usual. A ``user:``
            preference flagged so is saved as usual and also given to it, so a lasting fact
            it replaces is superseded (nothing more is stored when there is none; never a
            sentence holding sensitive data, and a failure there keeps the preference).
        detectors: sensitive-data detectors (default: ``DEFAULT_DETECTORS``).
        max_notes: how many key-less notes a session/scratch list keeps (newest last).
        health_keys: preference names that may hold a health fact the user states for the
            service to act on (default: ``allergies``). Only an exact ``user:`` value under
            such a name is exempt from the health detector; any other health text is dropped.
    """

    def __init__(
        self,
        *,
        vocabulary: PreferenceVocabulary = DEFAULT_VOCABULARY,
        review_queue: ReviewQueue | None = DEFAULT,
        detectors: Sequence[Detector] | None = None,
        max_notes: int = 20,
        author: str = "memory_router",
        health_keys: Collection[str] = ("allergies",),
        forget_handler: ForgetHandler | None = DEFAULT,
        update_handler: UpdateHandler | None = DEFAULT,
        confirmation_handler: ConfirmationHandler | None = DEFAULT,
        link_handler: UpdateHandler | None = DEFAULT,
    ) -> None:
        if DEFAULT in (forget_handler, update_handler, confirmation_handler, link_handler):
            defaults = conversation_edit_handlers()
            if forget_handler is DEFAULT:
                forget_handler = defaults.get("forget_handler")
            if update_handler is DEFAULT:
                update_handler = defaults.get("update_handler")
            if confirmation_handler is DEFAULT:
                confirmation_handler = defaults.get("confirmation_handler")
            if link_handler is DEFAULT:  # no updates wanted: no links either
                link_handler = defaults.get("link_handler") if update_handler else None
        self.forget_handler: ForgetHandler | None = forget_handler
        self.update_handler: UpdateHandler | None = update_handler
        self.confirmation_handler: ConfirmationHandler | None = confirmation_handler
        self.link_handler: UpdateHandler | None = link_handler
        self.vocabulary = vocabulary
        self.health_keys = frozenset(health_keys)
        self._queue_by_default = review_queue is DEFAULT
        self.review_queue: ReviewQueue | None = None if review_queue is DEFAULT else review_queue
        self.detectors = detectors
        self.max_notes = max_notes
        self.author = author

    def classify(self, candidate: Candidate) -> tuple[Candidate, MemoryHome, list[str]]:
        """Check the candidate, then route it; returns the sensitive kinds found (if any).

        Whatever the extractor said: a detector hit makes it sensitive, and text that reads
        like an instruction to the agent ("ignore previous instructions") makes it a
        behaviour change, so it goes to review and never into a store the agent reads.
        """
        findings = detect_sensitive(candidate.text, self.detectors)
        if candidate.value:
            findings += detect_sensitive(candidate.value, self.detectors)
        if findings and self._stated_health_preference(candidate, findings):
            findings = []
        if findings and not candidate.sensitive:
            candidate = candidate.with_sensitive()
        if not candidate.changes_agent_behaviour and (
            looks_like_instruction(candidate.text)
            or (candidate.value and looks_like_instruction(candidate.value))
        ):
            candidate = replace(candidate, changes_agent_behaviour=True)
        return candidate, route(candidate), finding_kinds(findings)

    def _stated_health_preference(self, candidate: Candidate, findings: list) -> bool:
        """A user-stated health preference (``allergies``) bound for ``user:`` state."""
        return (
            not candidate.sensitive
            and candidate.key in self.health_keys
            and candidate.value is not None
            and all(f.kind == HEALTH for f in findings)
            and not detect_sensitive(candidate.value, self.detectors)
            and route(candidate) is MemoryHome.USER_STATE
        )

    async def apply(
        self, candidates: Sequence[Candidate], context: Context
    ) -> list[RoutingOutcome]:
        """Apply every candidate (a duplicate in the batch once); a failure never stops the rest."""
        outcomes, seen = [], set()
        for candidate in candidates:
            identity = (candidate.key, normalize_fact_text(candidate.text), candidate.value)
            if identity in seen:
                continue
            seen.add(identity)
            outcomes.append(await self.apply_one(candidate, context))
        return outcomes

    async def apply_one(self, candidate: Candidate, context: Context) -> RoutingOutcome:
        candidate, home, kinds = self.classify(candidate)
        try:
            if home is MemoryHome.DROP:
                logger.info("memory router dropped a candidate (%s)", ", ".join(kinds) or "flagged")
                return RoutingOutcome(
                    home, "dropped", None, "sensitive: " + (", ".join(kinds) or "flagged")
                )
            if home is MemoryHome.FORGET:
                return await self._forget(candidate, context)
            if home is MemoryHome.PROCEDURAL_REVIEW:
                return await self._review(candidate, context)
            if home is MemoryHome.USER_STATE and self._holds_a_value(candidate, context):
                # the user's own words never replace a value said before: kept as a fact
                fact = replace(
                    candidate, key=None, value=None, exact_value=False, in_own_words=False
                )
                return await self._long_term(fact, context)
            if home is MemoryHome.USER_STATE:
                outcome = self._user_state(candidate, context)
                if (
                    candidate.replaces_earlier
                    and self.update_handler
                    and outcome.status == "stored"
                    # only the exact user: value of a health name is exempt: its sentence
                    # never reaches long-term memory, not even as a replacement
                    and not detect_sensitive(candidate.text, self.detectors)
                ):
                    earlier = await self._retire_replaced(candidate, context)
                    outcome = replace(outcome, earlier=earlier)
                return outcome
            if home is MemoryHome.LONG_TERM:
                if candidate.retires_value:
                    self._clear_retired(candidate, context)
                return await self._long_term(candidate, context)
            return self._state(candidate, context, home)
        except Exception as exc:  # keep the turn alive; say what failed, not what was said
            # a kit error's message never holds user text (it names the missing part, such
            # as the memory service); another's might (a driver error quoting its
            # parameters), so only its type is said
            said = f"{type(exc).__name__}: {exc}" if isinstance(exc, MemoryKitError) else ""
            logger.warning(
                "memory router could not write to %s: %s", home.value, said or type(exc).__name__
            )
            return RoutingOutcome(home, "failed", candidate.key, said or type(exc).__name__)

    def _holds_a_value(self, candidate: Candidate, context: Context) -> bool:
        """Whether ``candidate`` is a sentence in the user's own words (``in_own_words``) for a
        preference that already holds a value."""
        if not candidate.in_own_words or not candidate.key:
            return False
        return bool(context.state.get(self.vocabulary.state_key(candidate.key)))

    def _clear_retired(self, candidate: Candidate, context: Context) -> bool:
        """Clear the ``user:`` preference a sentence says no longer holds ("I'm not vegan any
        more"), when the stored value is the one it retires; returns whether it was cleared.
        A value saved earlier in this turn (:meth:`_newer_write`) is kept."""
        name = (candidate.key or "").strip().lower()
        retired = (candidate.retires_value or "").strip().lower()
        if not retired or name not in self.vocabulary or self._newer_write(candidate, context):
            return False
        key = self.vocabulary.state_key(name)
        current = context.state.get(key)
        if not isinstance(current, str) or current.strip().lower() != retired:
            return False
        context.state[key] = None
        context.state[self.vocabulary.written_at_key(name)] = None
        logger.info("memory router cleared a preference the user said no longer holds")
        return True

    async def _retire_replaced(
        self, candidate: Candidate, context: Context
    ) -> tuple[tuple[str, int, MemoryHome], ...]:
        """A changed preference also retires the lasting fact said before, if any ("I dropped
        X, I'm learning Y now"); with none, nothing more is stored. The preference is saved
        already, so a failure here is logged (its type only) and does not undo it. Returns the
        handler's ``earlier``."""
        if self.update_handler is None:
            return ()
        try:
            replaced = await self.update_handler(candidate, context)
        except Exception as exc:  # the saved preference stands; say what failed, not what
            logger.warning(
                "memory router could not retire the fact a preference replaces: %s",
                type(exc).__name__,
            )
            return ()
        return replaced.earlier if replaced is not None else ()

    async def _forget(self, candidate: Candidate, context: Context) -> RoutingOutcome:
        """A request to forget: handed to ``forget_handler``; the request itself is never
        stored anywhere."""
        if self.forget_handler is None:
            logger.warning(
                "memory router: a request to forget was NOT acted on, because this "
                "MemoryApplier was built with forget_handler=None; leave it out for the "
                "conversation-edit handler (conversation_edit_handlers()) to delete what the "
                "user names"
            )
            return RoutingOutcome(
                MemoryHome.FORGET, "skipped", None, "not acted on: no forget handler is configured"
            )
        outcome = await self.forget_handler(candidate, context)
        if outcome.status == "skipped" and outcome.detail == NOT_A_REQUEST:
            # routed as a request but asks for none ("Don't forget my birthday is on Friday",
            # "I forgot my keys at the gym"): what the user said is kept as a lasting fact,
            # checked again like any other (a sensitive one is dropped)
            fact = replace(
                candidate,
                forget_request=False,
                about_user=True,
                needed_in_future_sessions=True,
                exact_value=False,
            )
            return await self.apply_one(fact, context)
        return outcome

    def _queue_for(self, context: Context) -> ReviewQueue | None:
        """The review queue: the one given, else (by default) one on the memory service's
        database, made once."""
        if self.review_queue is None and self._queue_by_default:
            from sqlalchemy.ext.asyncio import AsyncEngine

            from adk_memory_kit.routing.review_queue import ReviewQueue

            engine = getattr(context_memory_service(context), "engine", None)
            shared = engine if isinstance(engine, AsyncEngine) else None
            self.review_queue = ReviewQueue(engine=shared) if shared else ReviewQueue()
        return self.review_queue

    async def _review(self, candidate: Candidate, context: Context) -> RoutingOutcome:
        home = MemoryHome.PROCEDURAL_REVIEW
        queue = self._queue_for(context)
        if queue is None:
            logger.warning(
                "memory router: a behaviour-changing request was NOT queued for review and is "
                "stored nowhere, because this MemoryApplier was built with review_queue=None; "
                "pass MemoryApplier(review_queue=ReviewQueue()) (or leave it out for the "
                "default queue) to keep such requests for a person to approve"
            )
            return RoutingOutcome(
                home, "skipped", candidate.key, "not queued: no review queue is configured"
            )
        session = context.session
        item = await queue.submit(
            app_name=session.app_name,
            user_id=session.user_id,
            text=candidate.text,
            session_id=session.id,
            source=self.author,
        )
        context.state[REVIEW_STATE_KEY] = {  # the dev UI's State tab; no user text here
            "id": item.id,
            "status": "pending",
            "queued_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "see": f"adk-memory-kit review list --app {session.app_name}",
        }
        return RoutingOutcome(home, "queued", candidate.key, f"review item {item.id}")

    def _user_state(self, candidate: Candidate, context: Context) -> RoutingOutcome:
        home = MemoryHome.USER_STATE
        if not candidate.key:
            return RoutingOutcome(home, "rejected", None, "a user-state fact needs a key")
        newer = self._newer_write(candidate, context)
        if newer:
            return RoutingOutcome(home, "already_saved", candidate.key, newer)
        value = candidate.value if candidate.value is not None else ""
        held = context.state.get(self.vocabulary.state_key(candidate.key))
        if candidate.key in ACCUMULATING_PREFERENCES and value:
            value = _joined(held, value)
        elif candidate.key == REPLY_STYLE and value:
            value = merged_reply_style(held, value)
        try:
            saved = write_preference(
                context.state,
                candidate.key,
                value,
                vocabulary=self.vocabulary,
                detectors=self.detectors,
                now=candidate.observed_at,
            )
        except InvalidInputError as exc:
            logger.info("memory router rejected user-state key %r", candidate.key)
            return RoutingOutcome(home, "rejected", candidate.key, str(exc))
        return RoutingOutcome(
            home, "stored", candidate.key, self.vocabulary.state_key(saved["name"])
        )

    def _newer_write(self, candidate: Candidate, context: Context) -> str:
        """Why ``candidate`` must not overwrite the stored preference ("" when it may).

        The profile tool runs during the turn and the router at its end, so in one turn the
        tool's write (made after the user spoke, perhaps with the model's reading of it) is
        the newer one: the router skips a preference that an event of this invocation already
        wrote, rather than putting its older time (or its own value) back.
        """
        name = (candidate.key or "").strip().lower()
        if name not in self.vocabulary:
            return ""  # write_preference rejects it with the allowed names
        state_key = self.vocabulary.state_key(name)
        for event in context.session.events:
            if event.invocation_id == context.invocation_id and state_key in (
                getattr(event.actions, "state_delta", None) or {}
            ):
                return f"{state_key} was saved earlier in this turn by {event.author}; kept as is"
        return ""

    async def _long_term(self, candidate: Candidate, context: Context) -> RoutingOutcome:
        handler = self.update_handler if candidate.replaces_earlier else self.link_handler
        if handler is not None:
            written = await handler(candidate, context)
            if written is not None:
                return written
        entry, meta = long_term_entry(
            candidate, author=self.author, source="routing", session_id=context.session.id
        )
        try:
            await context.add_memory(memories=[entry], custom_metadata=meta or None)
        except ValueError:
            if context_memory_service(context) is None:  # ADK: no memory service at all
                message = "memory service is not available: give the Runner one"
                raise MemoryKitError(message) from None
            raise
        except NotImplementedError as exc:  # ADK's default InMemoryMemoryService
            _no_long_term_once(type(exc).__name__)
            outcome = self._state(candidate, context, MemoryHome.SESSION_STATE)
            return replace(outcome, detail="long-term memory is not configured; kept in session")
        return RoutingOutcome(MemoryHome.LONG_TERM, "stored", candidate.key, entry.id or "")

    def _state(self, candidate: Candidate, context: Context, home: MemoryHome) -> RoutingOutcome:
        prefix = "temp:" if home is MemoryHome.TURN_SCRATCH else ""
        state = context.state
        if candidate.key:
            name = candidate.key if prefix else SESSION_FACT_PREFIX + candidate.key
            key = prefix + name
            state[key] = candidate.value if candidate.value is not None else candidate.text
        else:
            key = prefix + NOTES_KEY
            notes = list(state.get(key) or [])
            notes.append(candidate.text.strip())
            state[key] = notes[-self.max_notes :]
        return RoutingOutcome(home, "stored", candidate.key, key)
