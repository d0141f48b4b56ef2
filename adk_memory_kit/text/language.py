"""Whether a sentence is confidently not English (py3langid, a kept language identifier).

The offline router has an English reader (MiniLM and the kit's English bank) and a reader
for other languages (:mod:`adk_memory_kit.routing.learned`). A sentence goes to the second
only when the identifier gives English almost no chance: short or mixed English ("Only
kosher meals for me.", "Home airport: YYZ.", Singlish, Hinglish in Latin letters) stays with
the English reader, whose behaviour is the one the kit's tests pin.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

#: Below this probability of English (normalised over the identifier's 97 languages) a
#: sentence reads as another language: 5 of the kit's 836 bank sentences (all five in Spanish,
#: Italian or German) and 743 of 1,770 first-read messages written in 25+ languages.
MAX_ENGLISH_PROBABILITY = 0.001

_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def english_probability(text: str) -> float:
    """The identifier's probability that ``text`` is English (0..1)."""
    if not text.strip():
        return 1.0
    with _LOCK:
        ranked = _identifier().rank(text)
    return float(dict(ranked).get("en", 0.0))


def reads_as_other_language(text: str) -> bool:
    """Whether ``text`` is confidently in a language other than English."""
    return english_probability(text) < MAX_ENGLISH_PROBABILITY


#: A sentence is written in one language when the identifier gives it at least this.
MIN_WRITTEN_PROBABILITY = 0.9


def written_language(text: str) -> str | None:
    """The code of the language ``text`` is confidently written in, other than English
    (``None`` when unsure or English)."""
    if not text.strip():
        return None
    with _LOCK:
        code, probability = _identifier().classify(text)
    if code == "en" or probability < MIN_WRITTEN_PROBABILITY:
        return None
    return str(code)


def likeliest_language(text: str) -> str:
    """The identifier's likeliest language code for ``text``, however unsure (``en`` for
    blank text)."""
    if not text.strip():
        return "en"
    with _LOCK:
        code, _probability = _identifier().classify(text)
    return str(code)
