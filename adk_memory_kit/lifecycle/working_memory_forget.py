"""A forget request said in the conversation reaches the working memory too.

The scratchpad (``wm``, see :mod:`adk_memory_kit.working_memory`) holds named facts for the
task at hand ("flight_number: BA 117"). When the user asks to forget something, a fact whose
name, or name and value, is mostly the request's subject words is removed, and the rendered
view (``wm_view``) is written again, so the model's next instruction no longer shows it. Only
the default state key is read; a scratchpad this version cannot read is left as it is.
"""

from __future__ import annotations

import logging
from typing import Any

from adk_memory_kit.errors import SchemaMismatchError
from adk_memory_kit.routing.text_signals import content_stems, overlap
from adk_memory_kit.working_memory import Scratchpad, render_view, view_key_for
from adk_memory_kit.working_memory.config import DEFAULT_KEY

logger = logging.getLogger(__name__)

#: A fact goes when at least this share of its words (name, or name and value) are subject words.
MIN_OVERLAP = 0.5


def forget_in_working_memory(state: Any, wanted: set[str], key: str = DEFAULT_KEY) -> int:
    """Remove the scratchpad facts that ``wanted`` (the subject's content stems) names from
    ``state[key]`` and re-render ``state[<key>_view]``; returns how many were removed."""
    raw = state.get(key)
    if not raw or not wanted:
        return 0
    try:
        pad = Scratchpad.load(raw, key=key)
    except SchemaMismatchError:
        logger.info("forget request: the working memory could not be read; left as it is")
        return 0
    gone = []
    for name, fact in pad.facts.items():
        label = content_stems(name.replace("_", " "))
        whole = label | content_stems(fact.value)
        if overlap(label, wanted) >= MIN_OVERLAP or overlap(whole, wanted) >= MIN_OVERLAP:
            gone.append(name)
    if not gone:
        return 0
    for name in gone:
        del pad.facts[name]
    state[key] = None if pad.is_empty() else pad.dump()
    state[view_key_for(key)] = render_view(pad).text
    return len(gone)
