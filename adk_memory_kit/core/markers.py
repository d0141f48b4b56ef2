"""Markers shared by the components that write and read recalled text.

The recall block's tag is a contract: recall frames memories inside it, the write policy
recognises text that came out of it (so recalled memory never comes back in as a new
memory), and the scripted model skips it when it reads the conversation.
"""

from __future__ import annotations

#: The tag of the block that frames recalled memories: ``<RECALLED_MEMORY> ... </RECALLED_MEMORY>``.
RECALL_TAG = "RECALLED_MEMORY"

#: The metadata key of a long-term fact the user said as a change ("I moved my account to
#: Monzo") that the write path stored beside, not over, the fact it replaces (it could not
#: tell which one): the read path lets it lead older facts for a present-tense question.
ANNOUNCES_CHANGE = "announces_change"

#: The metadata key naming the memory (its id) that such a change most likely replaces: the
#: user's current memory closest to it when none was close enough to supersede. Nothing is
#: superseded; the read path lets the change lead that memory (memory/rerank.py), and the
#: change is indexed with that memory's text, so the questions the older memory answers
#: find the change too.
MAY_UPDATE = "may_update"

#: Session state keys of a forget request's outcome, shared by the handler that writes them
#: (``routing.edits.conversation_edits``) and the routing plugin that tells the agent about them.
#: The newest request's record: ``{"deleted": n, "homes": [...], "at": iso}`` (counts, no text).
#: The namespace of the kit's own session-state records (counts, ids, hashes: no user text).
KIT_STATE_NAMESPACE = "adk_memory_kit:"

FORGET_STATE_KEY = "adk_memory_kit:forget:last"
#: The memories a request matched too weakly to delete unasked: ``{"ids": [...], "at": iso,
#: "invocation_id": ...}`` (ids, no text), settled by the user's next reply.
PENDING_FORGET_KEY = "adk_memory_kit:forget:pending"
#: ``temp:`` state (this invocation only, never persisted): the pending memories' texts, best
#: first, so the agent can show the user what it would delete.
ASKED_TEXTS_KEY = "temp:adk_memory_kit:forget:asked"
