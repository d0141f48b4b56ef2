"""What the user says about their memory, acted on: updates supersede, "please forget" deletes.

Wired into the router's applier (``MemoryApplier(update_handler=..., forget_handler=...)``,
see :func:`conversation_edit_handlers`), both use the memory service's own machinery:

* an update (a fact flagged ``replaces_earlier``): the user's current memory most similar to
  it (cosine at least ``update_min_similarity``) is corrected with ``correct_memory``: the old
  one gets ``valid_to`` (still reached with ``as_of``), the new one is current. With no
  memory that close, the fact is stored as usual.
* a forget request (``MemoryHome.FORGET``): what to forget is the request minus its verb
  phrase; every memory of the user is deleted
  (superseded ones too) whose cosine similarity to it is at least ``forget_min_similarity``
  and within ``forget_margin`` of the closest one (the bar is relative: a request matches
  what it names best, so a neighbouring fact scoring clearly lower survives); ``user:``
  preferences and session notes that name it are cleared too. The
  request itself is never stored; the session state gets ``FORGET_STATE_KEY`` = the count and
  the homes reached, never the text, so the agent can tell the user what was removed.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from adk_memory_kit._adk_compat import context_memory_service
from adk_memory_kit.lifecycle import forget_log
from adk_memory_kit.lifecycle.schema import ensure_lifecycle_schema
from adk_memory_kit.routing.apply import NOTES_KEY, RoutingOutcome
from adk_memory_kit.routing.rule import Candidate, MemoryHome
from adk_memory_kit.routing.text_signals import content_stems, overlap

if TYPE_CHECKING:
    from google.adk.agents.context import Context

logger = logging.getLogger(__name__)

FORGET_STATE_KEY = "adk_memory_kit:forget:last"
"""Session state: ``{"deleted": n, "homes": [...], "at": iso}`` of the newest forget request."""

_LEAD = re.compile(
    r"^\s*(?:(?:please|kindly|can you|could you|would you|i want you to|i'd like you to|"
    r"i would like you to|just)\s+)*"
    r"(?:forget|delete|erase|remove|wipe|purge|scrub|get rid of|clear out|drop|don't keep)\s+"
    r"(?:(?:everything|anything|all|any|the|my|what|whatever)\s+)?"
    r"(?:(?:stuff|bit|note|notes|details|memory|memories|information|info|records?|fact|"
    r"mention|records of|stored fact)\s+)?"
    r"(?:(?:you|that i|i)\s+(?:have|know|stored|remember|saved|told you|said|mentioned)\s+)?"
    r"(?:(?:about|on|of|regarding|that|where)\s+)?",
    re.IGNORECASE,
)
_TAIL = re.compile(
    r"\s*(?:,\s*)?(?:from (?:your |the )?(?:memory|records|notes)|please|,? it'?s off|"
    r"for good|entirely|completely)?[.!?]*\s*$",
    re.IGNORECASE,
)


def forget_subject(request: str) -> str:
    """What a forget request names ("Please erase the notes on my old flat." -> "my old
    flat"); the whole request when no verb phrase is found."""
    subject = _TAIL.sub("", _LEAD.sub("", request, count=1), count=1).strip(" ,.")
    return subject or request.strip()


def _dense(entry: Any) -> float:
    scores = (entry.custom_metadata or {}).get("scores") or {}
    dense = scores.get("dense")
    return float(dense) if dense is not None else 0.0


@dataclass
class ConversationEdits:
    """The handlers (see the module docstring); thresholds are cosine similarities."""

    update_min_similarity: float = 0.3
    forget_min_similarity: float = 0.3
    forget_margin: float = 0.1
    # Below every precise target's similarity on the tune split (lowest 0.51), above the
    # broad and weak ones: a weaker best match with a close runner-up is ambiguous.
    forget_confident_similarity: float = 0.45
    max_forget: int = 50
    # the user corrected it: the new fact keeps the user as its author (correct_memory uses
    # ``by`` as the author and as ``superseded_by``)
    by: str = "user"

    async def update(self, candidate: Candidate, context: Context) -> RoutingOutcome | None:
        """Supersede the closest current memory with ``candidate``; ``None``: nothing close
        enough (store it as usual) or the service cannot correct."""
        service = context_memory_service(context)
        if service is None or not hasattr(service, "correct_memory"):
            return None
        session = context.session
        found = await service.search(
            app_name=session.app_name,
            user_id=session.user_id,
            query=candidate.text,
            limit=5,
            record_access=False,
        )
        current = [
            m
            for m in found.memories
            if "superseded_at" not in (m.custom_metadata or {})
            and _dense(m) >= self.update_min_similarity
        ]
        if not current:
            return None
        best = max(current, key=_dense)
        fixed = await service.correct_memory(
            app_name=session.app_name,
            user_id=session.user_id,
            memory_id=best.id,
            new_text=candidate.text.strip(),
            reason="the user said it changed",
            by=self.by,
        )
        return RoutingOutcome(
            MemoryHome.LONG_TERM, "stored", candidate.key, f"supersedes {fixed.old_id}"
        )

    async def forget(self, candidate: Candidate, context: Context) -> RoutingOutcome:
        """Delete what the request names from every home; the count goes to state."""
        subject = forget_subject(candidate.text)
        homes: list[str] = []
        deleted = 0
        deleted_ids: list[str] = []
        ambiguous = 0
        service = context_memory_service(context)
        session = context.session
        if service is not None and hasattr(service, "search"):
            found = await service.search(
                app_name=session.app_name,
                user_id=session.user_id,
                query=subject,
                limit=self.max_forget,
                record_access=False,
            )
            chosen, ambiguous = self.forget_matches(found.memories)
            for memory in chosen:
                gone = await service.delete_memory(
                    app_name=session.app_name, user_id=session.user_id, memory_id=memory.id
                )
                if gone:
                    deleted += gone
                    deleted_ids.append(str(memory.id))
            if deleted:
                homes.append("long_term")
        wanted = content_stems(subject)
        state = context.state
        for key, value in list(state.to_dict().items()):
            if not key.startswith("user:pref_") or key.endswith("_at") or value is None:
                continue
            name = key.removeprefix("user:pref_")
            said = content_stems(f"{name.replace('_', ' ')} {value}")
            if wanted and overlap(said, wanted) > 0:
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
        record = {
            "deleted": deleted,
            "homes": homes,
            "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        if ambiguous:
            # not guessed at: the agent asks the user which one they meant
            record["needs_confirmation"] = ambiguous
        state[FORGET_STATE_KEY] = record
        if deleted:
            await self._log(service, session, deleted_ids, homes, deleted)
        logger.info("forget request: %d item(s) deleted (%s)", deleted, ", ".join(homes) or "none")
        if ambiguous and not deleted:
            return RoutingOutcome(
                MemoryHome.FORGET, "skipped", None, f"ambiguous: {ambiguous} close matches"
            )
        return RoutingOutcome(MemoryHome.FORGET, "forgotten", None, f"{deleted} deleted")

    def forget_matches(self, memories: Sequence[Any]) -> tuple[list[Any], int]:
        """The memories a forget request deletes, and how many close matches made it
        ambiguous (then nothing is deleted).

        Every memory whose similarity is at least ``forget_min_similarity`` and within
        ``forget_margin`` of the best match is chosen. When the best match is weak (below
        ``forget_confident_similarity``) and more than one memory is that close to it, the
        request is not guessed at: nothing is chosen, and the count of close matches is
        returned for a confirmation.
        """
        best = max((_dense(m) for m in memories), default=0.0)
        bar = max(self.forget_min_similarity, best - self.forget_margin)
        chosen = [m for m in memories if _dense(m) >= bar]
        if best < self.forget_confident_similarity and len(chosen) > 1:
            return [], len(chosen)
        return chosen, 0

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


def conversation_edit_handlers(edits: ConversationEdits | None = None) -> dict[str, Any]:
    """``{"update_handler": ..., "forget_handler": ...}`` for :class:`MemoryApplier`."""
    edits = edits or ConversationEdits()
    return {"update_handler": edits.update, "forget_handler": edits.forget}
