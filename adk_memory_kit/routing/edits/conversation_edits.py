"""What the user says about their memory, acted on: updates supersede, "please forget" deletes.

Wired into the router's applier (``MemoryApplier(update_handler=..., forget_handler=...)``,
see :func:`conversation_edit_handlers`), both use the memory service's own machinery. The
work is done by parts, each in its module: :mod:`.superseding` (updates), :mod:`.forgetting`
(forget requests, over :mod:`.forget_matcher` and :mod:`.forget_choice`) and
:mod:`.pending_forget` (the question left for the user); :class:`ConversationEdits` holds the
settings they share (:class:`~.edit_settings.EditSettings`) and composes them.

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
  their own are deleted (the absolute bar, :meth:`.forget_assessment.ForgetAssessor.on_its_own`:
  close enough, every naming word, or clearly that kind of detail; never a memory about
  someone or something the request does not name), so a request for something never stored does
  not take its closest neighbour: weak matches ask for a confirmation instead. Of those,
  every memory scoring at least ``forget_min_similarity`` and within ``forget_margin`` of the
  best is deleted; a weak best match with a close runner-up asks for a confirmation too,
  unless the people the request names settle it
  (:meth:`.forget_choice.ForgetChooser.same_people`).
  ``user:`` preferences, session notes and working-memory facts that name it are cleared
  too. The request itself is never stored; the session state gets ``FORGET_STATE_KEY`` = the
  count and the homes reached, never the text, so the agent can tell the user what was
  removed. The memories it asked about (and, with nothing else matched, one at least
  ``ask_min_similarity`` close though it shares no word) are held for the user's answer:
  their ids in ``PENDING_FORGET_KEY``, their texts in ``temp:`` state for the agent to show;
  :func:`.pending_forget.settle` applies the answer in a later turn (the routing plugin
  calls it).

  With a ``forget_judge`` (:class:`~.forget_judge.ForgetJudge`: the agent's own model, see
  ``conversation_edit_handlers(model=...)``), the memories the offline matcher chose and the
  closest others (below the bars too) are shown to the model, numbered, beside the subject;
  the numbers it answers decide what is deleted (:meth:`.forget_choice.ForgetChooser.judged`).
  A vague request never reaches it; a failed call or an invalid answer leaves the offline decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from google.adk.models.base_llm import BaseLlm

from adk_memory_kit.routing.edits import pending_forget
from adk_memory_kit.routing.edits.edit_settings import EditSettings
from adk_memory_kit.routing.edits.forget_assessment import ForgetAssessor
from adk_memory_kit.routing.edits.forget_choice import ForgetChooser
from adk_memory_kit.routing.edits.forget_judge import ForgetJudge
from adk_memory_kit.routing.edits.forget_matcher import ForgetMatcher
from adk_memory_kit.routing.edits.forgetting import Forgetting
from adk_memory_kit.routing.edits.kind_names import KindNames
from adk_memory_kit.routing.edits.superseding import Superseder
from adk_memory_kit.routing.outcomes import RoutingOutcome
from adk_memory_kit.routing.rule import Candidate

if TYPE_CHECKING:
    from google.adk.agents.context import Context


@dataclass
class ConversationEdits(EditSettings):
    """The handlers (see the module docstring): the settings, and the parts built on them."""

    kinds: KindNames = field(init=False, repr=False, compare=False)
    assessor: ForgetAssessor = field(init=False, repr=False, compare=False)
    matcher: ForgetMatcher = field(init=False, repr=False, compare=False)
    chooser: ForgetChooser = field(init=False, repr=False, compare=False)
    superseder: Superseder = field(init=False, repr=False, compare=False)
    forgetting: Forgetting = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.kinds = KindNames(self)
        self.assessor = ForgetAssessor(self, self.kinds)
        self.matcher = ForgetMatcher(self, self.kinds, self.assessor)
        self.chooser = ForgetChooser(self)
        self.superseder = Superseder(self)
        self.forgetting = Forgetting(self, self.matcher, self.chooser)

    async def update(self, candidate: Candidate, context: Context) -> RoutingOutcome | None:
        """:meth:`.superseding.Superseder.update`: supersede the memory about the same subject."""
        return await self.superseder.update(candidate, context)

    async def link(self, candidate: Candidate, context: Context) -> RoutingOutcome | None:
        """:meth:`.superseding.Superseder.link`: a plain fact linked to the memory it nears."""
        return await self.superseder.link(candidate, context)

    async def forget(self, candidate: Candidate, context: Context) -> RoutingOutcome:
        """:meth:`.forgetting.Forgetting.forget`: delete what the request names."""
        return await self.forgetting.forget(candidate, context)

    async def settle(self, context: Context, answer: bool | Sequence[int]) -> RoutingOutcome | None:
        """:func:`.pending_forget.settle`: act on the user's answer to a pending question."""
        return await pending_forget.settle(context, answer)


def conversation_edit_handlers(
    edits: ConversationEdits | None = None, *, model: BaseLlm | str | None = None
) -> dict[str, Any]:
    """``{"update_handler": ..., "link_handler": ..., "forget_handler": ...,
    "confirmation_handler": ...}`` for :class:`MemoryApplier`.

    ``model``: the agent's own model (an ADK ``BaseLlm`` or a model name), asked which of the
    closest memories a forget request names (:class:`~.forget_judge.ForgetJudge`); ``None``
    (offline): the offline matcher alone decides."""
    edits = edits or ConversationEdits()
    if model is not None:
        edits = replace(edits, forget_judge=ForgetJudge(model))
    return {
        "update_handler": edits.update,
        "link_handler": edits.link,
        "forget_handler": edits.forget,
        "confirmation_handler": edits.settle,
    }
