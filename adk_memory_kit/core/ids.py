"""The kit's stable ids: the one ``fact:`` key scheme and the memory row id.

A fact's key is derived from its normalized text, so re-adding the same fact (whatever its
case, punctuation or spacing) updates the stored row instead of duplicating it. Both the
router (``routing/apply.py``) and explicit ``add_memory`` entries without an id use
:func:`fact_key`.

Rows stored by releases before this scheme was shared may carry the other key,
:func:`legacy_text_fact_key` (explicit entries without an id were keyed by their exact
text). ``PgVectorMemoryService.add_memory`` looks up that key too and updates such a row in
place, so stored ids stay valid.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid

FACT_PREFIX = "fact:"
_ROW_NAMESPACE = uuid.UUID("6f1c2a53-8f0e-4a8e-9a43-2d6c0b1b7e11")
_NOT_WORD = re.compile(r"[^\w\s]")


def normalize_fact_text(text: str) -> str:
    """Lower-case, punctuation-free, single-spaced text: the identity of a fact."""
    return " ".join(_NOT_WORD.sub(" ", text.lower()).split())


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:32]


def fact_key(text: str) -> str:
    """The stable key of a fact: ``fact:`` + 32 hex digits of its normalized text's SHA-256."""
    return FACT_PREFIX + _digest(normalize_fact_text(text))


def legacy_text_fact_key(text: str) -> str:
    """The key older releases gave an explicit entry without an id (its exact text's hash).

    Only for finding rows stored under it; new rows never get it.
    """
    return FACT_PREFIX + _digest(text)


def memory_row_id(app_name: str, user_id: str, session_id: str, event_id: str) -> str:
    """The memory table's row id: the same (app, user, session, key) always maps to it."""
    return str(uuid.uuid5(_ROW_NAMESPACE, json.dumps([app_name, user_id, session_id, event_id])))
