"""A forget request said in the conversation reaches the working memory too.

The scratchpad (``wm``, see :mod:`adk_memory_kit.working_memory`) holds named facts for the
task at hand ("flight_number: BA 117"). When the user asks to forget something, a fact the
request names (:func:`forget_in_working_memory`) is removed, and the rendered
view (``wm_view``) is written again, so the model's next instruction no longer shows it. Only
the default state key is read; a scratchpad this version cannot read is left as it is.
"""

from __future__ import annotations

import logging
from typing import Any

from adk_memory_kit.errors import SchemaMismatchError
from adk_memory_kit.text.signals import content_stems
from adk_memory_kit.working_memory import Scratchpad, render_view, view_key_for
from adk_memory_kit.working_memory.config import DEFAULT_KEY

logger = logging.getLogger(__name__)


def forget_in_working_memory(
    state: Any,
    naming: set[str],
    ignore: frozenset[str] | set[str] = frozenset(),
    key: str = DEFAULT_KEY,
) -> int:
    """Remove from ``state[key]`` the scratchpad facts the subject names and re-render
    ``state[<key>_view]``; returns how many were removed. ``naming``: the subject's naming
    stems; ``ignore``: stems that name nothing on their own ("number", "name", "details").
    A fact is named when the naming words of its name are all in the subject, or the
    subject's are all in its name or value ("my flight number" names ``flight_number``, not
    ``room_number``; "my bike lock" names ``bike_lock_code``)."""
    raw = state.get(key)
    if not raw or not naming:
        return 0
    try:
        pad = Scratchpad.load(raw, key=key)
    except SchemaMismatchError:
        logger.info("forget request: the working memory could not be read; left as it is")
        return 0
    gone = []
    for name, fact in pad.facts.items():
        label = content_stems(name.replace("_", " ")) - ignore
        whole = label | (content_stems(fact.value) - ignore)
        if (label and label <= naming) or naming <= whole:
            gone.append(name)
    if not gone:
        return 0
    for name in gone:
        del pad.facts[name]
    state[key] = None if pad.is_empty() else pad.dump()
    state[view_key_for(key)] = render_view(pad).text
    return len(gone)
