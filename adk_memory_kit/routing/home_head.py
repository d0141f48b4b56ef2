"""Which home a sentence belongs in, judged by meaning in any language: a linear head.

The router's two readers (:mod:`.learned`) learn fine labels (``user_state:currency``,
``update`` ...) from the kit's bank and, for other languages, from MiniLM joined with USE.
Both were chosen on the kit's own rows, and on messages by writers who never read the kit
they reach the writer's homes about half the time. This head answers the coarser question
only, "which home", and is trained the way the gate's meaning heads are
(:mod:`adk_memory_kit.sensitive.secret_model`): USE multilingual v3 of the sentence (one
space for many languages) and hashed character 2-4-grams (any script, no word list), in one
multinomial logistic regression fit on the kit's bank and on every first-read routing corpus
already read (``benchmarks/home_head_train.py``, which prints the leave-one-writer-out
table it was chosen on; weights in ``data/home_head.npz``).

:func:`home_probabilities` gives, per sentence, one probability per home of :data:`HOMES`,
or ``None`` when the encoder is off or cannot load
(:func:`~adk_memory_kit.sensitive.meaning_encoder.use_meaning_encoder`): the router then
decides as without it. The encoder and its vector cache are the gate's, so a sentence the
gate has judged costs no second encoding. No text is logged or put in an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from importlib import resources

import numpy as np

from adk_memory_kit.sensitive.meaning_encoder import vectors
from adk_memory_kit.sensitive.ngrams import ngram_buckets

#: The head reads at most this many characters of a sentence (the n-grams' own limit).
WINDOW = 600
_WEIGHTS = "data/home_head.npz"

#: The homes the head tells apart, in the order of its columns. ``none``: nothing to keep.
HOMES = ("drop", "forget", "long_term", "none", "review", "session", "user_state")

#: The router's labels (:mod:`.bank`) by the head's class for each. Not the route: a vague
#: request to forget is a forget here (writers label it so) while the router sends it to
#: review (:func:`~.bank.label_home`).
LABEL_HOME = {
    "user_state": "user_state",
    "long_term": "long_term",
    "update": "long_term",
    "session_state": "session",
    "review": "review",
    "drop": "drop",
    "nothing": "none",
    "forget": "forget",
    "forget_vague": "forget",
}


def home_of(label: str) -> str:
    """The home of a router label (``user_state:<name>`` is ``user_state``)."""
    return LABEL_HOME[label.split(":", 1)[0]]


@lru_cache(maxsize=1)
def _weights() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(encoder coefficients k x 512, n-gram coefficients k x 2**16, bias k)."""
    with resources.files("adk_memory_kit.routing").joinpath(_WEIGHTS).open("rb") as fh:
        data = np.load(fh)
        if tuple(str(h) for h in data["homes"]) != HOMES:
            raise RuntimeError("the home head's weights do not match HOMES")  # a build error
        return (
            data["use"].astype(np.float32),
            data["ngrams"].astype(np.float32),
            data["bias"].astype(np.float32),
        )


def home_probabilities(sentences: Sequence[str]) -> np.ndarray | None:
    """One row per sentence, one column per home of :data:`HOMES` (rows sum to 1), or
    ``None`` without the encoder."""
    windows = [s[:WINDOW] for s in sentences]
    rows = vectors(windows)
    if rows is None:
        return None
    use, grams, bias = _weights()
    logits = rows @ use.T + bias
    for i, window in enumerate(windows):
        buckets = ngram_buckets(window, WINDOW)
        if buckets:
            keys = np.fromiter(buckets.keys(), dtype=np.int64, count=len(buckets))
            values = np.fromiter(buckets.values(), dtype=np.float32, count=len(buckets))
            logits[i] += grams[:, keys] @ values
    logits -= logits.max(axis=1, keepdims=True)
    odds = np.exp(logits)
    return np.asarray(odds / odds.sum(axis=1, keepdims=True), dtype=np.float32)
