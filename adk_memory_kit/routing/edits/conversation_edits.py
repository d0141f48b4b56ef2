"""What the user says about their memory, acted on: updates supersede, "please forget" deletes.

Wired into the router's applier (``MemoryApplier(update_handler=..., forget_handler=...)``,
see :func:`conversation_edit_handlers`), both use the memory service's own machinery:

* an update (a fact flagged ``replaces_earlier``): the user's current memory about the same
  subject (:mod:`.update_subject`: the same people, the same slot, close enough; or the same
  typed ``key``), the closest if several, is corrected with ``correct_memory``: the old one
  gets ``valid_to`` (still reached with ``as_of``), the new one is current. With none about
  its subject, the fact is stored as usual: a plain fact wrongly flagged as an update
  replaces nothing unrelated.
* a forget request (``MemoryHome.FORGET``): what to forget is the request minus its verb
  phrase. A subject that names nothing ("forget what I just told you") is not guessed at:
  nothing is deleted and the state asks for a confirmation. Otherwise every memory of the
  user (superseded ones too) is scored: the cosine similarity of its text to the subject or,
  when the subject names a kind of detail ("my home address", :mod:`.detail_kinds`; or one
  term of a kind's label, "my age", then a little further discounted), to that kind's
  closest example sentence less a discount. Only memories that match the subject on
  their own are deleted (the absolute bar, :meth:`ConversationEdits._on_its_own`: close
  enough, every naming word, or clearly that kind of detail; never a memory about someone
  or something the request does not name), so a request for something never stored does
  not take its closest neighbour: weak matches ask for a confirmation instead. Of those,
  every memory scoring at least ``forget_min_similarity`` and within ``forget_margin`` of the
  best is deleted; a weak best match with a close runner-up asks for a confirmation too,
  unless the people the request names settle it (:meth:`ConversationEdits.same_people`).
  ``user:`` preferences, session notes and working-memory facts that name it are cleared
  too. The request itself is never stored; the session state gets ``FORGET_STATE_KEY`` = the
  count and the homes reached, never the text, so the agent can tell the user what was
  removed. The memories it asked about (and, with nothing else matched, one at least
  ``ask_min_similarity`` close though it shares no word) are held for the user's answer:
  their ids in ``PENDING_FORGET_KEY``, their texts in ``temp:`` state for the agent to show;
  :meth:`ConversationEdits.settle` applies the answer in a later turn (the routing plugin
  calls it).

  With a ``forget_judge`` (:class:`~.forget_judge.ForgetJudge`: the agent's own model, see
  ``conversation_edit_handlers(model=...)``), the memories the offline matcher chose and the
  closest others (below the bars too) are shown to the model, numbered, beside the subject;
  the numbers it answers decide what is deleted (:meth:`ConversationEdits.judged`). A vague
  request never reaches it; a failed call or an invalid answer leaves the offline decision.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import numpy as np
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.models.base_llm import BaseLlm
from google.genai import types as genai_types

from adk_memory_kit._adk_compat import context_memory_service
from adk_memory_kit.core.markers import ASKED_TEXTS_KEY, FORGET_STATE_KEY, PENDING_FORGET_KEY
from adk_memory_kit.core.scope import user_scope
from adk_memory_kit.embedders.base import checked_embed
from adk_memory_kit.memory import forget_log
from adk_memory_kit.memory.entries import entry_from_row, search_filters
from adk_memory_kit.memory.lifecycle_schema import ensure_lifecycle_schema
from adk_memory_kit.memory.query import query_terms
from adk_memory_kit.memory.search import SearchOptions, search_on_engine
from adk_memory_kit.routing.apply import (
    NOT_A_REQUEST,
    NOTES_KEY,
    RECORDING_EARLIER,
    SESSION_FACT_PREFIX,
    RoutingOutcome,
    long_term_entry,
    normalize_fact_text,
)
from adk_memory_kit.routing.edits.detail_kinds import DEFAULT_DETAIL_KINDS, DetailKinds
from adk_memory_kit.routing.edits.forget_judge import ForgetJudge
from adk_memory_kit.routing.edits.forget_requests import (
    VAGUE_WORDS,
    asks_to_forget,
    forget_subject,
    is_idiom,
    is_vague,
    keeps_what_it_says,
    subject_parts,
)
from adk_memory_kit.routing.edits.named_people import ROLE_WORDS, relation
from adk_memory_kit.routing.edits.update_subject import (
    SubjectCheck,
    first_clause,
    people,
    subject_keys,
)
from adk_memory_kit.routing.edits.working_memory_forget import forget_in_working_memory
from adk_memory_kit.routing.extractors import event_text, event_time
from adk_memory_kit.routing.records import RoutingDecisions
from adk_memory_kit.routing.rule import Candidate, MemoryHome
from adk_memory_kit.routing.write_policy import unstored_reason
from adk_memory_kit.text.people import PEOPLE
from adk_memory_kit.text.sentences import split_sentences
from adk_memory_kit.text.signals import content_stems, overlap, words

if TYPE_CHECKING:
    from google.adk.agents.context import Context

logger = logging.getLogger(__name__)

#: At most this many memories are shown to the user for one confirmation.
MAX_CONFIRM = 3


def _names_it(naming: set[str], name: str, value: Any) -> bool:
    """Whether a state value under ``name`` (a preference, a session fact) shares a naming
    word of a forget request ("my trip to Lima": ``trip_destination`` = "Lima")."""
    said = content_stems(f"{name.replace('_', ' ')} {value}")
    return bool(naming) and overlap(said, naming) > 0


def _record(deleted: int, homes: list[str], confirmation: int | str | None) -> dict[str, Any]:
    """The forget record the session state gets: counts and homes, never text;
    ``needs_confirmation`` when the agent should ask (a count of close matches, ``"vague"``
    or ``"unclear"``)."""
    record: dict[str, Any] = {
        "deleted": deleted,
        "homes": homes,
        "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    if confirmation:
        record["needs_confirmation"] = confirmation
    return record


# words that qualify a subject without naming it: "my old job" is named by "job" alone, so a
# memory sharing only "old" (or "number", "name") with the subject does not match it on its own
_GENERIC = content_stems(
    "old new previous former current latest first last number numbers name names information "
    "info detail details plan plans history record records data personal private favourite "
    "against"
)


_SUBJECT_NAME = re.compile(r"\b(?!I\b)[A-Z][a-z]+\b")


def _names_in(subject: str) -> set[str]:
    """The stems of the capitalised names in a forget request's subject ("Instagram")."""
    return {s for n in _SUBJECT_NAME.findall(subject) for s in content_stems(n)}


# a subject ending in one of these names an identifier ("my passport number"): "details" or
# "information" add nothing ("my flight details" is any memory about the flight)
_IDENTIFIER = content_stems("number numbers name names")


def _generic_head(subject: str) -> str | None:
    """The subject's last word when it names an identifier ("number" in "my passport
    number"): a memory holding the other words only ("My passport expires in August") is
    not it."""
    last = [w for w in words(subject) if content_stems(w)][-1:]
    stems = content_stems(last[0]) if last else set()
    return next(iter(stems & _IDENTIFIER), None)


def _holds_identifier(head: str, text: str) -> bool:
    """Whether a memory can hold the identifier a subject ends with: it says the word, or
    holds a number (for "number") or a capitalised name (for "name")."""
    if head in content_stems(text):
        return True
    if head.startswith("numbe"):  # digits, but not only a year ("expires in August 2027")
        return any(not _YEAR.fullmatch(run) for run in re.findall(r"\d+", text))
    return bool(_NAME.search(text))


_YEAR = re.compile(r"(?:19|20)\d\d")
_DATE_STEMS = content_stems("date dates")
# a date said in a memory: "14 October", "on the 3rd", "12/05"
_MONTHS = r"january|february|march|april|june|july|august|september|october|november|december"
_A_DATE = re.compile(
    rf"\b(?:{_MONTHS}|jan|feb|apr|jun|jul|aug|sept|oct|nov|dec)\b|(?-i:\bMay\b)"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b|\b\d{1,2}[/.-]\d{1,2}\b",
    re.IGNORECASE,
)


_MONTH = re.compile(rf"\b(?:{_MONTHS})\b|(?-i:\bMay\b)", re.IGNORECASE)
_BEFORE_NOW = re.compile(r"\b(?:last|yesterday|ago|past|previous|earlier)\b", re.IGNORECASE)
_AFTER_NOW = re.compile(r"\b(?:next|tomorrow|upcoming|coming|soon)\b", re.IGNORECASE)


def _another_time(subject: str, text: str) -> bool:
    """Whether a memory is dated other than the subject says: other months only ("my blood
    test in May" / "... in October"), or after now where the subject is before it ("my
    blood results from last week" / "the next blood test"), or the other way round."""
    wanted = {m.lower() for m in _MONTH.findall(subject)}
    held = {m.lower() for m in _MONTH.findall(text)}
    if wanted and held and not wanted & held:
        return True
    before, after = bool(_BEFORE_NOW.search(subject)), bool(_AFTER_NOW.search(subject))
    if before != after:
        side, other = (_BEFORE_NOW, _AFTER_NOW) if before else (_AFTER_NOW, _BEFORE_NOW)
        return bool(other.search(text)) and not side.search(text)
    return False


def _holds_words(stems: set[str], text: str) -> bool:
    """Whether a memory holds every one of a subject's naming stems; "date" is held by a date
    ("my court date": "... court on 14 October")."""
    missing = stems - content_stems(text)
    if missing and missing <= _DATE_STEMS:
        return bool(_A_DATE.search(text))
    return not missing


# a capitalised name (not an acronym, not "I"), anywhere but a sentence's first word
_NAME = re.compile(r"(?<=[\w,] )(?!I\b)[A-Z][a-z]+\b")


# a subject opening with someone's name as its possessor ("Sarah's pregnancy")
_NAMED_OWNER = re.compile(r"^(?!(?:I|My|Our|The|Your|That|This|It)\b)([A-Z][a-z]+)['\u2019]s?\s")


def _owner(text: str) -> tuple[str, str] | None:
    """What a memory starting "my ..." / "our ..." is about, as (word, stem) ("My sister's
    number is ..." -> sister), skipping generic words ("my old flat" -> flat); else ``None``,
    also when the user is one of them ("My husband and I are ...": the user's own too)."""
    tokens = words(text)
    if not tokens or tokens[0] not in ("my", "our"):
        return None
    for i, token in enumerate(tokens[1:4], start=1):
        stems = content_stems(token) - _GENERIC
        if stems:
            with_user = tokens[i + 1 : i + 3] in (["and", "i"], ["and", "me"])
            if with_user and not _THEIRS.intersection(tokens[i + 3 :]):
                return None  # "My wife and I have a mortgage", not "... about her mortgage"
            return token.split("'")[0], next(iter(stems))
    return None


# words that give a detail to someone other than the user
_THEIRS = frozenset("her his their hers theirs him them she he".split())
# "in-laws" is read as "in", "laws"
_IN_LAW = frozenset({"law", "in-law"})


def _modifies(owner: str, text: str, naming: set[str]) -> bool:
    """Whether the word a memory opens with ("my gym ...") only qualifies the very thing a
    request names, said right after it ("my gym locker code" for "the locker code"; "My
    debit card PIN" for "my PIN"): it is the user's, not another owner's. Never when a word
    up to the thing names someone ("My dads wifi password", "My gym buddy's locker code",
    "My boss laptop password") or is a possessive."""
    tokens = words(text)
    at = next((i for i, t in enumerate(tokens[:4]) if t.split("'")[0] == owner), None)
    if at is None or not naming:
        return False
    upto = tokens[at : at + 4]
    thing = next(
        (i for i in range(len(upto)) if naming <= content_stems(" ".join(upto[1 : i + 1]))),
        None,
    )
    return thing is not None and not any(_names_someone(t) for t in upto[:thing])


def _names_someone(token: str) -> bool:
    """Whether a word names a person or says whose ("dads", "neighbours", "boss", "mum's")."""
    if token.endswith(("'s", "s'")):
        return True
    bare = token.split("'")[0]
    singular = bare[:-1] if bare.endswith("s") else bare
    return bool({bare, singular} & (PEOPLE | ROLE_WORDS | _IN_LAW))


_POSSESSIVE = re.compile(r"\b([a-z][a-z-]*?)(?:'s|(?<=s)')(?=\s|$)")


def possessor(subject: str) -> str | None:
    """Whose detail a subject names when it is someone else's ("my wife's phone number" ->
    "wife", "the kids' school" -> "kids"); ``None`` for the user's own."""
    match = _POSSESSIVE.search(subject.lower().replace("\u2019", "'"))
    if match is None or not (content_stems(match.group(1)) - VAGUE_WORDS):
        return None  # "what's on my mind", "that's": a contraction, not a possessor
    return match.group(1)


def _head(subject: str, whose: str) -> str:
    """The subject without its possessor ("wife's phone number" -> "phone number")."""
    text = subject.lower().replace("\u2019", "'")
    text = re.sub(rf"\b(?:my|our|the)?\s*{re.escape(whose)}'s?(?=\s|$)", " ", text)
    return " ".join(text.split()) or subject


def _naming_stems(subject: str) -> set[str]:
    """The words that name what a subject is about: its head's content stems (someone
    else's possessor left out), generic and vague words aside."""
    whose = possessor(subject)
    return content_stems(_head(subject, whose) if whose else subject) - _GENERIC - VAGUE_WORDS


def _text(entry: Any) -> str:
    parts = entry.content.parts if entry.content else None
    return " ".join(p.text or "" for p in parts or [])


def _unit(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.clip(norms, 1e-12, None)


def _dense(entry: Any) -> float:
    scores = (entry.custom_metadata or {}).get("scores") or {}
    dense = scores.get("dense")
    return float(dense) if dense is not None else 0.0


@dataclass(frozen=True)
class SaidEarlier:
    """A user sentence of an earlier turn of the session that no router stored anywhere."""

    event_id: str
    index: int
    text: str
    when: datetime | None


_SAID = "said-earlier:"
# a pending confirmation's item for such a sentence: ``said:<event id>:<index>``
_SAID_ITEM = "said:"


def _said_entry(key: str, said: SaidEarlier) -> MemoryEntry:
    """A memory-like entry for a sentence not stored yet (``key`` as its id), to be scored."""
    return MemoryEntry(
        id=key,
        content=genai_types.Content(role="user", parts=[genai_types.Part(text=said.text)]),
        author="user",
    )


def unstored_sentences(context: Context, limit: int) -> list[SaidEarlier]:
    """The user's last ``limit`` sentences of earlier turns of this session that no routing
    record gives a home and that ingestion would store (not sensitive, filler or a
    question without a fact), oldest first; the sentence indexes are the write policy's.
    Empty unless the routing plugin records what the caller decides about them
    (``RECORDING_EARLIER``)."""
    if limit <= 0 or not RECORDING_EARLIER.get():
        return []
    session = context.session
    decisions = RoutingDecisions(session.events)
    found: list[SaidEarlier] = []  # newest first: a long session's older turns are not read
    for event in reversed(session.events):
        if (
            event.author != "user"
            or event.invocation_id == context.invocation_id
            or event.partial
            or not event.content
            or not event.id
        ):
            continue
        for index, sentence in reversed(list(enumerate(split_sentences(event_text(event))))):
            if decisions.homes(event.id, index) or unstored_reason(sentence):
                continue
            found.append(SaidEarlier(event.id, index, sentence, event_time(event)))
            if len(found) >= limit:
                return found[::-1]
    return found[::-1]


@dataclass(frozen=True)
class Assessment:
    """How each memory text relates to one forget subject (arrays aligned with the texts):
    cosine to the subject, score, whether it matches on its own, closest example of a kind the
    subject names (``by_kind``) and of any kind (``best_kind``), whether it is about someone
    the subject does not name, whether the possessor's head lifted it."""

    cosines: np.ndarray
    scores: np.ndarray
    own: np.ndarray
    by_kind: np.ndarray
    best_kind: np.ndarray
    names_kind: bool
    about_others: np.ndarray
    lifted: np.ndarray


@dataclass
class ConversationEdits:
    """The handlers (see the module docstring); thresholds are cosine similarities."""

    # the store's own query similarity a memory needs to be looked at for an update; which
    # one is replaced is decided by ``subject_check`` (an update about X never replaces Y)
    update_min_similarity: float = 0.2
    update_candidates: int = 8
    # an update's old fact said earlier in the session and not stored yet: the user's last
    # this many such sentences are looked at (:meth:`_replace_said_earlier`)
    earlier_sentences: int = 40
    subject_check: SubjectCheck = field(default_factory=SubjectCheck)
    forget_min_similarity: float = 0.3
    # ... but a memory holding the subject's one naming word needs this much ("my bank details"
    # / "My bank holiday plans ..." 0.36; tune: 0.35 and 0.4 lose no target, 0.45 one a set)
    one_word_min_similarity: float = 0.4
    # tune split: 0.1 also took a same-kind neighbour ("my sister's number" for "my phone
    # number"); 0.06-0.08 kept every neighbour and honoured every precise request
    forget_margin: float = 0.08
    # a weaker best match with a close runner-up is ambiguous (asked, not guessed)
    forget_confident_similarity: float = 0.45
    max_forget: int = 50
    # a memory sharing no word with the subject matches it directly only this close
    unshared_min_similarity: float = 0.6
    # ... but with nothing else to delete or ask about, one this close (and about no one the
    # subject does not name) is shown to the user for a confirmation: asked, never deleted
    ask_min_similarity: float = 0.4
    # the absolute bar (tune split): a memory this close to the subject matches it on its own;
    # the neighbours of requests whose target was never stored reached 0.58
    own_min_similarity: float = 0.6
    # ... unless it is that close only through a name they share: without the name, this
    # close (tune: targets 0.31+ without the shared name, neighbours sharing it 0.23 at most)
    name_free_min_similarity: float = 0.27
    # a kind's example this close to a memory states that kind on its own (targets: 0.41+)
    kind_own_min_similarity: float = 0.4
    # ... unless another kind's example is closer by more than this (tune: targets within
    # 0.07 of their closest kind, neighbours of another kind 0.14+ behind it)
    kind_tolerance: float = 0.1
    # a memory opening "my X" is about the subject when X is this close to it or to a kind's
    # label (tune: "house" 0.56 to "my home address"; "wife" 0.38 to "workplace")
    owner_min_similarity: float = 0.45
    # someone else's detail ("my wife's number"): a memory names them with the word or one
    # this close (tune: mum/mother 0.85, kid/daughter 0.53, partner/girlfriend 0.51)
    owner_word_similarity: float = 0.5
    # a memory naming them matches "<them>'s <head>" this close with the head adding this much
    # over "my <them>" (tune: targets 0.51+ / lift 0.1+; neighbours naming them 0.42 at most
    # but one, 0.49, whose lift is high: the bar stays above it)
    owner_head_similarity: float = 0.5
    head_lift: float = 0.1
    # a subject this close to a kind's label names that kind ("my home address")
    kind_min_similarity: float = 0.45
    # ... or this close to one term of the label ("my diagnosis": 0.81 to "diagnosis", 0.39
    # to the whole label); single words sit closer, so the bar is higher (tune: 0.65 for
    # "how much I earn" / "salary" and 0.54 "my salary" / "job" named kinds whose other
    # details were then taken for a target never stored)
    kind_term_min_similarity: float = 0.7
    # a second kind is named only this close to the first ("my kids": children 0.73, family
    # 0.54; "my height": height 0.83, weight 0.55)
    second_kind_margin: float = 0.25
    # such a kind's examples count this much less (tune: "I pay ... rent" 0.44 to the finance
    # examples, "My salary is ..." 0.59; the kind's own bar is ``kind_own_min_similarity``)
    kind_term_penalty: float = 0.05
    # an example sentence stands in for the subject a little below a direct match
    kind_example_discount: float = 0.1
    detail_kinds: DetailKinds = field(default_factory=lambda: dict(DEFAULT_DETAIL_KINDS))
    # the user corrected it: the new fact keeps the user as its author (correct_memory uses
    # ``by`` as the author and as ``superseded_by``)
    by: str = "user"
    # the agent's own model, asked which shortlisted memories a forget request names
    # (:meth:`judged`); ``None``: the offline bars alone decide
    forget_judge: ForgetJudge | None = None
    _label_vectors: np.ndarray | None = field(default=None, init=False, repr=False)
    _term_owner: np.ndarray = field(
        default_factory=lambda: np.zeros(0, int), init=False, repr=False
    )
    _example_vectors: dict[str, np.ndarray] = field(default_factory=dict, init=False, repr=False)

    async def update(self, candidate: Candidate, context: Context) -> RoutingOutcome | None:
        """Supersede the current memory about the same subject as ``candidate`` (the closest
        one :meth:`about_the_same` accepts); ``None``: none is (store it as usual) or the
        service cannot correct."""
        service = context_memory_service(context)
        curator = getattr(service, "curator", None)  # PgVectorMemoryService's part
        if service is None or curator is None:
            return None
        session = context.session
        # the store's relevance floor is for answers, not for what a new fact may replace: a
        # job said in other words ("I'm an analyst at X" / "I started at Y") is often below
        # it; ``update_min_similarity`` is the bar here
        looked_at = await self._below_the_floor(
            service, session, candidate.text, self.update_candidates, include_superseded=False
        )
        if not looked_at:  # another service, or the wider search failed: the plain search
            found = await service.search(
                app_name=session.app_name,
                user_id=session.user_id,
                query=candidate.text,
                limit=self.update_candidates,
                record_access=False,
            )
            looked_at = list(found.memories)
        current = [
            m
            for m in looked_at
            if "superseded_at" not in (m.custom_metadata or {})
            and _dense(m) >= self.update_min_similarity
        ]
        best = await self.about_the_same(service, candidate, current)
        if best is None:
            return await self._replace_said_earlier(service, curator, candidate, context)
        # the replacement inherits the old fact's subject words as index keys (tags), so a
        # question the old fact answered finds it ("reading" for "Finished Dune, on X now")
        keys = subject_keys(
            _text(best), candidate.text, (best.custom_metadata or {}).get("tags") or ()
        )
        fixed = await curator.correct_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            memory_id=best.id,
            new_text=candidate.text.strip(),
            reason="the user said it changed",
            by=self.by,
            tags=keys or None,
        )
        return RoutingOutcome(
            MemoryHome.LONG_TERM, "stored", candidate.key, f"supersedes {fixed.old_id}"
        )

    async def _replace_said_earlier(
        self, service: Any, curator: Any, candidate: Candidate, context: Context
    ) -> RoutingOutcome | None:
        """An update whose old fact was said earlier in this session but not stored yet (the
        router kept no candidate for it, so ingestion would store it later as a current
        memory beside the update): the sentence about the same subject
        (:meth:`about_the_same`'s check) is stored now, dated when it was said, and corrected
        to the new fact, so ``as_of`` reaches it and a default search does not. The outcome's
        ``earlier`` tells the routing record, so ingestion leaves that sentence out.
        ``None``: no such sentence (the fact is stored as usual)."""
        embedder = getattr(service, "embedder", None)
        said = unstored_sentences(context, self.earlier_sentences)
        if embedder is None or not said:
            return None
        verdicts = await self.subject_check.same_subject(
            embedder, candidate.text, [s.text for s in said]
        )
        same = [(c, s) for s, (ok, c) in zip(said, verdicts, strict=True) if ok]
        if not same:
            return None
        old = max(same, key=lambda pair: pair[0])[1]
        session = context.session
        entry, meta = long_term_entry(
            Candidate(
                text=old.text,
                about_user=True,
                needed_in_future_sessions=True,
                observed_at=old.when,
            ),
            session_id=session.id,
        )
        report = await service.add_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            memories=[entry],
            custom_metadata=meta or None,
        )
        outcomes = getattr(report, "outcomes", None) or []
        # written (or the stored fact it duplicates, or a row held for review): corrected
        stored = [o for o in outcomes if o.outcome != "REJECTED" and o.memory_id]
        if not stored:  # rejected by the service's own policy: the update is stored as usual
            return None
        fixed = await curator.correct_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            memory_id=stored[0].memory_id,
            new_text=candidate.text.strip(),
            reason="the user said it changed",
            by=self.by,
            tags=subject_keys(old.text, candidate.text, ()) or None,
        )
        return RoutingOutcome(
            MemoryHome.LONG_TERM,
            "stored",
            candidate.key,
            f"supersedes {fixed.old_id} (said earlier in the session)",
            earlier=((old.event_id, old.index, MemoryHome.LONG_TERM),),
        )

    async def about_the_same(
        self, service: Any, candidate: Candidate, memories: Sequence[Any]
    ) -> Any | None:
        """The memory ``candidate`` replaces: of those about its subject, the closest. A typed
        subject decides when both carry one (the ``key`` metadata: equal, or different);
        otherwise :class:`~.update_subject.SubjectCheck` (the same people, the same slot, close
        enough). Without an embedder on the service, only a typed subject matches."""
        key = (candidate.key or "").strip().lower()
        typed = [m for m in memories if ((m.custom_metadata or {}).get("key") or "").lower()]
        if key:
            same = [m for m in typed if (m.custom_metadata or {})["key"].lower() == key]
            if same:
                return max(same, key=_dense)
        untyped = [m for m in memories if m not in typed] if key else list(memories)
        embedder = getattr(service, "embedder", None)
        if embedder is None or not untyped:
            return None
        verdicts = await self.subject_check.same_subject(
            embedder, candidate.text, [_text(m) for m in untyped]
        )
        same_subject = [(c, m) for m, (ok, c) in zip(untyped, verdicts, strict=True) if ok]
        # the user's own update ("Switched to a Pixel 8, my brother talked me into it") replaces
        # the user's own memory before one about someone it brings in later ("My brother has a
        # Samsung")
        if not people(first_clause(candidate.text)):
            own = [(c, m) for c, m in same_subject if not people(_text(m))]
            same_subject = own or same_subject
        return max(same_subject, key=lambda pair: pair[0])[1] if same_subject else None

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
            # a request in words the parser does not know: neither acted on nor stored; the
            # agent is told, so it can ask what to forget
            state[FORGET_STATE_KEY] = _record(0, [], "unclear")
            logger.info("forget request: not understood, nothing done, confirmation asked")
            return RoutingOutcome(MemoryHome.FORGET, "skipped", None, "request not understood")
        if is_vague(subject):
            # "forget what I said": nothing named, nothing guessed at; the agent asks
            state[FORGET_STATE_KEY] = _record(0, [], "vague")
            logger.info("forget request: too vague to act on, confirmation asked")
            return RoutingOutcome(MemoryHome.FORGET, "skipped", None, "vague: nothing named")
        homes: list[str] = []
        deleted = 0
        deleted_ids: list[str] = []
        ambiguous = 0
        asked: list[tuple[Any, float]] = []
        unstored: list[SaidEarlier] = []
        said_earlier: dict[str, SaidEarlier] = {}
        twins: dict[str, str] = {}  # a said sentence already stored -> that memory's id
        marked: list[SaidEarlier] = []
        service = context_memory_service(context)
        if service is not None and hasattr(service, "search"):
            judge = self.forget_judge
            # what the user said earlier in this session and no router stored yet (ingestion
            # would store it later) is weighed beside the stored memories
            pending = {
                f"{_SAID}{i}": s
                for i, s in enumerate(unstored_sentences(context, self.earlier_sentences))
            }
            said_earlier = pending
            chosen: list[Any] = []
            for part in subject_parts(subject):  # "my gym, my work and my address": each
                scored, closeness, searched, askable = await self._scored_closeness(
                    service,
                    session,
                    part,
                    widen=judge.max_candidates * 2 if judge else 0,
                    extra=[_said_entry(key, s) for key, s in pending.items()],
                    twins=twins,
                )
                # the offline decision is the one made without a judge: over what the search
                # found
                picked, unsure = self.decide(part, scored[:searched])
                close: list[tuple[Any, float]] = []
                if judge is not None and scored:
                    picked, unsure = await self.judged(part, scored, closeness, picked, unsure)
                elif not picked and not unsure:
                    # nothing matched, not even weakly: a memory close in meaning though it
                    # shares no word ("my court date" / "I'm due before the magistrates") is
                    # shown to the user, never deleted unasked
                    close = [
                        (m, closeness[i])
                        for i, (m, _, _) in enumerate(scored[:searched])
                        if askable[i]
                    ]
                    unsure = len(close)
                chosen += [m for m in picked if all(m.id != c.id for c in chosen)]
                ambiguous += unsure
                if unsure:  # what the agent shows the user and asks about, best first
                    asked += close or [
                        (m, score)
                        for m, score, _ in scored[:searched]
                        if score >= self.forget_min_similarity
                    ]
            for memory in chosen:
                if str(memory.id) in pending:  # not stored yet: ingestion will leave it out
                    unstored.append(pending[str(memory.id)])
                    continue
                gone = await service.delete_memory(
                    app_name=session.app_name, user_id=session.user_id, memory_id=memory.id
                )
                if gone:
                    deleted += gone
                    deleted_ids.append(str(memory.id))
            if deleted:
                homes.append("long_term")
            gone = {str(m.id) for m in chosen}
            # a sentence ingested since (a checkpoint) was weighed once, as its stored row;
            # that row going means the sentence is never stored again either
            marked = [pending[key] for key, twin in twins.items() if twin in gone]
            if unstored:
                deleted += len(unstored)
                homes.append("this_session")
        wanted = content_stems(subject)
        # a preference or scratchpad fact must share a naming word, not just "number",
        # "name", "old" or "details" ("my sister's name" is not the preferred name)
        naming = wanted - _GENERIC - VAGUE_WORDS
        # the user's own preferences are never someone else's detail ("forget my wife's
        # allergy" leaves the user's allergies alone)
        theirs = possessor(subject) is not None
        for key, value in list(state.to_dict().items()):
            if theirs or not key.startswith("user:pref_") or key.endswith("_at") or value is None:
                continue
            if _names_it(naming, key.removeprefix("user:pref_"), value):
                state[key] = None
                state[f"{key}_at"] = None
                deleted += 1
                if "user_state" not in homes:
                    homes.append("user_state")
        notes = list(state.get(NOTES_KEY) or [])
        kept = [n for n in notes if overlap(content_stems(str(n)), wanted) < 0.5]
        if len(kept) != len(notes):
            state[NOTES_KEY] = kept
            deleted += len(notes) - len(kept)
            homes.append("session_state")
        # a session fact under its own key ("fact_trip_destination" = "Lima" for "my Peru
        # trip" when it names the trip) goes the way a preference does
        for key, value in list(state.to_dict().items()):
            if not key.startswith(SESSION_FACT_PREFIX) or value is None:
                continue
            if _names_it(naming, key.removeprefix(SESSION_FACT_PREFIX), value):
                state[key] = None
                deleted += 1
                if "session_state" not in homes:
                    homes.append("session_state")
        if scratch := forget_in_working_memory(state, naming, _GENERIC | VAGUE_WORDS):
            deleted += scratch
            homes.append("working_memory")
        # not guessed at when ambiguous: the agent asks the user which one they meant
        state[FORGET_STATE_KEY] = _record(deleted, homes, ambiguous or None)
        asked.sort(key=lambda pair: -pair[1])
        taken = {str(m.id) for m in chosen}  # what was deleted is among them
        self._ask(context, [m for m, _ in asked if str(m.id) not in taken], said_earlier)
        if deleted:
            await self._log(service, session, deleted_ids, homes, deleted)
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
            earlier=tuple((s.event_id, s.index, MemoryHome.FORGET) for s in [*unstored, *marked]),
        )

    async def _scored(
        self, service: Any, session: Any, subject: str
    ) -> list[tuple[Any, float, bool]]:
        """The user's memories (superseded ones too) that could be what ``subject`` names,
        each with its score and whether it matches the subject on its own (:meth:`assess`).
        Without an embedder on the service, the search's own query similarity, and no memory
        matches on its own."""
        scored, _, _, _ = await self._scored_closeness(service, session, subject)
        return scored

    async def _scored_closeness(
        self,
        service: Any,
        session: Any,
        subject: str,
        widen: int = 0,
        extra: Sequence[Any] = (),
        twins: dict[str, str] | None = None,
    ) -> tuple[list[tuple[Any, float, bool]], list[float], int, list[bool]]:
        """:meth:`_scored`, each memory's closeness to the subject (the higher of its score
        and its cosine: what orders the judge's shortlist), and how many of them the searches
        found (with ``extra``: memory-like entries weighed as if the searches found them, but
        one whose text a found memory holds is left out and put in ``twins`` as extra id ->
        that memory's id);
        ``widen``: this many memories closest to the subject below the search's relevance
        floor (:meth:`_below_the_floor`) follow those; and for each, whether it may be shown
        to the user when nothing else matched (``ask_min_similarity`` close to the subject,
        about no one it does not name)."""
        whose = possessor(subject)
        head = _head(subject, whose) if whose else subject
        named_kinds = await self._kinds_named(service, head)
        queries = [subject, *(" ".join(self.detail_kinds[k]) for k, _ in named_kinds)]
        found: dict[str, Any] = {}
        for query in queries:
            result = await service.search(
                app_name=session.app_name,
                user_id=session.user_id,
                query=query,
                limit=self.max_forget,
                record_access=False,
                include_superseded=True,
            )
            for memory in result.memories:
                found.setdefault(str(memory.id), memory)
        held = {key: normalize_fact_text(_text(m)) for key, m in found.items()}
        for memory in extra:
            said = normalize_fact_text(_text(memory))
            twin = next((k for k, text in held.items() if said and said in text), None)
            if twin is not None:
                if twins is not None:
                    twins[str(memory.id)] = twin
                continue
            found.setdefault(str(memory.id), memory)
        searched = len(found)
        if widen:
            for memory in await self._below_the_floor(service, session, subject, widen):
                found.setdefault(str(memory.id), memory)
        memories = list(found.values())
        embedder = getattr(service, "embedder", None)
        if embedder is None or not memories:
            dense = [_dense(m) for m in memories]
            scored = [(m, d, False) for m, d in zip(memories, dense, strict=True)]
            return scored, dense, searched, [False] * len(memories)
        seen = await self.assess(embedder, subject, [_text(m) for m in memories], named_kinds)
        scored = [
            (m, float(score), bool(own))
            for m, score, own in zip(memories, seen.scores, seen.own, strict=True)
        ]
        closeness = np.maximum(seen.scores, seen.cosines).astype(float).tolist()
        askable = [
            not other and float(cosine) >= self.ask_min_similarity
            for other, cosine in zip(seen.about_others, seen.cosines, strict=True)
        ]
        return scored, closeness, searched, askable

    async def _below_the_floor(
        self,
        service: Any,
        session: Any,
        subject: str,
        limit: int,
        *,
        include_superseded: bool = True,
    ) -> list[Any]:
        """The user's ``limit`` memories (superseded ones too, unless ``include_superseded`` is
        false) ranked closest to ``subject`` by the store's hybrid search with its relevance
        floor lifted: what a request names in other words ("my allotment" for a plot where the
        user grows beans) is often below it. Empty when the service is not the kit's, or the
        search fails (logged, without the subject)."""
        store: Any = getattr(service, "store", None)
        options = getattr(store, "search_options", None)
        if not isinstance(options, SearchOptions):
            return []
        try:
            engine = await store.ready()

            async def embed_query() -> list[float]:
                (vector,) = await checked_embed(store.embedder, [subject], queries=True)
                return vector

            with user_scope(session.app_name, session.user_id):  # row-level security
                rows = await search_on_engine(
                    engine,
                    app=session.app_name,
                    user=session.user_id,
                    embed_query=embed_query,
                    terms=query_terms(subject),
                    limit=limit,
                    options=options.model_copy(update={"relevance_floor": False}),
                    filters=search_filters(None, None, None, include_superseded),
                )
        except Exception as exc:  # the caller falls back to what the plain search finds
            logger.warning("conversation edit: no search below the floor (%s)", type(exc).__name__)
            return []
        return [entry_from_row(r) for r in rows]

    async def assess(
        self,
        embedder: Any,
        subject: str,
        texts: list[str],
        named_kinds: list[tuple[str, bool]] | None = None,
    ) -> Assessment:
        """How each memory text relates to a forget request's ``subject``.

        The score is the cosine similarity of its text to the subject (counted when they share
        a content word or it is at least ``unshared_min_similarity``), or, when the subject
        names a kind of detail, to that kind's closest example less ``kind_example_discount``,
        whichever is higher; ``own``: whether it matches the subject on its own
        (:meth:`_on_its_own`); and the signals those rest on (``benchmarks/
        forget_scorer_study.py`` fits a scorer over them)."""
        whose = possessor(subject)
        head = _head(subject, whose) if whose else subject
        if named_kinds is None:
            named_kinds = await self._kinds_named_by(embedder, head)
        kinds = [k for k, _ in named_kinds]
        vectors = _unit(await checked_embed(embedder, [subject, *texts]))
        cosines = vectors[1:] @ vectors[0]
        # a direct match shares a word with the subject or is very close: "my boss Karen"
        # needs "Karen" or "boss", so an unrelated fact is not taken for a missing one
        named = content_stems(subject) - VAGUE_WORDS
        head_named = content_stems(head) - VAGUE_WORDS
        shares = np.array([bool(named & content_stems(t)) for t in texts])
        scores = np.where(shares | (cosines >= self.unshared_min_similarity), cosines, -1.0)
        by_kind = np.full(len(texts), -1.0)
        for kind, narrower in named_kinds:
            examples = await self._examples(embedder, kind)
            # a subject narrower than its kind ("my salary" in finances) does not take every
            # detail of that kind ("I pay rent"): only those closer to its examples
            penalty = self.kind_term_penalty if narrower else 0.0
            by_kind = np.maximum(by_kind, (vectors[1:] @ examples.T).max(axis=1) - penalty)
        scores = np.maximum(scores, by_kind - self.kind_example_discount)
        best_kind = await self._best_kind_scores(embedder, vectors[1:])
        lifted = np.zeros(len(texts), dtype=bool)
        if whose:
            # someone else's detail: only a memory that names them (the head is matched below)
            others = [not ok for ok in await self._names_owner(embedder, whose, texts)]
            # ... and says more about them than who they are: the subject is closer to it than
            # "my <them>" is by ``head_lift`` (length-neutral: both phrases are short)
            (owner_vector,) = _unit(await checked_embed(embedder, [f"my {whose}"]))
            lift = cosines - vectors[1:] @ owner_vector
            lifted = (cosines >= self.owner_head_similarity) & (lift >= self.head_lift)
            scores = np.where(lifted, np.maximum(scores, cosines), scores)
        else:
            others = await self._about_others(embedder, subject, kinds, texts, named)
        # "my ex-wife" is not "my current wife", nor "my mother-in-law" "my mother": never a
        # match, not even a weak one to ask about
        # "my ex-boyfriend" / "My boyfriend works at a bank": maybe told before the break-up,
        # maybe the current one; never a match on its own (at most asked about)
        relations = [relation(subject, t) for t in texts]
        else_ = np.array([r == "other" for r in relations], dtype=bool)
        scores = np.where(else_, -1.0, scores)
        others = [bool(o or e) for o, e in zip(others, else_, strict=True)]
        unsure = [r == "unsure" for r in relations]
        # a name alone is not the subject: "my ex-girlfriend Priya" and "Priya from accounts";
        # nor someone's name their detail ("Sarah's pregnancy" / "Sarah is a nurse")
        by_name = np.array(await self._name_led(embedder, subject, texts), dtype=bool)
        close = (cosines >= self.own_min_similarity) & ~by_name
        lifted &= ~by_name
        # a name the subject gives ("my Instagram handle") that the memory lacks: the memory
        # may be another of its kind ("My Twitter handle is ..."), so only a close one matches
        names = _names_in(head)
        lacks = [bool(names - content_stems(t)) for t in texts]
        generic_head = _generic_head(head)
        own = [
            not other
            and not maybe
            # a memory dated other than the subject says is another one of its kind
            and not _another_time(subject, t)
            and (generic_head is None or _holds_identifier(generic_head, t))
            and (
                bool(up)
                or bool(cc)
                or (
                    not lack
                    and self._on_its_own(
                        head_named,
                        t,
                        float(c),
                        float(k),
                        float(b),
                        bool(kinds),
                        cc,
                    )
                )
            )
            for t, c, k, b, other, up, cc, maybe, lack in zip(
                texts,
                cosines,
                by_kind,
                best_kind,
                others,
                lifted,
                close,
                unsure,
                lacks,
                strict=True,
            )
        ]
        return Assessment(
            cosines=cosines.astype(float),
            scores=scores.astype(float),
            own=np.array(own, dtype=bool),
            by_kind=by_kind.astype(float),
            best_kind=best_kind.astype(float),
            names_kind=bool(kinds),
            about_others=np.array(others, dtype=bool),
            lifted=lifted,
        )

    async def _about_others(
        self, embedder: Any, subject: str, kinds: Sequence[str], texts: list[str], named: set[str]
    ) -> list[bool]:
        """Whether each memory is about someone or something the request does not name: it
        opens "my X" / "our X" where X is neither a word of the subject or of a kind it names
        (label and examples) nor at least ``owner_min_similarity`` close to the subject or a
        label ("My sister's number ..." for "my phone number"; "Our house ..." is about a home
        address)."""
        allowed = named | self._kind_stems(kinds)
        owners = [_owner(t) for t in texts]
        unnamed = sorted({o[0] for o in owners if o is not None and o[1] not in allowed})
        if not unnamed:
            return [False] * len(texts)
        vectors = _unit(await checked_embed(embedder, [*unnamed, subject, *kinds]))
        close = (vectors[: len(unnamed)] @ vectors[len(unnamed) :].T).max(axis=1)
        far = {w for w, c in zip(unnamed, close, strict=True) if c < self.owner_min_similarity}
        # with a kind of detail named, a qualifier tells one of its kind from another ("My
        # office address" is not "my address"); without one, it may only say whose it is
        distinct = set() if kinds else named - _GENERIC
        # ... or the thing the user's subject owns, when it says more of it ("my visa got
        # refused" / "My US visitor visa ...")
        owned = None if kinds else _owner(subject)
        thing = {owned[1]} if owned and not _names_someone(owned[0]) else set()
        return [
            o is not None
            and o[0] in far
            and not (_modifies(o[0], t, distinct) or _modifies(o[0], t, thing))
            for o, t in zip(owners, texts, strict=True)
        ]

    async def _name_led(self, embedder: Any, subject: str, texts: list[str]) -> list[bool]:
        """Whether each memory is close to the subject only through a name they share: it
        holds a capitalised name of the subject ("Priya" in "my ex-girlfriend Priya") and,
        with the shared names left out of both, its cosine to the subject is below
        ``name_free_min_similarity`` ("Priya from accounts is leaving": 0.61 with the name,
        0.23 without; "Priya and I split up ...": 0.36 without)."""
        named = set(_NAME.findall(subject))
        if opening := _NAMED_OWNER.match(subject):  # "Sarah's pregnancy"
            named.add(opening.group(1))
        shared = [{n for n in named if re.search(rf"\b{n}\b", t)} for t in texts]
        if not any(shared):
            return [False] * len(texts)
        out = [False] * len(texts)
        pairs: list[tuple[int, str, str]] = []  # (memory, subject, memory) with the names out
        for i, (text, names) in enumerate(zip(texts, shared, strict=True)):
            if not names:
                continue
            pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")
            bare_subject, bare_text = (
                " ".join(pattern.sub(" ", x).split()) for x in (subject, text)
            )
            if not bare_subject or not bare_text:
                out[i] = True  # nothing but the name: the name alone ties them
            else:
                pairs.append((i, bare_subject, bare_text))
        if pairs:  # one batched call for every memory that shares a name
            flat = [t for _, a, b in pairs for t in (a, b)]
            vectors = _unit(await checked_embed(embedder, flat))
            for k, (i, _, _) in enumerate(pairs):
                similarity = float(vectors[2 * k] @ vectors[2 * k + 1])
                out[i] = similarity < self.name_free_min_similarity
        return out

    async def _names_owner(self, embedder: Any, whose: str, texts: list[str]) -> list[bool]:
        """Whether each memory names ``whose`` (the possessor of a subject like "my wife's
        phone number"): it holds the word, or a content word at least ``owner_word_similarity``
        close to it ("mother" for "mum", "daughter" for "kid")."""
        stem = next(iter(content_stems(whose)), whose)
        per_text = [sorted({w.split("'")[0] for w in words(t)} - {""}) for t in texts]
        per_text = [[w for w in ws if content_stems(w)] for ws in per_text]
        vocab = sorted({w for ws in per_text for w in ws})
        if not vocab:
            return [False] * len(texts)
        vectors = _unit(await checked_embed(embedder, [whose, *vocab]))
        close = dict(zip(vocab, (vectors[1:] @ vectors[0]).tolist(), strict=True))
        return [
            stem in content_stems(t) or any(close[w] >= self.owner_word_similarity for w in ws)
            for t, ws in zip(texts, per_text, strict=True)
        ]

    def _on_its_own(
        self,
        named: set[str],
        text: str,
        cosine: float,
        kind_score: float,
        best_kind_score: float,
        names_kind: bool,
        close: bool | None = None,
    ) -> bool:
        """Whether a memory matches the subject by itself, not only as the closest of what the
        user has (the absolute bar: a request for something never stored deletes nothing).

        (A memory about someone or something else never does, :meth:`_about_others`.) It does
        when its cosine to the subject is at least ``own_min_similarity`` (``close``: that
        test, made by the caller, with :meth:`_name_led` memories failing it); or when it holds
        every word that names the subject (generic ones like "old" or "number" aside) and is at
        least ``forget_min_similarity`` close (``one_word_min_similarity`` when one word names
        it); or, for a subject naming a kind of detail, when the kind's closest example is at
        least ``kind_own_min_similarity`` close and within ``kind_tolerance`` of the closest
        example of any kind (a phone preference is not an email address).
        """
        if cosine >= self.own_min_similarity if close is None else close:
            return True
        distinct = named - _GENERIC
        bar = self.one_word_min_similarity if len(distinct) == 1 else self.forget_min_similarity
        if distinct and _holds_words(distinct, text) and cosine >= bar:
            return True
        return (
            names_kind
            and kind_score >= self.kind_own_min_similarity
            and kind_score >= best_kind_score - self.kind_tolerance
        )

    def _kind_stems(self, kinds: Sequence[str]) -> set[str]:
        stems: set[str] = set()
        for kind in kinds:
            stems |= content_stems(" ".join([kind, *self.detail_kinds[kind]]))
        return stems

    async def _best_kind_scores(self, embedder: Any, vectors: np.ndarray) -> np.ndarray:
        """Each memory's cosine to the closest example sentence of any kind."""
        best = np.full(len(vectors), -1.0)
        for kind in self.detail_kinds:
            examples = await self._examples(embedder, kind)
            best = np.maximum(best, (vectors @ examples.T).max(axis=1))
        return best

    async def _kinds_named(self, service: Any, subject: str) -> list[tuple[str, bool]]:
        """:meth:`_kinds_named_by` with the service's embedder (none without one)."""
        embedder = getattr(service, "embedder", None)
        if embedder is None:
            return []
        return await self._kinds_named_by(embedder, subject)

    async def _kinds_named_by(self, embedder: Any, subject: str) -> list[tuple[str, bool]]:
        """The (at most two) kinds of detail a label term of which (each comma-separated name
        in the label, "salary" in "finances, money, debts, salary, ...") is at least
        ``kind_min_similarity`` close to the subject, closest first: a one-word subject ("my
        diagnosis") is far from a long label as a whole but close to its own term. Each comes
        with whether only a term named it (the subject is narrower than the kind)."""
        if not self.detail_kinds:
            return []
        labels = list(self.detail_kinds)
        if self._label_vectors is None:
            terms = [
                (i, t.strip())
                for i, label in enumerate(labels)
                for t in label.split(",")
                if t.strip()
            ]
            self._term_owner = np.array([i for i, _ in terms])
            self._label_vectors = _unit(
                await checked_embed(embedder, [*labels, *(t for _, t in terms)])
            )
        (subject_vector,) = _unit(await checked_embed(embedder, [subject]))
        all_sims = self._label_vectors @ subject_vector
        whole = all_sims[: len(labels)]
        sims = whole.copy()
        for owner, sim in zip(self._term_owner, all_sims[len(labels) :], strict=True):
            if sim >= self.kind_term_min_similarity:
                sims[owner] = max(sims[owner], sim)
        order = sorted(range(len(labels)), key=lambda i: -sims[i])[:2]
        # a second kind only as close as the first, within ``second_kind_margin``, when the
        # first is named as a whole ("my height" names height at 0.83, not weight at 0.55); a
        # first named by one term of its label may be the wrong one ("medication": "drugs")
        bar = self.kind_min_similarity
        if whole[order[0]] >= self.kind_min_similarity:
            bar = max(bar, sims[order[0]] - self.second_kind_margin)
        return [
            (labels[i], bool(whole[i] < self.kind_min_similarity)) for i in order if sims[i] >= bar
        ]

    async def _examples(self, embedder: Any, kind: str) -> np.ndarray:
        if kind not in self._example_vectors:
            self._example_vectors[kind] = _unit(
                await checked_embed(embedder, list(self.detail_kinds[kind]))
            )
        return self._example_vectors[kind]

    def decide(
        self, subject: str, scored: Sequence[tuple[Any, float, bool]]
    ) -> tuple[list[Any], int]:
        """The memories a forget request deletes, and how many close matches made it
        ambiguous (asked, nothing deleted), from :meth:`_scored`'s (memory, score, on its own).

        Of the memories that match the subject on their own, :meth:`choose` (ties settled by
        :meth:`same_people`). With none, a weak match is taken only when it alone is about the
        people the subject names; otherwise weak matches are asked about."""
        matching = [(m, score) for m, score, own in scored if own]
        matching, asked = self.narrowed(subject, matching)
        chosen, ambiguous = self.choose(matching)
        if ambiguous:
            chosen = self.same_people(subject, matching)
            ambiguous = 0 if chosen else ambiguous
        if chosen:
            # another memory that matches on its own but less closely: asked about, never
            # left silently ("the locker code": the gym's goes, the work one is asked about)
            asked += sum(1 for m, _ in matching if all(m is not c for c in chosen))
        if not chosen and not ambiguous:
            # only weak matches (none matches the subject on its own): asked, not deleted
            weak = [(m, score) for m, score, _ in scored if score >= self.forget_min_similarity]
            ambiguous = len(weak)
            # ... unless exactly one of them is about the people the subject names, or the
            # closest holds more of the subject's words than any other ("the knee op in
            # March": "... surgery on my left knee in March" over "... wedding in March")
            chosen = self.same_people(subject, weak) if ambiguous > 1 else []
            chosen = chosen if len(chosen) == 1 else []
            if not chosen and ambiguous > 1:
                chosen = self.most_words(subject, weak)
            ambiguous = 0 if chosen else ambiguous
        return chosen, ambiguous + asked

    @staticmethod
    def most_words(subject: str, weak: Sequence[tuple[Any, float]]) -> list[Any]:
        """Of several weak (memory, score) matches, the closest when it holds at least two of
        the words naming the subject and more of them than any other does; else none."""
        naming = _naming_stems(subject)
        held = [len(naming & content_stems(_text(m))) for m, _ in weak]
        top = max(range(len(weak)), key=lambda i: weak[i][1])
        others = [h for i, h in enumerate(held) if i != top]
        return [weak[top][0]] if held[top] >= 2 and held[top] > max(others) else []

    def narrowed(
        self, subject: str, matching: Sequence[tuple[Any, float]]
    ) -> tuple[list[tuple[Any, float]], int]:
        """Of several (memory, score) that match a subject on their own, those that hold every
        word naming it, when some do and some do not ("my work email" keeps "My work email is
        ..." and asks about "My personal email is ...", which the kind of detail scores
        higher; "the Leeds trip" spares "I grew up in Leeds"); the others are asked about,
        never deleted. Only for a subject of two naming words or more (a broad request, "my
        family", keeps everything it matches)."""
        naming = _naming_stems(subject)
        if len(matching) < 2 or len(naming) < 2:
            return list(matching), 0
        whole = [(m, s) for m, s in matching if naming <= content_stems(_text(m))]
        if not whole or len(whole) == len(matching):
            return list(matching), 0
        return whole, len(matching) - len(whole)

    def shortlist(
        self, scored: Sequence[tuple[Any, float, bool]], closeness: Sequence[float], chosen: Any
    ) -> list[Any]:
        """The memories the judge is shown: those :meth:`decide` chose, then the closest others
        (by ``closeness``, below the bars too), at most the judge's ``max_candidates``."""
        limit = self.forget_judge.max_candidates if self.forget_judge else 0
        picked = {id(m) for m in chosen}
        order = sorted(range(len(scored)), key=lambda i: -closeness[i])
        first = [scored[i][0] for i in order if id(scored[i][0]) in picked]
        rest = [scored[i][0] for i in order if id(scored[i][0]) not in picked]
        return [*first, *rest][:limit]

    async def judged(
        self,
        subject: str,
        scored: Sequence[tuple[Any, float, bool]],
        closeness: Sequence[float],
        chosen: list[Any],
        ambiguous: int,
    ) -> tuple[list[Any], int]:
        """The model's choice among the :meth:`shortlist` (it sees the subject and the
        shortlisted memories' texts, numbered; it answers with numbers only), in place of the
        offline decision ``(chosen, ambiguous)``. The offline decision stands when the call
        fails or the answer is not a valid choice (logged without any text), and when the
        offline matcher already chose more memories than the judge may be shown. When the model
        names none of them but the offline matcher chose or found close matches, nothing is
        deleted and a confirmation is asked."""
        judge = self.forget_judge
        if judge is None or len(chosen) >= judge.max_candidates:
            return chosen, ambiguous
        shown = self.shortlist(scored, closeness, chosen)
        try:
            picks = await judge.choose(subject, [_text(m) for m in shown])
        except Exception as exc:  # any failure: the offline decision stands
            logger.warning(
                "forget request: the judge model gave no usable answer (%s); "
                "the offline decision stands",
                type(exc).__name__,
            )
            return chosen, ambiguous
        picked = [shown[i] for i in picks]
        if not picked and (chosen or ambiguous):
            return [], len(chosen) or ambiguous  # the two disagree: asked, not guessed
        logger.info("forget request: the judge named %d of %d memories", len(picked), len(shown))
        return picked, 0

    def choose(self, scored: Sequence[tuple[Any, float]]) -> tuple[list[Any], int]:
        """The memories a forget request deletes, and how many close matches made it
        ambiguous (then nothing is deleted).

        Every memory whose score is at least ``forget_min_similarity`` and within
        ``forget_margin`` of the best match is chosen. When the best match is weak (below
        ``forget_confident_similarity``) and more than one memory is that close to it, the
        request is not guessed at: nothing is chosen, and the count of close matches is
        returned for a confirmation.
        """
        best = max((score for _, score in scored), default=0.0)
        bar = max(self.forget_min_similarity, best - self.forget_margin)
        chosen = [m for m, score in scored if score >= bar]
        if best < self.forget_confident_similarity and len(chosen) > 1:
            return [], len(chosen)
        return chosen, 0

    def same_people(self, subject: str, scored: Sequence[tuple[Any, float]]) -> list[Any]:
        """Of the close matches :meth:`choose` found ambiguous, the ones about the people the
        subject names (:func:`~.update_subject.people`: "where my kids go to school" takes
        "The kids go to ..." over "I went to school in ..."); empty when the subject names no
        one, or when none or all of them name those people (still asked, not guessed)."""
        wanted = people(subject)
        if not wanted:
            return []
        best = max((score for _, score in scored), default=0.0)
        bar = max(self.forget_min_similarity, best - self.forget_margin)
        close = [m for m, score in scored if score >= bar]
        agree = [m for m in close if wanted <= people(_text(m))]
        return agree if 0 < len(agree) < len(close) else []

    def forget_matches(self, memories: Sequence[Any]) -> tuple[list[Any], int]:
        """:meth:`choose` over the memories' own search scores (their query similarity)."""
        return self.choose([(m, _dense(m)) for m in memories])

    def _ask(
        self, context: Context, memories: Sequence[Any], said: Mapping[str, SaidEarlier]
    ) -> None:
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
                key = f"{_SAID_ITEM}{said[key].event_id}:{said[key].index}"
            if all(key != item for item, _ in items):
                items.append((key, _text(memory)))
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

    async def settle(self, context: Context, answer: bool | Sequence[int]) -> RoutingOutcome | None:
        """The user's answer to the question :meth:`forget` left pending: ``True`` deletes
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
            state[FORGET_STATE_KEY] = {**_record(0, [], None), "confirmed": False}
            return RoutingOutcome(MemoryHome.FORGET, "skipped", None, "kept: the user said no")
        session = context.session
        deleted, gone, homes = 0, [], []
        earlier: list[tuple[str, int, MemoryHome]] = []
        for item in ids:
            if item.startswith(_SAID_ITEM):
                event_id, _, index = item.removeprefix(_SAID_ITEM).rpartition(":")
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
        state[FORGET_STATE_KEY] = {**_record(total, homes, None), "confirmed": True}
        if deleted:
            await self._log(service, session, gone, homes, deleted)
        logger.info("forget request: %d item(s) deleted as the user confirmed", total)
        return RoutingOutcome(
            MemoryHome.FORGET, "forgotten", None, f"{total} deleted", earlier=tuple(earlier)
        )

    async def _log(
        self, service: Any, session: Any, ids: list[str], homes: list[str], deleted: int
    ) -> None:
        """The deletion in the forget log (ids and counts, never text), when the service
        has a database engine; a failure to log is reported, never raised."""
        engine = getattr(service, "engine", None)
        if engine is None:
            return
        try:
            await ensure_lifecycle_schema(engine)
            async with engine.begin() as conn:
                await forget_log.record_memory_deletes(
                    conn,
                    app_name=session.app_name,
                    user_id=session.user_id,
                    memory_ids=ids,
                    homes=homes,
                    deleted=deleted,
                )
        except Exception as exc:  # the deletion itself stands; the log line names the error
            logger.warning(
                "forget request: not recorded in the forget log (%s)", type(exc).__name__
            )


def conversation_edit_handlers(
    edits: ConversationEdits | None = None, *, model: BaseLlm | str | None = None
) -> dict[str, Any]:
    """``{"update_handler": ..., "forget_handler": ..., "confirmation_handler": ...}`` for
    :class:`MemoryApplier`.

    ``model``: the agent's own model (an ADK ``BaseLlm`` or a model name), asked which of the
    closest memories a forget request names (:class:`~.forget_judge.ForgetJudge`); ``None``
    (offline): the offline matcher alone decides."""
    edits = edits or ConversationEdits()
    if model is not None:
        edits = replace(edits, forget_judge=ForgetJudge(model))
    return {
        "update_handler": edits.update,
        "forget_handler": edits.forget,
        "confirmation_handler": edits.settle,
    }
