"""Index-only keys: sentences the write policy leaves out of the stored text but keeps findable.

Under ``WritePolicy.ROUTED`` a filler sentence ("Wow, that's great!") or a question that states
nothing ("Did you go to the concert?") is never stored. The answer that follows it ("Yes, last
Tuesday") is only findable together with that question, so :func:`select_events` (asked with
``index_context=True``) hands those sentences on as index keys, never as stored text:

* a kept event's copy carries, in its ``custom_metadata``, its whole indexable text in order
  (:data:`INDEX_TEXT_KEY`: stored and left-out sentences) and its left-out sentences alone
  (:data:`LEFT_OUT_KEY`);
* an event left with nothing to store but with such sentences comes back as a *context-only*
  copy (:data:`CONTEXT_ONLY_KEY`): the indexer uses it as a neighbour's context and makes no
  row of it.

Only the reasons in :data:`INDEX_ONLY_REASONS` qualify: a sensitive sentence, a sentence routed
elsewhere (forget requests, behaviour changes, session-only state) or an echo of recalled
memory never enters the index. The indexer (``memory.documents``) still runs the redactor and
the store's gate over these texts.
"""

from __future__ import annotations

from typing import Any

from google.adk.events.event import Event

#: Verdict reasons (``SentenceVerdict.reason``) whose sentences may be index keys.
INDEX_ONLY_REASONS = frozenset({"filler", "question without a fact"})

#: custom_metadata keys the write policy sets on its event copies (kit-private).
INDEX_TEXT_KEY = "adk_memory_kit:index_text"
LEFT_OUT_KEY = "adk_memory_kit:left_out"
CONTEXT_ONLY_KEY = "adk_memory_kit:context_only"

_KEYS = (INDEX_TEXT_KEY, LEFT_OUT_KEY, CONTEXT_ONLY_KEY)


def _meta(event: Event) -> dict[str, Any]:
    meta = event.custom_metadata
    return meta if isinstance(meta, dict) else {}


def is_context_only(event: Event) -> bool:
    """Whether ``event`` is a write-policy copy that is context for its neighbours only."""
    return _meta(event).get(CONTEXT_ONLY_KEY) is True


def index_text(event: Event) -> str:
    """The event's whole indexable text (stored and left-out sentences, in order); ``""`` when
    the policy set none (then the indexer uses the stored text)."""
    value = _meta(event).get(INDEX_TEXT_KEY)
    return value if isinstance(value, str) else ""


def left_out_text(event: Event) -> str:
    """The event's left-out sentences that are index keys only (``""``: none)."""
    value = _meta(event).get(LEFT_OUT_KEY)
    return value if isinstance(value, str) else ""


def without_keys(metadata: dict[str, Any] | None) -> dict[str, Any] | None:
    """``metadata`` without the index-key entries (an incoming event never sets them)."""
    if not metadata or not any(k in metadata for k in _KEYS):
        return metadata
    return {k: v for k, v in metadata.items() if k not in _KEYS}


def with_keys(
    metadata: dict[str, Any] | None, indexable: str, left_out: str, *, context_only: bool
) -> dict[str, Any] | None:
    """``metadata`` plus the index keys of one event copy (none when nothing was left out)."""
    base = dict(without_keys(metadata) or {})
    if not left_out:
        return base or None
    base[INDEX_TEXT_KEY] = indexable
    base[LEFT_OUT_KEY] = left_out
    if context_only:
        base[CONTEXT_ONLY_KEY] = True
    return base
