"""Procedural memory with a human in the loop: approved instructions reach the agent.

The router sends a request that would change how the agent behaves ("never book red-eye
flights without asking") to the review queue, never to a store the agent reads. Once a person
approves it (``adk-memory-kit review approve ID``, or the console), this plugin renders it into
the agent's system instruction, in a marked block that names each item's approval date and
approver, from the next model call on:

    app = App(..., plugins=[MemoryRoutingPlugin(), ApprovedInstructionsPlugin()])

Guarantees:

- only ``approved`` items are rendered; pending, rejected and revoked ones never are;
- an item approved for one user reaches only that user's agent; one approved with
  ``applies_to="app"`` reaches every user of that app, and no other app;
- a revocation takes effect at the next invocation (items are read once per invocation);
- a failing read never breaks the turn: it is logged (its type only) and the request is
  sent without the block.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import TYPE_CHECKING

from google.adk.plugins.base_plugin import BasePlugin
from typing_extensions import override

from adk_memory_kit.core.db_errors import contained_doors, describe
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.routing.review_queue import ReviewItem, ReviewQueue

if TYPE_CHECKING:
    from google.adk.agents.context import Context
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse

logger = logging.getLogger(__name__)

BLOCK_START = "[approved standing instructions: reviewed and approved by a person]"
BLOCK_END = "[end of approved standing instructions]"
_REMEMBERED_INVOCATIONS = 256


def render_instructions(items: list[ReviewItem]) -> str:
    """The marked block for ``items`` ("" when there are none): one line each, with its
    approval date, approver and whom it applies to."""
    if not items:
        return ""
    lines = [
        BLOCK_START,
        "Follow these unless the user says otherwise in this conversation.",
    ]
    for item in items:
        when = f"{item.decided_at:%Y-%m-%d}" if item.decided_at else "?"
        whom = "every user of this app" if item.applies_to == "app" else "this user"
        body = " ".join(item.text.split())
        lines.append(f"- {body} (#{item.id}, for {whom}; approved {when} by {item.decided_by})")
    lines.append(BLOCK_END)
    return "\n".join(lines)


@contained_doors
class ApprovedInstructionsPlugin(BasePlugin):
    """Adds the approved instructions of the session's user (and app-wide ones) to every
    model request, read once per invocation.

    Args:
        review_queue: the queue approvals are recorded in (default: ``ReviewQueue()`` on
            ``ADK_MEMORY_KIT_DB_URL`` or the embedded server).
        max_items: the most items rendered (the newest approvals are kept), 1 to 100.
    """

    def __init__(
        self,
        review_queue: ReviewQueue | None = None,
        *,
        max_items: int = 20,
        name: str = "approved_instructions",
    ) -> None:
        if (
            isinstance(max_items, bool)
            or not isinstance(max_items, int)
            or not 0 < max_items <= 100
        ):
            raise InvalidInputError("max_items must be a whole number from 1 to 100")
        super().__init__(name=name)
        self.review_queue = review_queue if review_queue is not None else ReviewQueue()
        self.max_items = max_items
        self._blocks: OrderedDict[str, str] = OrderedDict()

    async def _block_for(self, app_name: str, user_id: str) -> str:
        """The block this user's agent is given now ("" when nothing is approved)."""
        items = await self.review_queue.approved_instructions(
            app_name, user_id, limit=self.max_items
        )
        return render_instructions(items)

    @override
    async def before_model_callback(
        self, *, callback_context: Context, llm_request: LlmRequest
    ) -> LlmResponse | None:
        invocation = callback_context.invocation_id
        block = self._blocks.get(invocation)
        if block is None:
            session = callback_context.session
            try:
                block = await self._block_for(session.app_name, session.user_id)
            except Exception as exc:  # the turn goes on without the block
                logger.warning("approved instructions not read (%s)", describe(exc))
                return None
            self._blocks[invocation] = block
            while len(self._blocks) > _REMEMBERED_INVOCATIONS:
                self._blocks.popitem(last=False)
        if block:
            llm_request.append_instructions([block])
        return None
