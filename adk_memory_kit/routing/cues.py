"""A few lexical cues the offline router's linear head reads beside the sentence embedding.

MiniLM embeds what a sentence is about; these say how it is said (a question, a session
marker, a change, a deletion verb, an order to the assistant, first person, a lasting marker),
which is what separates "aisle seat this time" from "aisle seats always". Each is 0 or 1.
"""

from __future__ import annotations

import re

import numpy as np

_CUES = (
    r"\?\s*$",
    r"\b(?:this|that) (?:time|trip|booking|order|one|stay|flight|ticket|weekend|week|evening|"
    r"afternoon|morning|meeting|dinner|rental|reservation|purchase|leg)\b|\btoday\b|\btonight\b|"
    r"\bright now\b|\bfor now\b|\bjust this once\b|\bcurrently\b",
    r"\b(?:now|anymore|any more|no longer|any longer|instead|these days|used to|changed|new|"
    r"moved|switched|since|stopped|sold|left|quit|died|passed|finished|gone|correction|update)\b",
    r"\b(?:forget|delete|erase|remove|wipe|purge|scrub)\b",
    r"\b(?:you|your)\b|^(?:don'?t|do not|never|stop|quit|skip|always|no more|no need|cut|"
    r"leave out|drop|bypass|override|ignore|disregard|act|answer|change)\b",
    r"\b(?:i|i'm|i've|my|we|our|we're|me)\b",
    r"\b(?:always|every|whenever|by default|all my|in general|from here on|going forward|"
    r"usually|normally)\b",
)
_COMPILED = tuple(re.compile(p, re.IGNORECASE) for p in _CUES)

N_CUES = len(_CUES)


def cue_vector(text: str) -> np.ndarray:
    """The cues of ``text`` as a 0/1 float vector of length :data:`N_CUES`."""
    return np.array([1.0 if c.search(text) else 0.0 for c in _COMPILED], dtype=np.float32)
