"""The default offline extractor: rules as a gate, then the learned router, per sentence.

For each sentence of what the user said in the turn:

1. sensitive data (any detector) -> the rules' answer: one dropped candidate plus what the
   clean clauses give, or a stated allergy kept as its value; only a request to forget is
   told apart (it is acted on, never stored);
2. a certain rule hit (a preference, standing fact or behaviour rule matched) -> the rules'
   candidates; the router only adds the "replaces an earlier fact" flag;
3. filler or a question that states nothing -> nothing to keep (beyond a rule's scratch note);
4. otherwise the learned router decides the home (and the preference name); value finders
   (:mod:`.values`) read the value. A preference whose value is not found is kept as a
   long-term fact under that subject.

All sentences of a turn are embedded in one batched call. Empty, oversized (over
``max_message_chars``) and binary-looking messages route to nothing, in bounded time.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from google.adk.events.event import Event

from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.profile.tools import checked_preference
from adk_memory_kit.profile.vocabulary import DEFAULT_VOCABULARY, PreferenceVocabulary
from adk_memory_kit.routing.cue_words import (
    asks_for_automation,
    gives_standing_order,
    of_the_users_own_thing,
    only_thanks,
    says_lasting,
)
from adk_memory_kit.routing.dialogue_acts import is_request_to_agent, reports_the_users_life
from adk_memory_kit.routing.edits.change_requests import asks_to_change
from adk_memory_kit.routing.edits.forget_requests import (
    asks_to_forget,
    forget_subject,
    is_vague,
    may_ask_to_forget,
    routes_as_request,
)
from adk_memory_kit.routing.edits.keep_requests import asks_not_to_keep
from adk_memory_kit.routing.extractors import RuleBasedExtractor, dated, event_text, event_time
from adk_memory_kit.routing.harm import choose_by_harm, clauses, forget_label
from adk_memory_kit.routing.home_head import HOMES, home_probabilities
from adk_memory_kit.routing.learned import Decision, LearnedRouter
from adk_memory_kit.routing.reply_style import REPLY_STYLE
from adk_memory_kit.routing.rule import Candidate
from adk_memory_kit.routing.stated_preferences import CLOSED_VALUES, stated_preference
from adk_memory_kit.routing.value_finders import (
    DEFAULT_FINDERS,
    DEFAULT_RETIRED_FINDERS,
    MEANING_FALLBACKS,
    Finder,
    allowed_value_finder,
    allowed_value_retired,
)
from adk_memory_kit.sensitive import HEALTH, Detector, detect_sensitive
from adk_memory_kit.sensitive.redacted import RedactedMarkerDetector
from adk_memory_kit.text.people import users_part
from adk_memory_kit.text.sentences import split_sentences
from adk_memory_kit.text.signals import content_stems, is_factless_question, is_filler

_ASKS_TO_FORGET = re.compile(
    r"^\s*(?:(?:please|kindly|can you|could you|would you|just)\s+)*"
    r"(?:forget|delete|erase|remove|wipe|purge|scrub|clear)\b"
    r"(?! (?:your|the) (?:instructions|rules))",
    re.IGNORECASE,
)
_FORGET_VERBS = ("forget", "delete", "erase", "remove", "wipe", "purge", "scrub")
# a statement about the user's life that only sounds like a request to forget ("I got rid of
# my car", "We deleted our Facebook accounts"): "I" / "We" and a verb in the past, and no
# wish, instruction or word about what is kept ("I'd like my number deleted", "I want my old
# address removed", "... don't store it" are requests)
_STATEMENT = re.compile(
    r"^\s*(?:(?:actually|so|well|oh|ok|okay|yeah|yes|and|but|also)\b[,.!]?\s*)*"
    r"(?:i|we)(?:'ve|\s+have|\s+had)?(?:\s+(?:just|finally|recently|already|eventually))?\s+"
    r"(?:got|gave|sold|threw|quit|left|lost|took|shut|[a-z]+ed)\b",
    re.IGNORECASE,
)
_NOT_A_STATEMENT = re.compile(
    r"\b(?:you|your|want|wants|like|rather|prefer|need|needs|please|don't|do not|shouldn't|"
    r"should|must|stored?|kept|keep|saved?|remembered|remember|on file|memory|memories|notes|"
    r"records?|forget|delete|erase|remove|wipe|scrub|purge|can go)\b",
    re.IGNORECASE,
)


def asks_to_delete(sentence: str) -> bool:
    """Whether ``sentence`` opens as a request to forget: a deletion verb ("Forget my ...",
    "Please delete ...") or a wish that something not be kept ("Stop remembering my ...")."""
    return _ASKS_TO_FORGET.match(sentence) is not None or asks_not_to_keep(sentence)


def is_statement(sentence: str) -> bool:
    """Whether a sentence reports what the user did ("We got rid of the landline") rather than
    asking for something to be forgotten."""
    return bool(_STATEMENT.match(sentence)) and not _NOT_A_STATEMENT.search(sentence)


def looks_binary(text: str) -> bool:
    """Mostly control, private-use or replacement characters: not something a person typed."""
    if not text:
        return False
    sample = text[:4096]
    odd = sum(
        1
        for ch in sample
        if ch == "\ufffd"
        or (unicodedata.category(ch) in ("Cc", "Co", "Cs", "Cn") and ch not in "\n\r\t")
    )
    return odd / len(sample) > 0.1


def usable(text: str, max_chars: int) -> bool:
    """Whether a message is routed at all (not empty, oversized or binary-looking)."""
    return bool(text.strip()) and len(text) <= max_chars and not looks_binary(text)


def user_sentences(
    events: Sequence[Event], authors: Collection[str], max_chars: int, max_sentences: int
) -> list[tuple[str, datetime | None]]:
    """The sentences of ``authors``' usable messages, with the time each was said."""
    out: list[tuple[str, datetime | None]] = []
    for event in events:
        if event.author not in authors or event.partial:
            continue
        text = event_text(event)
        if usable(text, max_chars):
            when = event_time(event)
            sentences = split_sentences(text)[:max_sentences]
            out.extend((c, when) for s in sentences for c in clauses(s))
    return out


def is_trivial(sentence: str) -> bool:
    """Filler, or a question stating nothing (and asking to delete nothing)."""
    lowered = sentence.lower()
    if any(v in lowered for v in _FORGET_VERBS) or asks_to_forget(sentence):
        return False
    return is_filler(sentence) or is_factless_question(sentence) or only_thanks(sentence)


#: A sentence of at most this many words that states a preference plainly says only that.
_SHORT_SENTENCE_WORDS = 8

#: The router's least confidence to call a sentence sensitive when no detector found anything
#: in it (the detectors decide what is a secret; the bank's sensitive examples they miss
#: score 0.94, ids in ordinary sentences such as an order number up to about 0.8).
DROP_WITHOUT_FINDING = 0.9


#: The detector of the gate's own ``[REDACTED:<kind>]`` markers.
MASKED = RedactedMarkerDetector().name

#: A reply-style wish the router is less sure of than this goes to review instead.
REPLY_STYLE_FLOOR = 0.4


#: Labels a request to change one of the user's details overrides: it is an update.
_CHANGE_NOT = frozenset({"forget", "review", "nothing", "drop", "session_state"})


# a clause that gives a reason or a consequence ("... because we're going to Osaka", "..., so
# we're off to Hawaii"): what comes before it is the sentence's own point
_THEN_CLAUSE = re.compile(r"\b(?:because|since|as|so|cos|cuz|'cause)\b", re.IGNORECASE)


@dataclass(frozen=True)
class SentenceRoute:
    """How one sentence was routed: its candidates, the router's decision and whether a
    rule settled it (``by_rule``)."""

    sentence: str
    candidates: tuple[Candidate, ...]
    decision: Decision | None
    by_rule: bool


class LearnedExtractor:
    """Candidates from what the user said: rules as a gate, the learned router for the rest.

    Args:
        router: the classifier (default: :class:`LearnedRouter` on the shipped bank).
        vocabulary: the preference names ``user:`` state accepts (the router's names outside
            it become long-term facts under that subject).
        finders: value finders for preference names (default ones for the kit's names; a
            name with ``allowed_values`` gets one that looks for those values).
        rules: the rule-based gate.
    """

    #: No model call: a turn may be routed twice (its decisions are cached by text), so the
    #: routing plugin may look for a request to forget before the reply.
    runs_offline = True

    def __init__(
        self,
        router: LearnedRouter | None = None,
        *,
        vocabulary: PreferenceVocabulary = DEFAULT_VOCABULARY,
        finders: Mapping[str, Finder] | None = None,
        rules: RuleBasedExtractor | None = None,
        authors: Collection[str] = ("user",),
        detectors: Sequence[Detector] | None = None,
        max_message_chars: int = 8_000,
        max_sentences: int = 40,
    ) -> None:
        self.router = router or LearnedRouter()
        self.vocabulary = vocabulary
        self.rules = rules or RuleBasedExtractor(detectors=detectors)
        self.authors = set(authors)
        self.detectors = detectors
        self.max_message_chars = max_message_chars
        self.max_sentences = max_sentences
        self.finders: dict[str, Finder] = dict(DEFAULT_FINDERS)
        for name, values in vocabulary.allowed_values.items():
            if name not in self.finders:
                self.finders[name] = allowed_value_finder(values)
        self.finders.update(finders or {})
        # what a sentence says no longer holds ("not vegan any more"), for the names whose
        # finder is the kit's own
        self.retired_finders: dict[str, Finder] = {
            name: finder
            for name, finder in DEFAULT_RETIRED_FINDERS.items()
            if self.finders.get(name) is DEFAULT_FINDERS.get(name)
        }
        for name, values in vocabulary.allowed_values.items():
            if name not in self.retired_finders and name not in (finders or {}):
                self.retired_finders[name] = allowed_value_retired(values)

    def usable(self, text: str) -> bool:
        """Whether a message is routed at all (not empty, oversized or binary-looking)."""
        return usable(text, self.max_message_chars)

    def sentences(self, events: Sequence[Event]) -> list[tuple[str, datetime | None]]:
        """The user's sentences of ``events`` that are routed, with the time each was said."""
        return user_sentences(events, self.authors, self.max_message_chars, self.max_sentences)

    async def extract(self, events: Sequence[Event]) -> list[Candidate]:
        routes = await self.route_sentences(self.sentences(events))
        return [dated(c) for r in routes for c in r.candidates]

    async def route_sentences(
        self, sentences: Sequence[tuple[str, datetime | None]]
    ) -> list[SentenceRoute]:
        """Route each sentence (one batched embedding call for those that need the router)."""
        trivial = [is_trivial(s) for s, _ in sentences]
        # a question that states nothing is asked too, but only for a sure "this session's
        # work" ("what would 35 pounds of fish at 250 a pound come to?"): nothing else
        questions = [
            t and is_factless_question(s) for (s, _), t in zip(sentences, trivial, strict=True)
        ]
        ask = [s for (s, _), t, q in zip(sentences, trivial, questions, strict=True) if not t or q]
        decisions = iter(await self.router.classify(ask) if ask else [])
        routes = []
        for (sentence, when), skip, question in zip(sentences, trivial, questions, strict=True):
            decision = None if skip and not question else next(decisions)
            if question and not _sure_session_work(decision):
                decision = None
            route = self._with_stated_preference(self._route(sentence, when, decision), when)
            chosen = choose_by_harm(
                sentence,
                route.candidates,
                decision.label if decision else None,
                reported=reports_the_users_life(sentence),
            )
            routes.append(
                _not_the_users_preference(replace(route, candidates=chosen), self.finders)
            )
        routes = self._requests_for_this_session(routes, [when for _, when in sentences])
        return await self._tasks_beside_secrets(routes, [when for _, when in sentences])

    def _requests_for_this_session(
        self, routes: list[SentenceRoute], whens: Sequence[datetime | None]
    ) -> list[SentenceRoute]:
        """``routes`` where a sentence routed nowhere is a request for this conversation's work
        ("What's 68 lambs at £94 a head come to?", "Daba l9a liya train Marrakech-Fès
        ghedda."): the home head (any language) gives it this session at least
        :data:`SESSION_WORK_FLOOR`, so it becomes a session note. Filler, thanks and what
        the router called sensitive stay nowhere; without the multilingual encoder nothing
        changes."""
        empty = [
            i
            for i, route in enumerate(routes)
            if not route.candidates
            and not (route.decision is not None and route.decision.label == "drop")
            and not is_filler(route.sentence)
            and not only_thanks(route.sentence)
        ]
        if not empty:
            return routes
        probabilities = home_probabilities([routes[i].sentence for i in empty])
        if probabilities is None:
            return routes
        session = HOMES.index("session")
        routes = list(routes)
        for i, row in zip(empty, probabilities, strict=True):
            if float(row[session]) >= SESSION_WORK_FLOOR:
                note = self._make(routes[i].sentence, whens[i], "session_state")
                routes[i] = replace(routes[i], candidates=(note,) if note else ())
        return routes

    async def _tasks_beside_secrets(
        self, routes: list[SentenceRoute], whens: Sequence[datetime | None]
    ) -> list[SentenceRoute]:
        """``routes`` where a dropped sentence also asks for this session's work in a part
        that holds nothing sensitive ("I'm on antidepressants, move Friday's meeting to
        Monday"): that part joins as a session note, the rest stays dropped. A part is kept
        only with no digit, no detector finding, and the router :data:`TASK_BESIDE_SECRET`
        sure it is this session's work."""
        asks: list[tuple[int, str]] = []
        for index, route in enumerate(routes):
            if not route.candidates or not all(c.sensitive for c in route.candidates):
                continue
            pieces = [p.strip() for p in _PIECES.split(route.sentence) if p and p.strip()]
            if len(pieces) < 2:
                continue
            for piece in pieces:
                if len(piece) < _MIN_PIECE_CHARS or any(ch.isdigit() for ch in piece):
                    continue
                if detect_sensitive(piece, self.detectors):
                    continue
                asks.append((index, piece))
        if not asks:
            return routes
        decisions = await self.router.classify([piece for _, piece in asks])
        routes = list(routes)
        for (index, piece), decision in zip(asks, decisions, strict=True):
            if decision.label != "session_state" or decision.confidence < TASK_BESIDE_SECRET:
                continue
            note = Candidate(
                text=piece,
                about_user=True,
                needed_later_this_session=True,
                observed_at=whens[index],
            )
            route = routes[index]
            routes[index] = replace(route, candidates=(*route.candidates, note))
        return routes

    def _route(
        self, sentence: str, when: datetime | None, decision: Decision | None
    ) -> SentenceRoute:
        if decision is None:  # filler or a fact-less question: only what a rule says of it
            ruled = self.rules.extract_text(sentence, observed_at=when)
            return SentenceRoute(sentence, tuple(ruled), None, True)
        label = decision.label
        if label in _CHANGE_NOT and asks_to_change(sentence):
            # "Change my dentist to Dr Reyes": a lasting fact replacing the old one, never a
            # deletion, an order for a reviewer or nothing (the bank's forget, review and
            # question examples all sit close to such a request)
            label = "update"
        if label == "forget":
            pass
        elif label == "forget_vague":
            # the bank's "forget what I said" that names something after all ("un-remember the
            # dog bite thing"): acted on, not sent to a reviewer
            if routes_as_request(sentence, strict=True) and not is_vague(forget_subject(sentence)):
                label = "forget"
        elif asks_not_to_keep(sentence) or routes_as_request(
            sentence, strict=label in ("review", "session_state")
        ):
            # "stop remembering ...", "I'd rather you didn't know about ...", "bin the info
            # about my ...": a request the handler's grammar reads, about the user's own thing
            # or what the assistant holds; never stored, nor shown to a reviewer
            label = "forget"
        elif decision.preference and _ASKS_TO_FORGET.match(sentence):
            # a deletion verb on a saved preference ("clear my home airport")
            label = "forget"
        unsure_style = decision.preference == REPLY_STYLE and label == decision.label
        if unsure_style and decision.confidence < REPLY_STYLE_FLOOR:
            # an unsure wish about the agent's replies: a person decides (review over user:
            # state for anything about the agent's conduct)
            label = "review"
        if (
            label == "review"
            and decision.own_label in ("long_term", "update")
            and of_the_users_own_thing(sentence)
            and not gives_standing_order(sentence)
        ):
            # "My heating comes on automatically at six.": the home head hears an automation
            # order, the router's own head a fact about the user's thing; nothing is asked of
            # the agent, so the fact stands
            label = decision.own_label
        label = forget_label(sentence, label)
        findings = detect_sensitive(sentence, self.detectors)
        if label == "drop" and not findings and decision.confidence < DROP_WITHOUT_FINDING:
            # the detectors found nothing: an unsure "sensitive" guess would silently lose a
            # phone number, an order number or a plot number; the next most likely label,
            # unless that is this session's work: a session note of what may be a secret
            # (a line of a key block read alone) would reach session state and the episodic
            # log, while nothing lasting is lost by keeping nothing
            label = decision.runner_up or label
            if label == "session_state":
                label = "nothing"
        if label in ("long_term", "update", "session_state", "nothing") and asks_for_automation(
            sentence
        ):
            # something the agent is to do on its own ("every Friday post the numbers to
            # Slack automatically"): a standing order, which a person reviews
            label = "review"
        if label in ("review", "nothing") and reports_the_users_life(sentence):
            # a report of what the user did or has ("Went with Direct Line this year, the
            # renewal quote was daft", "Turned down the offer from Arup") is no instruction
            # for a reviewer, nor chatter: a lasting fact (losing it is the costlier mistake)
            label = "update" if decision.replaces_earlier else "long_term"
        if label == "forget" and is_statement(sentence):
            # what the user did ("We got rid of the landline"): a change to a lasting fact
            label = "update"
        masked = bool(findings) and all(f.detector == MASKED for f in findings)
        if label == "forget" and masked and not may_ask_to_forget(sentence):
            # text the gate already masked, with no word a request to forget is said with in
            # any language the kit reads ("My card is [REDACTED:payment_card]", as ADK's
            # session service keeps it): the router's guess, so it is dropped like the original
            label = "drop"
        if label == "forget":  # acted on, never stored: safe even with sensitive words in it
            request = Candidate(text=sentence, forget_request=True, observed_at=when)
            return SentenceRoute(sentence, (request,), decision, False)
        ruled = self.rules.extract_text(sentence, observed_at=when)
        if findings:
            health_only = all(f.kind == HEALTH for f in findings)
            stated = [c for c in ruled if not c.sensitive and c.key == "allergies"]
            if health_only and not stated and decision.preference == "allergies":
                value = self.finders["allergies"](sentence)
                if value:
                    ruled = [self._preference(sentence, when, "allergies", value)]
            return SentenceRoute(sentence, tuple(ruled), decision, True)
        changes = label == "update" or decision.replaces_earlier
        if (
            ruled
            and label in ("long_term", "update")
            and not any(c.needed_in_future_sessions for c in ruled)
            and len(point := _THEN_CLAUSE.split(sentence, maxsplit=1)) == 2
            and len(content_stems(point[0])) >= 2
            and not self.rules.extract_text(point[0])
        ):
            # a rule found only something for this session in a reason or consequence ("...
            # because we're going to Osaka next year": the trip) of a sentence the router
            # keeps as a lasting fact ("dropped Spanish, started Japanese lessons ..."): both
            # are kept
            lasting = self._make(sentence, when, label, changes)
            ruled = [*ruled, lasting] if lasting else ruled
        if ruled:
            if changes:
                ruled = [
                    replace(c, replaces_earlier=True) if c.needed_in_future_sessions else c
                    for c in ruled
                ]
            return SentenceRoute(sentence, tuple(ruled), decision, True)
        if label == "drop" and decision.confidence < DROP_WITHOUT_FINDING:
            # the detectors found nothing and the router named no runner-up (see above): the
            # sentence is left to the other filters
            return SentenceRoute(sentence, (), decision, False)
        made = self._make(sentence, when, label, changes, decision.own_label, decision.confidence)
        return SentenceRoute(sentence, (made,) if made else (), decision, False)

    def _with_stated_preference(self, route: SentenceRoute, when: datetime | None) -> SentenceRoute:
        """``route`` with the preference its sentence states plainly
        (:func:`~.stated_preferences.stated_preference`) when the router named none: it
        replaces a lasting fact of a short sentence, and joins one of a longer sentence."""
        found = route.candidates
        if any(c.key or c.sensitive or c.forget_request for c in found):
            return route
        stated = stated_preference(route.sentence)
        if stated is None or stated[0] not in self.vocabulary:
            return route
        if any(c.changes_agent_behaviour for c in found) and stated[0] not in CLOSED_VALUES:
            return route  # a free-text value said with an order: a person decides
        preference = self._preference(route.sentence, when, *stated)
        lasting = [c for c in found if c.needed_in_future_sessions]
        kept = [c for c in found if not (c.needed_in_future_sessions or c.changes_agent_behaviour)]
        if lasting and len(route.sentence.split()) > _SHORT_SENTENCE_WORDS:
            kept = [*lasting, *kept]
        return replace(route, candidates=(preference, *kept))

    def _preference(self, sentence: str, when: datetime | None, name: str, value: str) -> Candidate:
        return Candidate(
            text=sentence,
            key=name,
            value=value,
            exact_value=True,
            about_user=True,
            needed_in_future_sessions=True,
            observed_at=when,
        )

    def _as_said(self, name: str, sentence: str) -> str | None:
        """``sentence`` as the value of preference ``name`` (``None`` where it may not be one):
        only a free-text name of the vocabulary (no closed set of values, not the reply
        style, which a person reviews), within its length, and not reading as an instruction
        to the agent: the checks :func:`~adk_memory_kit.profile.tools.write_preference`
        makes, so what is routed to ``user:`` state is what the applier writes there."""
        if name == REPLY_STYLE or name in self.vocabulary.allowed_values:
            return None
        try:
            return checked_preference(name, sentence, self.vocabulary)[1]
        except InvalidInputError:
            return None

    def _make(
        self,
        sentence: str,
        when: datetime | None,
        label: str,
        changes: bool = False,
        own_label: str | None = None,
        confidence: float = 1.0,
    ) -> Candidate | None:
        """The candidate a label gives (``None``: nothing to keep); ``changes``: the router
        says the sentence replaces an earlier fact (the candidate is flagged
        ``replaces_earlier``); ``own_label``: the reader's own first choice where the home
        head chose the home (a value read by meaning alone, such as the language a sentence
        is written in, is taken only when the reader named that preference itself, or the
        heads are at least :data:`SURE_PREFERENCE` sure of the home: ``confidence``)."""

        def lasting(
            key: str | None = None, replaces_earlier: bool = False, retires: str | None = None
        ) -> Candidate:
            return Candidate(
                text=sentence,
                key=key,
                about_user=True,
                needed_in_future_sessions=True,
                replaces_earlier=replaces_earlier,
                observed_at=when,
                retires_value=retires,
            )

        if label.startswith("user_state:"):
            name = label.split(":", 1)[1]
            finder = self.finders.get(name)
            value = finder(sentence) if finder else None
            fallback = MEANING_FALLBACKS.get(name)
            named = own_label is None or own_label == label or confidence >= SURE_PREFERENCE
            if not value and fallback and named and finder is DEFAULT_FINDERS.get(name):
                value = fallback(sentence)
            if value and name in self.vocabulary:
                # flagged: the applier also supersedes the lasting fact said before, if any
                preference = self._preference(sentence, when, name, value)
                return replace(preference, replaces_earlier=changes)
            if name == REPLY_STYLE and finder is DEFAULT_FINDERS.get(name):
                if is_request_to_agent(sentence) and not says_lasting(sentence):
                    return None  # "Summarise my findings": done in the turn
                # a wish about the agent's replies in no value the kit keeps ("I'd rather you
                # didn't make jokes"): its conduct, so a person decides, never a recalled fact
                return Candidate(text=sentence, changes_agent_behaviour=True, observed_at=when)
            retired = self.retired_finders.get(name)
            gone = retired(sentence) if retired and name in self.vocabulary else None
            # "I'm not vegetarian any more": a fact that replaces the diet said before, and
            # the saved value is cleared (it is not the value the sentence states)
            if gone:
                return lasting(key=name, replaces_earlier=True, retires=gone)
            own_words = confidence >= AS_SAID_FLOOR and finder is DEFAULT_FINDERS.get(name)
            said = self._as_said(name, sentence) if own_words else None
            if said:
                # the heads are sure the sentence sets this preference and the kit's finder (an
                # app's own is never second-guessed) reads no value ("Gwil is fine, no need for
                # Mr Pritchard"): the user's own words are the value, shown in every session
                preference = self._preference(sentence, when, name, said)
                return replace(preference, replaces_earlier=changes, in_own_words=True)
            # no value of the preference in it and the heads unsure: the label alone does not
            # make it that typed subject ("My manager is also called Hannah" is no preferred
            # name, and must not replace "My ex-girlfriend was called Hannah" as if it were)
            return lasting(replaces_earlier=changes)
        if label == "long_term":
            return lasting()
        if label == "update":
            return lasting(replaces_earlier=True)
        if label == "session_state":
            return Candidate(
                text=sentence, about_user=True, needed_later_this_session=True, observed_at=when
            )
        if label in ("review", "forget_vague"):
            return Candidate(text=sentence, changes_agent_behaviour=True, observed_at=when)
        if label == "drop":
            return Candidate(text=sentence, sensitive=True, observed_at=when)
        if label == "forget":
            return Candidate(text=sentence, forget_request=True, observed_at=when)
        return None


#: The heads' least confidence in a ``user:`` home for a value read by meaning alone (the
#: language a sentence is written in) when the reader did not name the preference itself.
SURE_PREFERENCE = 0.6

#: The heads' least confidence in a ``user:`` home for a sentence whose value no finder reads
#: to be kept there in the user's own words (:meth:`LearnedExtractor._as_said`). Chosen on the
#: first-read routing corpora r1-r24, all read before: of the sentences it moves from long-term
#: memory, 206 of 239 at or above 0.5 were ``user:`` state by their writers, 54 of 96 between
#: 0.4 and 0.5, 15 of 58 below 0.4.
AS_SAID_FLOOR = 0.5

#: The router's least confidence that a question stating nothing is this session's work.
SESSION_QUESTION_FLOOR = 0.5

#: The home head's least probability of "this session" for a sentence routed nowhere to be
#: kept as this conversation's work (:meth:`LearnedExtractor._requests_for_this_session`).
#: The first-read corpora's writers put one-off requests, today's calculations and questions
#: for the task at hand in the session (issue 44 scores that home); the kit's bank called many
#: of them nothing. Chosen in stop 62 on r1-r25, all read before, with the heads of that time:
#: exact 2,907 -> 2,948 of 3,870 at 0.5 (2,938 at 0.7, 2,951 at 0.35); with the relabelled bank
#: and refit home head shipped beside it (stop 63) the change as a whole reads 3,025.
SESSION_WORK_FLOOR = 0.5

#: The router's least confidence that a part of a dropped sentence is this session's work.
TASK_BESIDE_SECRET = 0.6
_PIECES = re.compile(r"\s*[,;:\uff0c\u3001\uff1b\uff1a]\s*|\s+[-\u2013\u2014]\s+")
_MIN_PIECE_CHARS = 8


def _sure_session_work(decision: Decision | None) -> bool:
    """Whether the router calls a fact-less question this session's work, surely enough."""
    return (
        decision is not None
        and decision.label == "session_state"
        and decision.confidence >= SESSION_QUESTION_FLOOR
    )


def _is_value(word: str) -> bool:
    """Whether a capitalised word is itself a value of a default preference ("Window",
    "English", "Economy"), not a person's name."""
    return any(find(word) for name, find in DEFAULT_FINDERS.items() if name != REPLY_STYLE)


def _not_the_users_preference(route: SentenceRoute, finders: Mapping[str, Finder]) -> SentenceRoute:
    """A preference said of someone else ("My husband prefers the aisle seat", "Maya can't
    eat peanuts") is a lasting fact about them, never the user's ``user:`` value; in a
    sentence that names both, the value comes from what is said of the user ("My partner
    prefers the window, I like the aisle": aisle)."""
    if not any(c.exact_value and c.key for c in route.candidates):
        return route
    users = users_part(route.sentence, _is_value)
    if users is not None and route.sentence.startswith(users):
        return route  # all of it is said of the user

    def theirs(c: Candidate) -> Candidate:
        if not (c.exact_value and c.key):
            return c
        find = finders.get(c.key)
        value = find(users) if users and find else None
        if value:
            return replace(c, value=value)
        return replace(c, key=None, value=None, exact_value=False, retires_value=None)

    return replace(route, candidates=tuple(theirs(c) for c in route.candidates))


_SHARED: list[LearnedExtractor] = []


def shared_learned_extractor() -> LearnedExtractor:
    """One :class:`LearnedExtractor` on the shipped bank per process (trained on first use),
    shared by the write policy and anything else that wants the default offline router."""
    if not _SHARED:
        _SHARED.append(LearnedExtractor())
    return _SHARED[0]
