"""Markers shared by the components that write and read recalled text.

The recall block's tag is a contract: recall frames memories inside it, the write policy
recognises text that came out of it (so recalled memory never comes back in as a new
memory), and the scripted model skips it when it reads the conversation.
"""

from __future__ import annotations

#: The tag of the block that frames recalled memories: ``<RECALLED_MEMORY> ... </RECALLED_MEMORY>``.
RECALL_TAG = "RECALLED_MEMORY"
