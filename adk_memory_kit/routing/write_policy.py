"""The write policy: what of a session reaches long-term retrieval.

One decision, applied on every path that ingests a session (the closer, the idle job, the
checkpoint plugin, ``end_session``, a plain ``add_session_to_memory`` and ``reindex``): they all
call ``PgVectorMemoryService.add_session_to_memory``, which filters the session's events through
:func:`select_events` before anything is embedded or stored.

``WritePolicy.ROUTED`` (the default) stores, per sentence of each turn:

==========================================  ==============================================
sentence                                    stored?
==========================================  ==============================================
a candidate the router sent anywhere        no: DROP, PROCEDURAL_REVIEW and TURN_SCRATCH
                                            never; SESSION_STATE unless the router was
                                            unsure, with a higher bar for statements not
                                            scoped to now (:func:`session_only_holds`: a
                                            lost fact costs more than a stored one-off);
                                            LONG_TERM is stored by the router as its own
                                            dated fact and USER_STATE lives in the profile
                                            (one fact, one home)
sensitive (any detector, health included)   no
filler / acknowledgement (anyone)           no ("Noted.", "Thanks, that's all, bye!")
a question that states nothing              no ("Can you order lunch for me?")
a user sentence the router says holds       no ("flights please", "OK, hold it": the offline
nothing to keep and that states nothing     router's ``nothing`` verdict), unless it answers
                                            the agent's question ("The navy one"); a sentence
                                            that may state a fact ("I use Android.") is kept
a request or command to the agent           no ("Show me cheaper ones", "flights again": an
                                            imperative or a short fragment with "please" /
                                            "again" that states nothing; a standing order is
                                            the router's, see :mod:`.dialogue_acts`)
agent text restating recalled memory        no (provenance: ``load_memory`` results and
                                            recall records on the session's events)
agent text restating a tool's result set    no (a list a tool returned in the session:
                                            search hits, flight options; one outcome such
                                            as a booking is not a result set and stays)
agent text restating an excluded sentence   no ("OK, I'll stop asking you to confirm")
agent text reporting a kit memory tool      no (provenance: the same invocation called a
                                            profile, ``end_session``, MemoryToolset or
                                            working-memory tool, or wrote ``user:`` state,
                                            and the sentence restates it: "Saved to your
                                            profile: diet = vegetarian.")
any other user sentence                     yes (the user's turn, minus the above)
any other agent sentence                    yes (a research answer, a confirmed booking)
==========================================  ==============================================

A turn the router never saw (no record: an old session, a session run without the routing
plugin) is classified at ingestion by ``fallback_extractor`` with the same routing rule; its
LONG_TERM and USER_STATE sentences then stay in the stored turn, since no router stored them
elsewhere. Function calls and results are never stored in this mode.

``WritePolicy.FULL_TRANSCRIPT`` stores every text event as it is (secrets redacted by the
indexing options): LoCoMo-style episodic recall of everything that was said.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from google.adk.events.event import Event
from google.genai import types
from pydantic import ConfigDict, Field, PlainValidator

from adk_memory_kit.core.config import KitConfig
from adk_memory_kit.core.index_keys import INDEX_ONLY_REASONS, with_keys, without_keys
from adk_memory_kit.core.session_policy import POLICY_ENV, WritePolicy, resolve_policy
from adk_memory_kit.routing.cue_words import asks_a_question, scoped_to_now
from adk_memory_kit.routing.dialogue_acts import is_request_to_agent, states_something
from adk_memory_kit.routing.extractors import Extractor, RuleBasedExtractor, event_text
from adk_memory_kit.routing.learned import Decision
from adk_memory_kit.routing.offline import LearnedExtractor, shared_learned_extractor
from adk_memory_kit.routing.provenance import memory_report_stems
from adk_memory_kit.routing.records import (
    RoutingDecisions,
    asks_for_a_lookup,
    lookup_query_stems,
    session_recall_stems,
    session_result_set_stems,
)
from adk_memory_kit.routing.rule import MemoryHome, route
from adk_memory_kit.routing.unstored import unstored_reason
from adk_memory_kit.sensitive import Detector
from adk_memory_kit.sensitive.base import as_detectors
from adk_memory_kit.text.signals import (
    content_stems,
    fingerprint,
    is_filler,
    overlap,
    split_sentences,
    strip_tags,
)

if TYPE_CHECKING:
    from google.adk.sessions.session import Session

__all__ = [
    "ATTRIBUTION",
    "NEVER_STORED",
    "POLICY_ENV",
    "RoutedOptions",
    "SentenceVerdict",
    "WritePolicy",
    "resolve_policy",
    "select_events",
    "unstored_reason",
]

USER_AUTHOR = "user"

#: An agent sentence that attributes what it says to memory restates recall.
ATTRIBUTION = re.compile(
    r"\b(?:in (?:your |my )?memory|from (?:your |my )?memory|last time(?: you)?|"
    r"you (?:told|asked|mentioned|said|wanted)|your profile|on file|I remember|"
    r"(?:earlier|previous|past) (?:conversation|session|chat)s?|as (?:you|we) (?:said|agreed)|"
    r"I (?:found|recalled|see) (?:in|from) )",
    re.IGNORECASE,
)

#: The offline router's label for a sentence with nothing to keep (a request, small talk).
NOTHING_LABEL = "nothing"
SESSION_LABEL = "session_state"

#: Homes whose sentences never reach long-term retrieval, recorded or not.
NEVER_STORED = frozenset(
    {
        MemoryHome.DROP,
        MemoryHome.PROCEDURAL_REVIEW,
        MemoryHome.SESSION_STATE,
        MemoryHome.TURN_SCRATCH,
        MemoryHome.FORGET,
    }
)


def _extractor_or_none(value: Any) -> Any:
    if value is not None and not callable(getattr(value, "extract", None)):
        raise ValueError("must be an Extractor (an object with an async extract(events)) or None")
    return value


class RoutedOptions(KitConfig):
    """Tuning of :attr:`WritePolicy.ROUTED` (validated at construction; see
    :class:`~adk_memory_kit.core.config.KitConfig`)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    fallback_extractor: Annotated[Extractor | None, PlainValidator(_extractor_or_none)] = Field(
        default_factory=RuleBasedExtractor,
        description="Classifies turns that carry no routing record (None: such turns get only "
        "the filler/question/sensitive/echo filters).",
    )
    echo_threshold: float = Field(
        0.6,
        gt=0.0,
        le=1.0,
        description="An agent sentence whose content words are at least this fraction recalled "
        "text (or excluded user text) restates it and is not stored.",
    )
    attributed_echo_threshold: float = Field(
        0.2,
        gt=0.0,
        le=1.0,
        description="The same, for a sentence that cites memory ('last time you asked for ...').",
    )
    keep_agent_turns: bool = Field(
        True, description="Store agent sentences with their own substance."
    )
    detectors: Annotated[Sequence[Detector] | None, PlainValidator(as_detectors)] = Field(
        None, description="Sensitive-data detectors (None: the kit's)."
    )
    sentence_router: LearnedExtractor | None = Field(
        default_factory=shared_learned_extractor,
        description="The classifier the routing plugin uses offline, asked about every user "
        "sentence no router gave a home: one it calls a behaviour change, session-only, "
        "sensitive or a request to forget is not stored, even with no candidate extracted from "
        "it. None: not asked. Default: the process-wide shared one.",
    )
    session_only_confidence: float = Field(
        0.6,
        gt=0.0,
        le=1.0,
        description="The router's least confidence for a 'session only' verdict to keep a "
        "sentence that states nothing, or asks something, out of long-term memory. Below it "
        "the sentence is stored: an unsure verdict must not lose a lasting fact. Statements "
        "answer to ``statement_session_confidence`` (:func:`session_only_holds`).",
    )
    statement_session_confidence: float = Field(
        0.85,
        gt=0.0,
        le=1.0,
        description="The router's least confidence for a 'session only' verdict to keep a "
        "statement (a sentence that states something and asks nothing) out of long-term "
        "memory, unless it scopes itself to now. Higher than for a request: a lasting fact "
        "read as this session's work is lost when the session ends (the bank's session-only "
        "statements score 0.84 and more; statements about the user's things misread as "
        "session work 0.5-0.8).",
    )

    keep_requests: bool = Field(
        False,
        description="Store user sentences that only ask the agent for work: the router's "
        "'nothing to keep' verdict and the request cue (:mod:`.dialogue_acts`). Off: a "
        "request is no fact about the user.",
    )
    keep_tool_echoes: bool = Field(
        False,
        description="Store agent sentences that restate a tool's result set (search hits, "
        "options). Off: the options are not facts; the outcome of an action is kept.",
    )

    async def select(
        self, session: Session, events: Sequence[Event], *, index_context: bool = False
    ) -> list[Event]:
        """:class:`~adk_memory_kit.core.session_policy.SessionSelector`: the events the routed
        policy stores, tuned by these options (:func:`select_events`)."""
        return await select_events(
            session, events, WritePolicy.ROUTED, self, index_context=index_context
        )


@dataclass(frozen=True)
class SentenceVerdict:
    """Why one sentence is (not) stored; ``reason`` never holds the text."""

    event_id: str
    index: int
    author: str
    stored: bool
    reason: str


async def select_events(
    session: Session,
    events: Sequence[Event],
    policy: WritePolicy = WritePolicy.ROUTED,
    options: RoutedOptions | None = None,
    verdicts: list[SentenceVerdict] | None = None,
    *,
    index_context: bool = False,
) -> list[Event]:
    """The events to store under ``policy``: copies holding only the stored sentences.

    ``FULL_TRANSCRIPT`` returns ``events`` unchanged. ``verdicts`` (if given) receives one entry
    per sentence, for reports and tests. ``index_context``: the copies also carry the filler and
    fact-less question sentences left out, as index keys only, and an event left with only such
    sentences comes back as a context-only copy (:mod:`adk_memory_kit.core.index_keys`);
    the stored text is the same either way.
    """
    if policy is WritePolicy.FULL_TRANSCRIPT:
        return list(events)
    options = options or RoutedOptions()
    decisions = RoutingDecisions(events)
    fallback = await _fallback_homes(events, decisions, options)
    classified, nothing = await _classified_homes(events, decisions, fallback, options)
    unsure = await _unsure_session_notes(events, decisions, options)
    fallback.update(classified)
    recalled = session_recall_stems(events)
    listed = set() if options.keep_tool_echoes else session_result_set_stems(events)
    reported = memory_report_stems(events)
    looked_up = {} if options.keep_requests else lookup_query_stems(events)
    plan: list[tuple[Event, list[tuple[int, str, str | None]]]] = []
    excluded_user: set[str] = set()
    asked = False  # the last text before this event was the agent's own question
    for event in events:
        text = event_text(event) if event.content else ""
        if not text or event.partial:
            continue
        is_user = event.author == USER_AUTHOR
        sentences = split_sentences(text)
        # the router reads a sentence alone: its "nothing" verdict on an answer to the
        # agent's question ("The navy one with the hood.") misses what the answer says
        answering, asked = asked and is_user, not is_user and _asks(sentences)
        rows = []
        for index, sentence in enumerate(sentences):
            reason = (
                None
                if (event.id, index) in unsure
                else _user_or_common_reason(event, index, sentence, decisions, fallback, options)
            )
            if reason is None and is_user and not options.keep_requests:
                says_nothing = not answering and (event.id, index) in nothing
                reason = _request_reason(sentence, says_nothing)
                if reason is None and asks_for_a_lookup(
                    sentence, looked_up.get(event.invocation_id or "", set())
                ):
                    reason = "a request the agent looked up"
            homes = decisions.homes(event.id, index) | fallback.get((event.id, index), set())
            if is_user and (homes & NEVER_STORED or reason == "sensitive"):
                excluded_user.update(fingerprint(content_stems(sentence)))
            rows.append((index, sentence, reason))
        plan.append((event, rows))
    kept: list[Event] = []
    for event, rows in plan:
        is_user = event.author == USER_AUTHOR
        stored: list[str] = []
        indexable: list[str] = []
        left_out: list[str] = []
        for index, sentence, reason in rows:
            if reason is None and not is_user:
                reason = _agent_reason(
                    sentence,
                    recalled,
                    excluded_user,
                    reported.get(event.invocation_id or "", set()),
                    options,
                    listed,
                )
            if verdicts is not None:
                verdicts.append(
                    SentenceVerdict(event.id, index, event.author, reason is None, reason or "kept")
                )
            if reason is None:
                stored.append(strip_tags(sentence))
                indexable.append(stored[-1])
            elif index_context and reason in INDEX_ONLY_REASONS and strip_tags(sentence):
                left_out.append(strip_tags(sentence))
                indexable.append(left_out[-1])
        if not index_context:
            if stored:
                kept.append(_with_text(event, " ".join(stored)))
            continue
        if stored or left_out:
            copy = _with_text(event, " ".join(stored or left_out))
            meta = with_keys(
                copy.custom_metadata,
                " ".join(indexable),
                " ".join(left_out),
                context_only=not stored,
            )
            kept.append(copy.model_copy(update={"custom_metadata": meta}))
    return kept


def session_only_holds(sentence: str, decision: Decision, options: RoutedOptions) -> bool:
    """Whether the router's "this session only" keeps ``sentence`` out of long-term memory.

    Always when the sentence scopes itself to now ("just for this trip"). Otherwise only for
    a ``session_state`` verdict the router is sure of: ``session_only_confidence`` for a
    sentence that states nothing or asks something ("Can you book us a table?"),
    ``statement_session_confidence`` for a statement ("For this outing my two nephews are
    coming along": 0.95). An unsure statement ("Laptop-wise it is a ThinkPad X220.": 0.54) is
    stored: a lasting fact kept for the session alone is lost when it ends, while a one-off
    statement stored costs a little clutter. A sentence that states nothing and that the
    router finds nothing to keep in (a request the home head made a session note of) stays
    out, as it would with no note."""
    if scoped_to_now(sentence):
        return True
    statement = states_something(sentence) and not asks_a_question(sentence)
    if not statement and decision.label == NOTHING_LABEL:
        return True
    if decision.label != SESSION_LABEL:
        return False
    if statement:
        return decision.confidence >= options.statement_session_confidence
    return decision.confidence >= options.session_only_confidence


async def _unsure_session_notes(
    events: Sequence[Event], decisions: RoutingDecisions, options: RoutedOptions
) -> set[tuple[str, int]]:
    """The user sentences the routing plugin kept only as this session's notes where
    :func:`session_only_holds` does not keep them out: they are stored like any other
    sentence (the rules below still apply). The router's decisions are cached by text, so
    this costs no second embedding of a sentence routed in this process."""
    router = options.sentence_router
    if router is None:
        return set()
    slots: list[tuple[str, int]] = []
    texts: list[str] = []
    for event in events:
        if event.author != USER_AUTHOR or event.partial or not event.content or not event.id:
            continue
        for index, sentence in enumerate(split_sentences(event_text(event))):
            if decisions.homes(event.id, index) == {MemoryHome.SESSION_STATE}:
                slots.append((event.id, index))
                texts.append(sentence)
    if not texts:
        return set()
    try:
        verdicts = await router.router.classify(texts)
    except Exception:  # the recorded homes stand
        return set()
    return {
        slot
        for slot, text, verdict in zip(slots, texts, verdicts, strict=True)
        if not session_only_holds(text, verdict, options)
    }


async def _fallback_homes(
    events: Sequence[Event], decisions: RoutingDecisions, options: RoutedOptions
) -> dict[tuple[str, int], set[MemoryHome]]:
    """Homes the fallback extractor gives the sentences of turns without a routing record."""
    from adk_memory_kit.routing.apply import MemoryApplier
    from adk_memory_kit.routing.records import locate

    unrecorded = [
        e for e in events if e.id and e.content and not e.partial and not decisions.has_record(e.id)
    ]
    if not unrecorded or options.fallback_extractor is None:
        return {}
    try:
        candidates = await options.fallback_extractor.extract(unrecorded)
    except Exception:  # the filters below still apply
        return {}
    applier = MemoryApplier(detectors=options.detectors, forget_handler=None, update_handler=None)
    homes: dict[tuple[str, int], set[MemoryHome]] = {}
    for candidate in candidates:
        where = locate(candidate, unrecorded)
        if where is not None:
            homes.setdefault(where, set()).add(applier.classify(candidate)[1])
    return homes


async def _classified_homes(
    events: Sequence[Event],
    decisions: RoutingDecisions,
    known: dict[tuple[str, int], set[MemoryHome]],
    options: RoutedOptions,
) -> tuple[dict[tuple[str, int], set[MemoryHome]], set[tuple[str, int]]]:
    """Homes the offline router gives the user sentences nothing else gave a home (one
    batched call; only homes that keep a sentence out of retrieval matter here), and the
    sentences it says hold nothing to keep (its ``nothing`` verdict, no candidate)."""
    router = options.sentence_router
    if router is None:
        return {}, set()
    where: list[tuple[str, int]] = []
    asked: list[tuple[str, None]] = []
    for event in events:
        if event.author != USER_AUTHOR or event.partial or not event.content or not event.id:
            continue
        text = event_text(event)
        if not router.usable(text):
            continue
        for index, sentence in enumerate(split_sentences(text)[: router.max_sentences]):
            if decisions.homes(event.id, index) or known.get((event.id, index)):
                continue
            where.append((event.id, index))
            asked.append((sentence, None))
    if not asked:
        return {}, set()
    try:
        routes = await router.route_sentences(asked)
    except Exception:  # the filters below still apply
        return {}, set()
    homes: dict[tuple[str, int], set[MemoryHome]] = {}
    nothing: set[tuple[str, int]] = set()
    for slot, routed in zip(where, routes, strict=True):
        if (
            routed.decision is not None
            and routed.decision.label == NOTHING_LABEL
            and not routed.candidates
        ):
            nothing.add(slot)
        found = {route(c) for c in routed.candidates} & NEVER_STORED
        decision = routed.decision
        if decision is not None and not session_only_holds(routed.sentence, decision, options):
            # an unsure "session only", or one said of a statement, loses nothing by being
            # stored; an unsure behaviour change or sensitive sentence is still kept out
            # (those errors are not harmless)
            found -= {MemoryHome.SESSION_STATE, MemoryHome.TURN_SCRATCH}
        if found:
            homes[slot] = found
    return homes, nothing


def _user_or_common_reason(
    event: Event,
    index: int,
    sentence: str,
    decisions: RoutingDecisions,
    fallback: dict[tuple[str, int], set[MemoryHome]],
    options: RoutedOptions,
) -> str | None:
    """Why ``sentence`` is not stored, by the rules every author shares (``None``: no reason)."""
    recorded = decisions.homes(event.id, index)
    if recorded:
        return "routed to " + ",".join(sorted(h.name for h in recorded))
    guessed = fallback.get((event.id, index), set()) & NEVER_STORED
    if guessed:
        return "routed (no record) to " + ",".join(sorted(h.name for h in guessed))
    reason = unstored_reason(sentence, options.detectors)
    if reason:
        return reason
    if event.author != USER_AUTHOR and not options.keep_agent_turns:
        return "agent turn"
    return None


def _asks(sentences: Sequence[str]) -> bool:
    """Whether an agent turn ends with a real question (not a pleasantry such as "Anything
    else?")."""
    last = strip_tags(sentences[-1]) if sentences else ""
    return last.endswith("?") and not is_filler(last)


def _request_reason(sentence: str, router_says_nothing: bool) -> str | None:
    """Why a user sentence that passed the shared rules is still no fact: the router found
    nothing to keep in it, or it only asks the agent for work. A report of the user's life
    or any other statement is kept whatever the router said: its ``nothing`` verdict misses
    plain facts ("I use Android.", "Dad lives in Enugu"), so it only settles sentences that
    state nothing."""
    if states_something(sentence):
        return None
    if router_says_nothing:
        return "routed to nothing"
    if is_request_to_agent(sentence):
        return "a request to the agent"
    return None


def _agent_reason(
    sentence: str,
    recalled: set[str],
    excluded_user: set[str],
    reported: set[str],
    options: RoutedOptions,
    listed: set[str],
) -> str | None:
    stems = set(fingerprint(content_stems(sentence)))
    if not stems:
        return "filler"
    threshold = (
        options.attributed_echo_threshold
        if ATTRIBUTION.search(sentence)
        else options.echo_threshold
    )
    if recalled and overlap(stems, recalled) >= threshold:
        return "restates recalled memory"
    if excluded_user and overlap(stems, excluded_user) >= threshold:
        return "restates a routed-away sentence"
    if reported and overlap(stems, reported) >= options.echo_threshold:
        return "restates a memory tool result"
    if listed and (
        overlap(stems, listed) >= options.echo_threshold or _values_from(sentence, listed)
    ):
        return "restates a tool's result set"
    return None


def _values_from(sentence: str, listed: set[str]) -> bool:
    """Whether every value of ``sentence`` (its stems holding a digit: codes, times, prices),
    two at least, is in a tool's result set: "The cheapest is U27613, leaving at 23:55 for 96
    euros" restates one search hit in words of its own. One value the tool never returned
    ("booking reference QX7K2P") keeps the sentence."""
    values = {s for s in content_stems(sentence) if any(c.isdigit() for c in s)}
    return len(values) >= 2 and set(fingerprint(values)) <= listed


def _with_text(event: Event, text: str) -> Event:
    role = event.content.role if event.content else None
    content = types.Content(role=role, parts=[types.Part(text=text)])
    metadata = without_keys(event.custom_metadata)  # only the policy sets index keys
    return event.model_copy(update={"content": content, "custom_metadata": metadata})
