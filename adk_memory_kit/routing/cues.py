"""A few lexical cues the offline router's linear head reads beside the sentence embedding.

MiniLM embeds what a sentence is about; these say how it is said (a question, a session
marker, a change, a deletion verb, an order to the assistant, first person, a lasting marker),
which is what separates "aisle seat this time" from "aisle seats always". Each is 0 or 1.

Two cues describe the numbers in a sentence, since MiniLM puts most sentences with digits
near the bank's secrets: a long or grouped number or a letters-and-digits code (a card,
account, passport or key), and a short number standing alone with no such code (a floor, a
room, a gate, an age), which is rarely sensitive on its own.
"""

from __future__ import annotations

import hashlib
import re

import numpy as np

from adk_memory_kit.routing.cue_vocabulary import (
    FIRST_PERSON_WORDS,
    FORGET_WORDS,
    FROM_NOW_ON_WORDS,
    LASTING_PATTERN,
    PLEASE_WORDS,
    TONIGHT_WORDS,
    WITHOUT_ASKING_WORDS,
    fold_apostrophes,
    vocabulary_pattern,
)
from adk_memory_kit.routing.time_words_data import NOW_WORDS, TODAY_WORDS

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

#: The same cues said in other languages (:mod:`.cue_vocabulary`), by the index of the English
#: cue they stand for: a question mark of another script, "today" (the session), "now" (a
#: change), a deletion verb, an order to the assistant, the user speaking of themselves, a
#: standing wish.
_OTHER_LANGUAGES: dict[int, re.Pattern[str]] = {
    0: re.compile(r"[?？؟]\s*$"),
    1: vocabulary_pattern((*TODAY_WORDS, *TONIGHT_WORDS)),
    2: vocabulary_pattern(NOW_WORDS),
    3: vocabulary_pattern(FORGET_WORDS),
    4: vocabulary_pattern((*PLEASE_WORDS, *FROM_NOW_ON_WORDS, *WITHOUT_ASKING_WORDS)),
    5: vocabulary_pattern(FIRST_PERSON_WORDS),
    6: LASTING_PATTERN,
}

_LONG_NUMBER = re.compile(
    r"\d{5,}|\b\d{2,4}(?:[ -]\d{2,4}){2,}\b"
    r"|\b(?=[a-z_-]*\d)(?=[\d_-]*[a-z])[a-z\d_-]{7,}\b",
    re.IGNORECASE,
)
_SHORT_NUMBER = re.compile(r"\b[a-z]?\d{1,4}(?:st|nd|rd|th|[a-z])?\b", re.IGNORECASE)

N_CUES = len(_CUES) + 2

#: A digest of every cue's pattern: the shipped head is valid only for the cues it was trained
#: with (a word added to a vocabulary changes what the bank's sentences carry).
CUES_DIGEST = hashlib.sha256(
    "\n".join([*_CUES, *(f"{i}:{p.pattern}" for i, p in sorted(_OTHER_LANGUAGES.items()))]).encode()
).hexdigest()


def cue_vector(text: str) -> np.ndarray:
    """The cues of ``text`` as a 0/1 float vector of length :data:`N_CUES`."""
    long_number = _LONG_NUMBER.search(text) is not None
    short_number = not long_number and _SHORT_NUMBER.search(text) is not None
    folded = fold_apostrophes(text)
    flags = [
        c.search(text) is not None
        or (i in _OTHER_LANGUAGES and _OTHER_LANGUAGES[i].search(folded) is not None)
        for i, c in enumerate(_COMPILED)
    ] + [long_number, short_number]
    return np.array(flags, dtype=np.float32)
