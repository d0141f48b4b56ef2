"""The thresholds and parts every conversation edit shares: one dataclass, set once.

:class:`~.conversation_edits.ConversationEdits` is these settings with the handlers on top;
the parts it is made of (:mod:`.superseding`, :mod:`.forget_matcher`, :mod:`.forget_choice`,
:mod:`.forgetting`) read them from here, so a changed setting reaches every part. Thresholds
are cosine similarities, set on the tune split of ``tests/routing/data/edits.jsonl``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from adk_memory_kit.routing.edits.detail_kinds import DEFAULT_DETAIL_KINDS, DetailKinds
from adk_memory_kit.routing.edits.forget_judge import ForgetJudge
from adk_memory_kit.routing.edits.update_subject import SubjectCheck


@dataclass
class EditSettings:
    """How updates and forget requests are matched to the user's memories."""

    # the store's own query similarity a memory needs to be looked at for an update; which
    # one is replaced is decided by ``subject_check`` (an update about X never replaces Y)
    update_min_similarity: float = 0.2
    update_candidates: int = 8
    # an update none of those is close enough to supersede is stored beside the closest one
    # at least this similar, linked to it (``MAY_UPDATE``: it leads that memory at read time;
    # nothing is hidden). Tune split: the replaced fact is this close in 49 of 50 updates
    update_link_similarity: float = 0.3
    # a lasting fact the router did not flag as a change is linked the same way to a current
    # memory at least this close (``None``: never): many changes are said without a change
    # word ("Sold the old Hilux, the Ranger came Thursday"), and in other languages. Choosing
    # by harm: a wrong link only orders two memories when both are recalled.
    plain_link_similarity: float | None = 0.4
    # ... and this close when the two name different people ("my wife's number" beside "my
    # number"). Kit and first-read corpora c1-c4: at 0.4 / 0.5, 75% of the facts a change
    # replaces are reached, and 29% of the related memories about something else
    plain_link_other_people_similarity: float = 0.5
    # ... and so is one whose chosen memory is this far behind the closest (the subject check
    # is a rule; a wrong supersede hides a true fact, a link only orders two memories)
    supersede_margin: float = 0.1
    # an update's old fact said earlier in the session and not stored yet: the user's last
    # this many such sentences are looked at (:meth:`.superseding.Superseder.replace_said_earlier`)
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
    # a request the grammar cannot read: this many memories closest to the whole sentence are
    # looked at (those at least ``ask_min_similarity`` close are shown to confirm)
    unread_request_candidates: int = 8
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
    # (:meth:`.forget_choice.ForgetChooser.judged`); ``None``: the offline bars alone decide
    forget_judge: ForgetJudge | None = None
