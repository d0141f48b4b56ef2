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
    r"\b(?:for|on|during|with|in) this \w+|\bthis (?:time|one|once)\b|\btoday\b|\btonight\b|"
    r"\bright now\b|\bfor now\b|\bjust this once\b|\bcurrently\b|\bthis (?:week|weekend|"
    r"evening|afternoon|morning)\b",
    r"\b(?:now|anymore|any more|no longer|any longer|instead|these days|used to|changed|new|"
    r"moved|switched|since|stopped|sold|left|quit|died|passed|finished|gone|correction|update)\b",
    r"\b(?:forget|delete|erase|remove|wipe|purge|scrub)\b",
    r"\b(?:you|your)\b|^(?:(?:in future|in the future|from now on|going forward|next time),? )?"
    r"(?:don'?t|do not|never|stop|quit|skip|always|no more|no need|cut|leave out|drop|bypass|"
    r"override|ignore|disregard|act|answer|change)\b|\bdon'?t bother\b",
    r"\b(?:i|i'm|i've|my|we|our|we're|me)\b",
    r"\b(?:always|every|whenever|by default|all my|in general|from here on|going forward|"
    r"usually|normally)\b",
)
_COMPILED = tuple(re.compile(p, re.IGNORECASE) for p in _CUES)

N_CUES = len(_CUES)


def cue_vector(text: str) -> np.ndarray:
    """The cues of ``text`` as a 0/1 float vector of length :data:`N_CUES`."""
    return np.array([1.0 if c.search(text) else 0.0 for c in _COMPILED], dtype=np.float32)
