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
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from adk_memory_kit._adk_compat import context_memory_service
from adk_memory_kit.routing.apply import NOTES_KEY, RoutingOutcome
from adk_memory_kit.routing.homes import Candidate, MemoryHome
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
    max_forget: int = 50
    by: str = "memory_router"

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
            best = max((_dense(m) for m in found.memories), default=0.0)
            bar = max(self.forget_min_similarity, best - self.forget_margin)
            for memory in found.memories:
                if _dense(memory) >= bar:
                    deleted += await service.delete_memory(
                        app_name=session.app_name, user_id=session.user_id, memory_id=memory.id
                    )
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
        state[FORGET_STATE_KEY] = {
            "deleted": deleted,
            "homes": homes,
            "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }
        logger.info("forget request: %d item(s) deleted (%s)", deleted, ", ".join(homes) or "none")
        return RoutingOutcome(MemoryHome.FORGET, "forgotten", None, f"{deleted} deleted")


def conversation_edit_handlers(edits: ConversationEdits | None = None) -> dict[str, Any]:
    """``{"update_handler": ..., "forget_handler": ...}`` for :class:`MemoryApplier`."""
    edits = edits or ConversationEdits()
    return {"update_handler": edits.update, "forget_handler": edits.forget}
