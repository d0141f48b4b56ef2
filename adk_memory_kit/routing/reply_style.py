"""The ``reply_style`` preference: how the user wants replies written, as closed values read
by meaning in any language.

A wish about the agent's replies ("keep it short", "Pisz do mnie na ty", "말은 짧게 해") is
a lasting preference of the user, read in every session. It never becomes free text in
``user:`` state (that would carry whatever the sentence says into every prompt): its value is
one or more of :data:`VALUES`, chosen by a small one-vs-rest logistic head over the router's
multilingual embedding, trained on labelled wishes in 40+ languages
(``data/reply_style_examples.jsonl``; head and examples written by
``benchmarks/reply_style_build.py``). A later wish replaces its opposite and keeps the rest
(:func:`merged`): "short" then "no emoji" holds both, "short" then "detailed" holds "detailed".
"""

from __future__ import annotations

import hashlib
import json
import threading
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

#: The preference name.
REPLY_STYLE = "reply_style"

#: The values ``user:pref_reply_style`` may hold (comma-separated, several at once).
VALUES = (
    "short",
    "detailed",
    "bullet points",
    "prose",
    "informal",
    "formal",
    "plain words",
    "no emoji",
)

#: Pairs of values a later wish swaps (the newer one stays).
OPPOSITES = {
    "short": "detailed",
    "detailed": "short",
    "bullet points": "prose",
    "prose": "bullet points",
    "informal": "formal",
    "formal": "informal",
}

#: A value is named when the head gives it at least this.
FLOOR = 0.5

EXAMPLES = "data/reply_style_examples.jsonl"
HEAD = "data/reply_style_head.npz"

_LOCK = threading.Lock()


def examples_digest(text: str) -> str:
    """What a head was trained on: the examples file's text and the values."""
    return hashlib.sha256(f"{text}\x1f{'|'.join(VALUES)}".encode()).hexdigest()[:16]


def _examples_text() -> str:
    return resources.files("adk_memory_kit.routing").joinpath(EXAMPLES).read_text("utf-8")


def _rows(text: str) -> list[tuple[str, tuple[str, ...]]]:
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    return [(r["text"], tuple(v for v in r["values"] if v in VALUES)) for r in rows]


def fit(vectors: np.ndarray, members: np.ndarray, *, l2: float = 0.001, steps: int = 600):
    """One-vs-rest logistic regression by full-batch gradient descent: ``(weights, bias)``."""
    weights = np.zeros((vectors.shape[1], members.shape[1]), np.float32)
    bias = np.zeros(members.shape[1], np.float32)
    scale, step = 10.0, 0.5
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-scale * (vectors @ weights + bias)))
        grad = scale * (p - members) / len(vectors)
        weights -= step * (vectors.T @ grad + l2 * weights)
        bias -= step * grad.sum(axis=0)
    return weights, bias


def _embed(embedder: Any, texts: list[str]) -> np.ndarray:
    from adk_memory_kit.routing.learned import EMBED_PREFIX

    return np.asarray(embedder.embed_sync([EMBED_PREFIX + t for t in texts]), np.float32)


def train(embedder: Any, text: str) -> tuple[np.ndarray, np.ndarray]:
    """The head trained on the examples ``text`` under ``embedder`` (a row with no value
    teaches every value's "no")."""
    rows = _rows(text)
    members = np.array([[value in values for value in VALUES] for _, values in rows], np.float32)
    return fit(_embed(embedder, [t for t, _ in rows]), members)


def write_head(path: Path | None = None) -> Path:
    """Train the head on the shipped examples and write it beside them."""
    from adk_memory_kit.routing.learned import default_router_embedder

    embedder = default_router_embedder()
    text = _examples_text()
    weights, bias = train(embedder, text)
    path = path or Path(__file__).parent / HEAD
    np.savez(
        path,
        weights=weights,
        bias=bias,
        digest=np.array(examples_digest(text)),
        model_id=np.array(embedder.model_id),
    )
    return path


@lru_cache(maxsize=1)
def _head() -> tuple[Any, np.ndarray, np.ndarray]:
    """The router's embedder and the head: the shipped one when it matches the examples and
    the embedder, else one trained now (seconds, once per process)."""
    from adk_memory_kit.routing.learned import default_router_embedder

    embedder = default_router_embedder()
    text = _examples_text()
    try:
        with resources.as_file(resources.files("adk_memory_kit.routing").joinpath(HEAD)) as p:
            data = np.load(p)
            if str(data["digest"]) == examples_digest(text) and str(data["model_id"]) == str(
                embedder.model_id
            ):
                return embedder, data["weights"].astype(np.float32), data["bias"]
    except (FileNotFoundError, OSError, ValueError, KeyError):
        pass
    weights, bias = train(embedder, text)
    return embedder, weights, bias


def value_probabilities(text: str) -> dict[str, float]:
    """The head's probability of each value of :data:`VALUES` for ``text``."""
    with _LOCK:
        embedder, weights, bias = _head()
        vector = _embed(embedder, [text])[0]
    p = 1.0 / (1.0 + np.exp(-10.0 * (vector @ weights + bias)))
    return dict(zip(VALUES, (float(x) for x in p), strict=True))


def find_reply_style(text: str, *, floor: float = FLOOR) -> str | None:
    """The reply-style values ``text`` asks for, comma-separated in :data:`VALUES` order: those
    the head gives at least ``floor``, the likelier of two opposites only; ``None`` when it
    gives none that much (the head also learned sentences that ask for no style)."""
    if not text.strip():
        return None
    p = value_probabilities(text)
    chosen = {v for v, x in p.items() if x >= floor}
    if not chosen:
        return None
    for value in list(chosen):
        other = OPPOSITES.get(value)
        if other in chosen and p[other] > p[value]:
            chosen.discard(value)
    return ", ".join(v for v in VALUES if v in chosen)


def merged(held: object, new: str) -> str:
    """``new``'s values added to those ``held``, each replacing its opposite."""
    kept = [p.strip() for p in (held if isinstance(held, str) else "").split(",") if p.strip()]
    fresh = [p.strip() for p in new.split(",") if p.strip() in VALUES]
    gone = {OPPOSITES.get(v) for v in fresh}
    values = {v for v in kept if v not in gone and v in VALUES} | set(fresh)
    return ", ".join(v for v in VALUES if v in values)
