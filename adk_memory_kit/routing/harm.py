"""Choosing by harm: when how a sentence is said settles what the router was unsure of.

Each rule picks the home whose mistake costs least, from the kept vocabularies of
:mod:`.cue_words` (six languages), after the learned router and the rules have spoken:

=========================================  =================================================
the sentence                               chosen home, and the mistake it avoids
=========================================  =================================================
asks to forget or disregard what was said  ``FORGET``: acted on, never stored as a fact
scoped to now ("just this once", "for      session state, not ``user:`` state or a lasting
this trip", "por ahora"), not lasting      fact: a one-off must not overwrite a preference
a standing order about the agent's         review, not long-term memory: an instruction
conduct ("from now on ...", "nie wieder")  stored as a fact would steer recall unreviewed
a question                                 never ``user:`` state
a bare command to the agent ("show me ...  nothing kept: it is done in the turn; stored, it
under 300", "busca hoteles en Porto")      would come back as a "fact" in later recall
only thanks                                nothing
=========================================  =================================================

A message is also split into clauses where its parts say different kinds of thing ("forget
the old flat, we moved to Whitefield"; "we have two kelpies, so only pet-friendly places in
this search"), so each part gets its own home.
"""

from __future__ import annotations

import re
from dataclasses import replace

from adk_memory_kit.routing.cue_words import (
    asks_a_question,
    asks_to_forget_said,
    gives_standing_order,
    says_lasting,
    scoped_to_now,
    tells_to_forget,
)
from adk_memory_kit.routing.dialogue_acts import is_request_to_agent
from adk_memory_kit.routing.reply_style import REPLY_STYLE
from adk_memory_kit.routing.rule import Candidate

#: Phrases that scope a whole request to this task, strong enough to move even a lasting fact
#: the router chose to the session ("for this trip we are four"); a bare day word ("today")
#: moves only a preference ("window seat today"), since "I started a new job today" lasts.
_TASK_SCOPE = re.compile(
    r"(?<!\w)(?:just this|only this|this time|for now|for the moment|(?:for|on|in|during) "
    r"(?:this|today'?s|tonight'?s|tomorrow'?s) \w+|s[oó]lo esta|esta vez|por ahora|"
    r"por el momento|para este|para esta|durante este|mientras|desta vez|dessa vez|"
    r"por enquanto|pra essa|pra esta|para essa|nessa|nesta|diesmal|nur f[uü]r|f[uü]r diese|"
    r"f[uü]r morgen|vorerst|im moment|cette fois|pour l'instant|pour le moment|pour ce|"
    r"questa volta|per ora|per adesso|per questo)(?!\w)",
    re.IGNORECASE,
)
#: A first-person subject: a clause with one says something about the user ("book it, I'm
#: vegan"); a possessive alone does not ("summarise my findings" is still a command).
_FIRST_PERSON = re.compile(
    r"(?<!\w)(?:i|i'm|im|i've|i'd|i'll|we|we're|we've|yo|soy|tengo|nosotros|eu|sou|tenho|"
    r"n[oó]s|ich|wir|je|j'|nous|io|sono|ho|noi)(?!\w)",
    re.IGNORECASE,
)

_BOUNDARY = re.compile(r"\s*;\s*|\s+[\u2013\u2014]\s+|\s+-\s+|,\s+")
_OPENING_FORGET = re.compile(
    r"^\s*(?:\w+,?\s+){0,2}?(?:please\s+|pls\s+|kindly\s+)?(?:forget|delete|erase|remove|wipe|"
    r"scratch|scrap|ignore|disregard|drop)\b",
    re.IGNORECASE,
)
_BACK_REFERENCE = re.compile(
    r"^\W*(?:\w+\W+){0,4}?(?:that|it|this|those|them|eso|esto|isso|isto|das|es|cela|ça|quello)"
    r"\W*$",
    re.IGNORECASE,
)
_MIN_CLAUSE_WORDS = 3


def _kind(part: str) -> str:
    """What a clause says: ``forget``, ``now`` (scoped to this task), ``order`` (a standing
    order), or ``plain``."""
    if asks_to_forget_said(part) or (
        _OPENING_FORGET.match(part) and not _BACK_REFERENCE.match(part)
    ):
        return "forget"
    if _TASK_SCOPE.search(part) and not says_lasting(part):
        return "now"
    if gives_standing_order(part):
        return "order"
    return "plain"


_NEGATION = re.compile(
    r"(?<!\w)(?:no|not|never|don'?t|doesn'?t|won'?t|isn'?t|nicht|kein\w*|n[aã]o|nunca|pas|"
    r"nada|nie)(?!\w)",
    re.IGNORECASE,
)


def _splits(before: str, after: str, text: str) -> bool:
    """Whether a clause of kind ``after`` (text ``text``) starts its own piece after one of
    kind ``before``: a request, a task-only part or a standing order after a statement; a new
    statement after a request to forget, unless it only insists on it ("..., I don't want it
    kept"); never a statement trailing a task-only part or an order (its reason or detail)."""
    if before == after:
        return False
    if after != "plain":
        return True
    return before == "forget" and _NEGATION.search(text) is None


def clauses(sentence: str) -> list[str]:
    """``sentence`` split where its clauses say different kinds of thing (a request to forget,
    something for this task only, a standing order, or a plain statement; see
    :func:`_splits`); one piece when they all say the same kind, or a piece would be under
    three words."""
    parts = [p.strip() for p in _BOUNDARY.split(sentence) if p and p.strip()]
    if len(parts) < 2:
        return [sentence]
    groups: list[tuple[str, list[str]]] = []
    for part in parts:
        kind = _kind(part)
        short = len(part.split()) < _MIN_CLAUSE_WORDS
        if groups and (short or not _splits(groups[-1][0], kind, part)):
            groups[-1][1].append(part)
        else:
            groups.append((kind, [part]))
    if len(groups) < 2:
        return [sentence]
    return [", ".join(pieces) for _, pieces in groups]


def forget_label(sentence: str, label: str) -> str:
    """``forget`` for a sentence that asks, in any kept language, to forget or disregard what
    was said, or whose clause opens with a deletion verb of another kept language; else
    ``label``."""
    asked = asks_to_forget_said(sentence) or tells_to_forget(sentence)
    return "forget" if label != "forget" and asked else label


def choose_by_harm(
    sentence: str,
    candidates: tuple[Candidate, ...],
    label: str | None,
    *,
    reported: bool = False,
) -> tuple[Candidate, ...]:
    """``candidates`` with the homes the table above chooses (``label``: the router's;
    ``reported``: the sentence reports what the user did, so it gives no standing order)."""
    if not candidates:
        if gives_standing_order(sentence) and not reported and not asks_a_question(sentence):
            # an order to the agent the router kept nothing of: a person decides, rather
            # than the instruction being lost
            return (Candidate(text=sentence, changes_agent_behaviour=True),)
        return candidates
    question = asks_a_question(sentence)
    command = is_request_to_agent(sentence) and not _FIRST_PERSON.search(sentence)
    now = scoped_to_now(sentence) and not says_lasting(sentence)
    task = now and _TASK_SCOPE.search(sentence) is not None
    chosen: list[Candidate] = []
    for c in candidates:
        preference = c.needed_in_future_sessions and c.exact_value and c.key is not None
        if c.sensitive or c.forget_request or c.changes_agent_behaviour:
            chosen.append(c)
        elif preference and question:
            continue  # a question never writes user: state
        elif preference and c.key == REPLY_STYLE and command and not says_lasting(sentence):
            continue  # "Summarise my findings": done in the turn, no style for every reply
        elif command and not preference and c.needed_in_future_sessions and not c.replaces_earlier:
            continue  # a bare command is done in the turn, not kept as a fact
        elif c.needed_in_future_sessions and (
            (preference and now) or (task and not c.replaces_earlier)
        ):
            chosen.append(
                replace(
                    c,
                    needed_in_future_sessions=False,
                    needed_later_this_session=True,
                    exact_value=False,
                    replaces_earlier=False,
                )
            )
        elif (
            c.needed_in_future_sessions
            and not preference
            and not reported
            and gives_standing_order(sentence)
        ):
            chosen.append(
                Candidate(text=c.text, changes_agent_behaviour=True, observed_at=c.observed_at)
            )
        else:
            chosen.append(c)
    return tuple(chosen)
