"""The memory tools the MCP server offers, each acting for one :class:`~.auth.Identity`.

Every method takes the identity the connection authenticated; none takes an app or a user
from the caller. What they reuse (no second implementation of any rule):

- ``search_memory``: ``PgVectorMemoryService.search``, framed by ``RecallBudget.frame`` (the
  block ``FramedLoadMemoryTool`` returns: quoted past content, each item dated, data not
  instructions).
- ``remember``: the routing rule (``MemoryApplier.classify``: sensitive -> dropped, a change to
  the agent's behaviour -> the review queue, anything else -> long-term memory) and then
  ``PgVectorMemoryService.add_memory`` (the write pipeline: verification, redaction,
  consolidation), the path the console and the router's own long-term writes take.
- ``forget``: ``delete_memory`` by id; by description, the conversation-edit chooser
  (``ConversationEdits.forget_matches``) over a search, deleting only confident matches.
- ``list_memories``: ``memory.browse.list_memories`` (unranked, a look is not a use), framed.
- ``correct``: ``curator.correct_memory`` (the old memory is kept, superseded), after the
  routing rule accepted the new statement.

Results never echo the caller's text except inside a frame; error messages are the kit's own
(they never hold user text), and other failures are reported by type only.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from typing import Any, ParamSpec, TypeVar

from adk_memory_kit.assembly import PgVectorMemoryService
from adk_memory_kit.core.db_errors import DOOR_ATTR
from adk_memory_kit.errors import InvalidInputError, MemoryKitError
from adk_memory_kit.mcp.auth import Identity
from adk_memory_kit.memory.browse import list_memories
from adk_memory_kit.recall.conflicts import RecalledMemory
from adk_memory_kit.recall.framing import format_date, frame_memories, quote
from adk_memory_kit.recall.preload import RecallBudget
from adk_memory_kit.routing.apply import MemoryApplier
from adk_memory_kit.routing.edits.conversation_edits import ConversationEdits
from adk_memory_kit.routing.extractors import (
    RuleBasedExtractor,
    dated,
    looks_like_behaviour_change,
)
from adk_memory_kit.routing.outcomes import long_term_entry
from adk_memory_kit.routing.review_queue import ReviewQueue
from adk_memory_kit.routing.rule import Candidate, MemoryHome

logger = logging.getLogger(__name__)

P = ParamSpec("P")
R = TypeVar("R")

#: The author and source stored on what the MCP server writes.
AUTHOR = "mcp"
MAX_STATEMENT_CHARS = 4000
MAX_QUERY_CHARS = 500
#: How many search results a description is matched against before anything is deleted.
FORGET_CANDIDATES = 10


class ToolRefusal(Exception):
    """A tool's failure, safe to show the caller: the message holds no user text."""


def refusals(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """Turn every failure of ``fn`` into a :class:`ToolRefusal` whose message is the kit's
    own (kit errors never quote user text) or, for anything else, only the error's type."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except ToolRefusal:
            raise
        except MemoryKitError as exc:
            logger.info("mcp tool %s refused: %s", fn.__name__, type(exc).__name__)
            raise ToolRefusal(" ".join(str(exc).split())) from None
        except Exception as exc:
            logger.warning("mcp tool %s failed: %s", fn.__name__, type(exc).__name__)
            raise ToolRefusal(f"the memory service failed ({type(exc).__name__})") from None

    setattr(wrapper, DOOR_ATTR, "tool")  # errors come back as tool results
    return wrapper


def _text(name: str, value: object, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{name} must be non-empty text")
    if len(value) > limit:
        raise InvalidInputError(f"{name} must be at most {limit} characters")
    return value.strip()


def _ids_in_block(entries: Any, block: str, included: int) -> list[str | None]:
    """The ids of the memories ``block`` shows, in its order: the frame keeps the search's
    order and may leave out one that does not fit, so each is found by its quoted start."""
    ids: list[str | None] = []
    at = 0
    for memory in map(RecalledMemory.from_entry, entries):
        if len(ids) == included:
            break
        head = quote(memory.text)[:40] if memory.text.strip() else ""
        found = block.find(head, at) if head else -1
        if found >= 0:
            ids.append(memory.memory_id)
            at = found + len(head)
    return ids


class MemoryTools:
    """The five tools over one memory service (and the review queue on its database).

    Args:
        memory: the kit's memory service (its engine is shared with the review queue).
        budget: how ``search_memory`` frames what it finds (default: ``RecallBudget`` with
            ``max_tokens=4000``; a call's ``limit`` caps the results).
        applier: the routing rule's applier (default: one with the kit's detectors and this
            review queue, no conversation handlers).
    """

    def __init__(
        self,
        memory: PgVectorMemoryService,
        *,
        budget: RecallBudget | None = None,
        applier: MemoryApplier | None = None,
        review_queue: ReviewQueue | None = None,
    ) -> None:
        self.memory = memory
        self.budget = budget or RecallBudget(max_tokens=4000, max_results=20)
        self.review_queue = review_queue
        self.applier = applier or MemoryApplier(
            review_queue=None, forget_handler=None, update_handler=None, author=AUTHOR
        )
        self.extractor = RuleBasedExtractor()
        self.edits = ConversationEdits()

    def _queue(self) -> ReviewQueue:
        if self.review_queue is None:
            self.review_queue = ReviewQueue(engine=self.memory.engine)
        return self.review_queue

    async def close(self) -> None:
        """Close the review queue (the memory service is the caller's to close)."""
        if self.review_queue is not None:
            await self.review_queue.close()

    @refusals
    async def search_memory(self, who: Identity, query: str, limit: int = 5) -> dict[str, Any]:
        """The user's memories best matching ``query``, as one framed, dated block.

        ``ids[i]`` is the id of ``memory i+1`` in the block (for ``forget`` and ``correct``)."""
        query = " ".join(_text("query", query, 10 * MAX_QUERY_CHARS).split())[:MAX_QUERY_CHARS]
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 20:
            raise InvalidInputError("limit must be a whole number from 1 to 20")
        found = await self.memory.search(
            app_name=who.app_name, user_id=who.user_id, query=query, limit=limit
        )
        budget = self.budget.model_copy(update={"max_results": limit})
        block = budget.frame(found.memories, {})
        result: dict[str, Any] = {
            "memories": block.text,
            "count": block.included,
            "omitted": block.omitted,
            "ids": _ids_in_block(found.memories, block.text, block.included),
        }
        if not block.text:
            result["note"] = "nothing recalled for this query"
        return result

    @refusals
    async def remember(self, who: Identity, statement: str) -> dict[str, Any]:
        """Route ``statement`` like a user's stated fact and store it where the rule says."""
        text = _text("statement", statement, MAX_STATEMENT_CHARS)
        now = datetime.now(timezone.utc)
        extracted = self.extractor.extract_text(text, observed_at=now)
        candidate = dated(
            Candidate(
                text=text,
                about_user=True,
                needed_in_future_sessions=True,
                changes_agent_behaviour=looks_like_behaviour_change(text),
                sensitive=any(c.sensitive for c in extracted),
                observed_at=now,
                memory_type="fact",
            )
        )
        candidate, home, kinds = self.applier.classify(candidate)
        if home is MemoryHome.DROP:
            return {
                "status": "dropped",
                "where": "not stored: it looks like sensitive data",
                "kinds": kinds,
            }
        if home is MemoryHome.PROCEDURAL_REVIEW:
            item = await self._queue().submit(
                app_name=who.app_name, user_id=who.user_id, text=candidate.text, source=AUTHOR
            )
            return {
                "status": "queued",
                "where": "sent to a human for review (a change to how the agent behaves); "
                "it is not active",
                "review_id": str(item.id),
            }
        entry, meta = long_term_entry(candidate, when=now, author=AUTHOR, source=AUTHOR)
        report = await self.memory.add_memory(
            app_name=who.app_name, user_id=who.user_id, memories=[entry], custom_metadata=meta
        )
        outcome = report.outcomes[0] if report.outcomes else None
        if outcome is None or outcome.memory_id is None:
            reason = (outcome.reason if outcome is not None else None) or "not stored"
            return {"status": "rejected", "where": f"not stored ({reason})"}
        return {
            "status": "stored",
            "where": "saved in long-term memory",
            "memory_id": outcome.memory_id,
        }

    @refusals
    async def forget(
        self, who: Identity, memory_id: str | None = None, description: str | None = None
    ) -> dict[str, Any]:
        """Delete one memory by id, and/or the memories ``description`` clearly names."""
        if not memory_id and not description:
            raise InvalidInputError("give memory_id, description or both")
        deleted: list[str] = []
        if memory_id:
            try:
                count = await self.memory.delete_memory(
                    app_name=who.app_name, user_id=who.user_id, memory_id=str(memory_id)
                )
            except InvalidInputError:
                count = 0
            if not count and not description:
                return {"status": "not_found", "where": "no memory of this user has that id"}
            if count:
                deleted.append(str(memory_id))
        result: dict[str, Any] = {}
        if description:
            subject = " ".join(_text("description", description, MAX_QUERY_CHARS).split())
            found = await self.memory.search(
                app_name=who.app_name,
                user_id=who.user_id,
                query=subject,
                limit=FORGET_CANDIDATES,
                record_access=False,
            )
            chosen, unsure = self.edits.chooser.forget_matches(found.memories)
            for entry in chosen:
                if await self.memory.delete_memory(
                    app_name=who.app_name, user_id=who.user_id, memory_id=str(entry.id)
                ):
                    deleted.append(str(entry.id))
            if unsure:
                # close matches, none clearly the one: nothing guessed at, the caller asks
                result["ambiguous"] = unsure
                result["note"] = (
                    "several memories match the description about equally; nothing of them "
                    "was deleted: search_memory shows them, forget by memory_id"
                )
        status = "forgotten" if deleted else "not_found"
        where = "deleted from long-term memory" if deleted else "nothing matched clearly"
        return {"status": status, "where": where, "deleted": deleted, **result}

    @refusals
    async def list_memories(
        self, who: Identity, offset: int = 0, limit: int = 20
    ) -> dict[str, Any]:
        """A page of the user's current memories, newest first, framed like recall."""
        for name, value, high in (("offset", offset, 2**31), ("limit", limit, 100)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
                raise InvalidInputError(f"{name} must be a whole number from 0 to {high}")
        page = await list_memories(
            self.memory.store,
            app_name=who.app_name,
            user_id=who.user_id,
            offset=offset,
            limit=max(limit, 1),
        )
        recalled = [RecalledMemory.from_entry(e) for e in page.items]
        return {
            "memories": frame_memories(recalled) if recalled else "",
            "ids": [m.memory_id for m in recalled],
            "dates": [format_date(m.when) for m in recalled],
            "total": page.total,
            "offset": page.offset,
            "next_offset": page.offset + len(page.items) if page.has_next else None,
        }

    @refusals
    async def correct(
        self, who: Identity, memory_id: str, statement: str, reason: str = "corrected by the user"
    ) -> dict[str, Any]:
        """Replace memory ``memory_id`` by ``statement``; the old one is kept as superseded."""
        text = _text("statement", statement, MAX_STATEMENT_CHARS)
        why = _text("reason", reason, 500)
        candidate, home, _ = self.applier.classify(
            Candidate(text=text, about_user=True, needed_in_future_sessions=True)
        )
        if home is MemoryHome.DROP:
            return {"status": "refused", "where": "not stored: it looks like sensitive data"}
        if home is not MemoryHome.LONG_TERM and home is not MemoryHome.USER_STATE:
            return {
                "status": "refused",
                "where": "not a fact to store (a change to how the agent behaves goes through "
                "remember, to human review)",
            }
        try:
            fixed = await self.memory.curator.correct_memory(
                app_name=who.app_name,
                user_id=who.user_id,
                memory_id=str(memory_id),
                new_text=candidate.text,
                reason=why,
                by=AUTHOR,
            )
        except InvalidInputError:  # MemoryNotFoundError, or an id that is no memory id
            return {"status": "not_found", "where": "no memory of this user has that id"}
        return {
            "status": "corrected",
            "where": "saved in long-term memory; the old memory is kept as superseded",
            "memory_id": fixed.new_id,
            "replaced": fixed.old_id,
        }
