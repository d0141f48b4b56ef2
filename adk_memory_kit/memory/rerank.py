"""Read-time re-ordering of a search's top rows by their conversation: a session prior and
neighbour propagation (``SearchOptions.session_weight`` / ``neighbour_weight``).

Evidence for a question tends to cluster: the turns around the answer, and the session it
was said in. Both re-orderings only move rows the fused ranking already returned (its top
``rerank_depth``); they add nothing it did not find.

* **Session prior**: a row gains ``session_weight`` times the summed fused score of the other
  returned rows of its session (rows with no session get none).
* **Neighbour propagation**: a row gains ``neighbour_weight`` times the best fused score of
  its returned neighbours: rows of the same session whose text the row was indexed with as
  context (ingestion indexes each turn with its neighbouring turns, memory/documents.py), or
  which were indexed with its text.

* **Newest for a present-tense question** (``present_tense``, issue 29): a question asked
  about now ("currently", "now", "these days", "at the moment", "still") moves the newest
  (``event_time``) of the rows that answer it about equally well (query similarity within
  ``RECENCY_WINDOW`` of the best row's, above the relevance floor) to the head of that group.
  A question in the plain present with no mark of the past ("Where does she work?", not
  "Where did she work?", "What was her old number?" or "Where did she grow up?":
  ``plain_present``, :func:`asks_in_the_present`) does the same within
  ``PLAIN_PRESENT_WINDOW``, among stated facts only: a fact is a state that a newer one
  replaces, a conversation turn (``episode``) an event that stays true. Either way only rows
  about the same people take part (:func:`whose_text`): with the people the question asks
  about known (:func:`asked_about`: "the user", "my sister"), their newest row leads all of
  them ("My brother lives in York" never leads "Where does my sister live?"); else each
  people's newest leads theirs.

* **A linked change leads what it replaces**: a change the user said that the write path
  stored beside the memory it most likely replaces (``MAY_UPDATE`` in its metadata, issue 44)
  is raised just above that memory when both are returned, for the same questions.

Rows stay current-first (as the fused ranking orders them); among equal scores the fused order
is kept. Guarantee: with both weights 0 and no present-tense question the order is the fused
one, unchanged.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from adk_memory_kit.core.markers import ANNOUNCES_CHANGE, MAY_UPDATE
from adk_memory_kit.text.people import people
from adk_memory_kit.text.signals import words

# How much of a turn's text its neighbour's context holds (IndexingOptions.context_chars):
# a shorter probe still identifies the turn and survives a changed setting.
_PROBE_CHARS = 120
# Rows whose query similarity is within this of the best row's answer it about equally well.
RECENCY_WINDOW = 0.1
# ... for a question that does not say "now", a narrower margin (a review's 97 fresh
# scenarios: at 0.1 a newer fact on a related subject led in 4, "I play chess" for "What sport
# does the user play?"; at 0.07 in 1)
PLAIN_PRESENT_WINDOW = 0.07
# ... and a fact the user said as a change (``ANNOUNCES_CHANGE`` in its metadata) that the
# write path could not tie to the fact it replaces joins them from this far below the best
# (tune splits: 0.15 put 2 more of 260 updates first with no more answers taken by another
# change of the same user; 0.25, 5 more and 3 more taken)
CHANGE_WINDOW = 0.15
_NOW = re.compile(
    r"\b(?:currently|current|now|nowadays|these days|at the moment|at present|presently|"
    r"still|today|anymore|any more)\b",
    re.IGNORECASE,
)


# a question about the past, or about a value that was replaced
_PAST = re.compile(
    r"\b(?:did|didn't|was|wasn't|were|weren't|had|used to|before|ago|previous|previously|"
    r"former|formerly|originally|original|earlier|old|first|last|back then|then|ever|"
    r"(?:19|20)\d\d|"
    # where the user comes from, what they did once
    r"grew up|growing up|childhood|home ?town|born|birthplace|as an? (?:kid|child)|"
    r"graduated|degree|alma mater|"
    # the present perfect: what has happened ("Which bone has she broken?")
    r"(?:has|have)(?: \w+){0,3}? (?:been|done|won|lost|met|seen|made|\w+ed|\w+en))\b",
    re.IGNORECASE,
)


_IN_LAW = re.compile(r"\b(?:([a-z]+)-)?in-laws?\b", re.IGNORECASE)
_THE_USER = frozenset({"I"})
_FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours"})


_QUESTION = re.compile(
    r"\?$|^(?:what|which|who|whom|whose|where|when|how|does|do|is|are|has|have|can|could)\b",
    re.IGNORECASE,
)


def asks_about_now(query: str) -> bool:
    """Whether a question is asked in the present tense ("... currently", "... now")."""
    return bool(_NOW.search(query or ""))


def asks_in_the_present(query: str) -> bool:
    """Whether a question asks about the present without saying so ("What car does she
    drive?", "Who is his GP?"): a question (a question mark, or a question word first) with
    no mark of the past ("did", "was", "old", "last", a year). A memory's own words ("Fact
    number 4 ...") or keywords ("user car") are a lookup, not a question."""
    text = (query or "").strip()
    return bool(_QUESTION.search(text)) and not _PAST.search(text)


def _newest_first(
    rows: Sequence[Mapping[str, Any]],
    final: list[float],
    floor: float,
    facts_only: bool,
    asked: frozenset[str] | None = None,
) -> list[float]:
    """``final`` with the newest row among those answering about equally well and about the
    same people (:func:`whose_text`; ``asked``: the people the question names)
    raised to the best score of those (plus a hair), so it
    leads them; ``facts_only``: of the stated facts among them (conversation turns keep
    their place)."""
    if facts_only:
        rows = [
            r if r.get("memory_type") != "episode" else {**r, "dense_score": None} for r in rows
        ]
    dense = [r.get("dense_score") for r in rows]
    known = [float(d) for d in dense if d is not None]
    if not known:
        return final
    best = max(known)
    window = PLAIN_PRESENT_WINDOW if facts_only else RECENCY_WINDOW
    group = [
        i
        for i, d in enumerate(dense)
        if d is not None
        and float(d) >= max(best - max(window, _change_window(rows[i], facts_only)), floor)
        and rows[i].get("event_time") is not None
    ]
    # among rows about the same people only: "My brother lives in York" is no newer answer
    # to "Where does my sister live?" than "My sister lives in Leeds"; a row naming no one it
    # can tell ("Maya started year 4") may be about anyone. With the people the question asks
    # about known, their newest row leads all of them; else each people's newest leads theirs.
    whose = {i: whose_text(str(rows[i].get("text") or "")) for i in group}
    owners: set[frozenset[str] | None] = {w for w in whose.values() if w is not None} or {None}
    if asked is not None:
        owners = {asked}
    out = list(final)
    for owner in owners:
        members = [i for i in group if whose[i] is None or whose[i] == owner]
        if not members:
            continue
        newest = max(members, key=lambda i: rows[i]["event_time"])
        lead = members if asked is None else group
        if len(lead) > 1:
            out[newest] = max(out[newest], max(final[i] for i in lead) + 1e-9)
    return out


def _linked_changes_lead(rows: Sequence[Mapping[str, Any]], final: list[float]) -> list[float]:
    """``final`` with each change the user said that the write path linked to an older
    memory (``MAY_UPDATE``) raised just above that memory, when both were returned: the
    newer statement leads the one it most likely replaces; both stay."""
    at = {str(r.get("id")): i for i, r in enumerate(rows) if r.get("id") is not None}
    out = list(final)
    for i, row in enumerate(rows):
        metadata = row.get("metadata") or {}
        linked = metadata.get(MAY_UPDATE) if isinstance(metadata, Mapping) else None
        j = at.get(str(linked)) if linked else None
        if j is None or j == i:
            continue
        new_time, old_time = row.get("event_time"), rows[j].get("event_time")
        if new_time is not None and old_time is not None and new_time < old_time:
            continue
        out[i] = max(out[i], out[j] + 1e-9)
    return out


def _change_window(row: Mapping[str, Any], facts_only: bool) -> float:
    metadata = row.get("metadata") or {}
    announced = isinstance(metadata, Mapping) and metadata.get(ANNOUNCES_CHANGE) is True
    return CHANGE_WINDOW if facts_only and announced else 0.0


def whose_text(text: str, user_words: frozenset[str] | None = None) -> frozenset[str] | None:
    """Whom a text is about: the people it names besides the user, one word per person ("My
    wife's car" -> {"wife"}); else the user ({"I"}) when it holds one of ``user_words`` (the
    first person by default); else ``None`` (someone named only by name, or no one: anyone)."""
    # "my sister-in-law" is not the sister; "my in-laws" are nobody's parents
    in_law = {f"{m.lower()}-in-law" if m else "in-laws" for m in _IN_LAW.findall(text)}
    rest = _IN_LAW.sub(" ", text)
    named = frozenset(in_law | people(rest))
    if named:
        return named
    tokens = {w.split("'")[0] for w in words(rest)}
    return _THE_USER if (user_words or _FIRST_PERSON) & tokens else None


def asked_about(query: str) -> frozenset[str] | None:
    """Whom a question asks about (:func:`whose_text`; "the user" is the user)."""
    return whose_text(query, _FIRST_PERSON | {"user", "user's"})


def _probes(row: Mapping[str, Any]) -> tuple[str, str]:
    """The head and tail of a row's indexed text, as a neighbour's context holds them."""
    own = str(row.get("search_text") or "")
    return own[:_PROBE_CHARS], own[-_PROBE_CHARS:]


def neighbours(rows: Sequence[Mapping[str, Any]]) -> list[set[int]]:
    """For each row, the indexes of the rows of its session it is a neighbour of (either
    was indexed with the other's text as context)."""
    by_session: dict[str, list[int]] = defaultdict(list)
    for i, row in enumerate(rows):
        if row.get("session_id"):
            by_session[str(row["session_id"])].append(i)
    out: list[set[int]] = [set() for _ in rows]
    for members in by_session.values():
        for i in members:
            context = str(rows[i].get("context_text") or "")
            if not context:
                continue
            for j in members:
                if j == i:
                    continue
                head, tail = _probes(rows[j])
                if head and (head in context or tail in context):
                    out[i].add(j)
                    out[j].add(i)
    return out


def _current(row: Mapping[str, Any], as_of: datetime | None) -> bool:
    valid_to = row.get("valid_to")
    if valid_to is None:
        return True
    return valid_to > (as_of or datetime.now(timezone.utc))


def rerank(
    rows: Sequence[Mapping[str, Any]],
    *,
    session_weight: float,
    neighbour_weight: float,
    limit: int,
    as_of: datetime | None = None,
    present_tense: bool = False,
    floor: float = -1.0,
    plain_present: bool = False,
    asked: frozenset[str] | None = None,
) -> list[Mapping[str, Any]]:
    """``rows`` (fused order, each with ``score``) re-ordered, cut to ``limit``; each returned
    row's ``score`` is its re-ordered score. ``present_tense``: the newest of the rows that
    answer equally well leads them (``floor``: the least query similarity considered);
    ``plain_present``: the same among stated facts only; ``asked``: whom the question asks
    about (:func:`asked_about`)."""
    newest = present_tense or plain_present
    if not rows or (session_weight <= 0 and neighbour_weight <= 0 and not newest):
        return list(rows)[:limit]
    scores = [float(r["score"]) for r in rows]
    mass: dict[str, float] = defaultdict(float)
    for row, score in zip(rows, scores, strict=True):
        if row.get("session_id"):
            mass[str(row["session_id"])] += score
    links = neighbours(rows) if neighbour_weight > 0 else [set() for _ in rows]
    final: list[float] = []
    for i, row in enumerate(rows):
        score = scores[i]
        if session_weight > 0 and row.get("session_id"):
            score += session_weight * (mass[str(row["session_id"])] - scores[i])
        if links[i]:
            score += neighbour_weight * max(scores[j] for j in links[i])
        final.append(score)
    if newest:
        final = _newest_first(rows, final, floor, not present_tense, asked)
        final = _linked_changes_lead(rows, final)
    order = sorted(
        range(len(rows)), key=lambda i: (_current(rows[i], as_of), final[i]), reverse=True
    )
    # sorted() is stable but reverse=True keeps equal keys in their original order too
    return [{**rows[i], "score": final[i]} for i in order[:limit]]
