"""A small learned scorer: how likely a memory is what a forget request names.

:meth:`ConversationEdits.assess <.conversation_edits.ConversationEdits.assess>` measures
how each of the user's memories relates to the request's subject (MiniLM cosine, the closest
example of a kind of detail the subject names, word-level similarity, shared words, the people
named, whether it is about someone the subject does not name). This module turns those
signals into one probability with a logistic model whose weights were fitted on the tune
split of ``tests/routing/data/edits.jsonl`` (``benchmarks/forget_scorer_fit.py`` refits
them and prints cross-validated figures). It only adds a way to match: the hand-set bars of
:mod:`.conversation_edits` still decide first, and a memory about someone the request does
not name is never taken.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from adk_memory_kit.embedders.base import checked_embed
from adk_memory_kit.routing.text_signals import content_stems, words


@dataclass(frozen=True)
class Assessment:
    """Per memory signals for one forget subject (arrays aligned with the memory texts)."""

    cosines: np.ndarray
    scores: np.ndarray
    own: np.ndarray
    by_kind: np.ndarray
    best_kind: np.ndarray
    names_kind: bool
    about_others: np.ndarray
    lifted: np.ndarray
    shares: np.ndarray
    soft_mean: np.ndarray
    soft_min: np.ndarray
    people_named: bool
    same_people: np.ndarray


FEATURES = (
    "cosine",
    "score",
    "own",
    "kind_example",
    "kind_margin",
    "about_others",
    "lifted",
    "shared_words",
    "word_sim_mean",
    "word_sim_min",
    "same_people",
    "other_people",
    "cosine_lead",
    "word_sim_lead",
    "score_lead",
)


def _unit(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    return array / np.clip(np.linalg.norm(array, axis=1, keepdims=True), 1e-12, None)


def _plain_words(text: str) -> list[str]:
    return sorted({w.split("'")[0] for w in words(text) if content_stems(w.split("'")[0])})


async def word_matches(
    embedder: Any, subject_words: Sequence[str], texts: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """For each text, the mean and the least, over the subject's naming words, of the cosine
    of that word to the text's closest content word ("dementia" / "Alzheimer's", "Portugal"
    / "Algarve"); zeros when either side has no content word."""
    per_text = [_plain_words(t) for t in texts]
    vocab = sorted({w for ws in per_text for w in ws} | set(subject_words))
    mean = np.zeros(len(texts))
    least = np.zeros(len(texts))
    if not subject_words or not vocab:
        return mean, least
    index = {w: i for i, w in enumerate(vocab)}
    vectors = _unit(await checked_embed(embedder, vocab))
    wanted = vectors[[index[w] for w in subject_words]]
    for i, ws in enumerate(per_text):
        if not ws:
            continue
        best = (wanted @ vectors[[index[w] for w in ws]].T).max(axis=1)
        mean[i], least[i] = float(best.mean()), float(best.min())
    return mean, least


def _lead(values: np.ndarray) -> np.ndarray:
    """Each value less the largest of the others (0 when it is alone)."""
    if len(values) < 2:
        return np.zeros(len(values))
    order = np.sort(values)
    runner_up, top = order[-2], order[-1]
    return values - np.where(values == top, runner_up, top)


def features(seen: Assessment) -> np.ndarray:
    """The model's inputs, one row per memory, columns as :data:`FEATURES`."""
    kind = seen.by_kind if seen.names_kind else np.zeros(len(seen.cosines))
    margin = seen.by_kind - seen.best_kind if seen.names_kind else np.zeros(len(seen.cosines))
    return np.column_stack(
        [
            seen.cosines,
            np.clip(seen.scores, 0.0, None),
            seen.own.astype(float),
            np.clip(kind, 0.0, None),
            margin,
            seen.about_others.astype(float),
            seen.lifted.astype(float),
            seen.shares,
            seen.soft_mean,
            seen.soft_min,
            seen.same_people.astype(float),
            (seen.people_named & ~seen.same_people).astype(float),
            _lead(seen.cosines),
            _lead(seen.soft_mean),
            _lead(np.clip(seen.scores, 0.0, None)),
        ]
    )


# fitted by benchmarks/forget_scorer_fit.py on the tune split (standardised inputs)
MEAN = np.zeros(len(FEATURES))
SCALE = np.ones(len(FEATURES))
WEIGHTS = np.zeros(len(FEATURES))
BIAS = -10.0


def probability(seen: Assessment) -> np.ndarray:
    """The model's probability, per memory, that it is what the request names (0 for a
    memory about someone or something the request does not name)."""
    x = (features(seen) - MEAN) / SCALE
    p = 1.0 / (1.0 + np.exp(-(x @ WEIGHTS + BIAS)))
    return np.where(seen.about_others, 0.0, p)


def fit(
    x: np.ndarray, y: np.ndarray, l2: float = 1.0, steps: int = 3000
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """An L2-regularised logistic regression by gradient descent: (mean, scale, weights,
    bias) for standardised inputs."""
    mean = x.mean(axis=0)
    scale = np.where(x.std(axis=0) > 1e-9, x.std(axis=0), 1.0)
    z = (x - mean) / scale
    w = np.zeros(z.shape[1])
    b = 0.0
    rate = 0.5
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        grad_w = z.T @ (p - y) / len(y) + l2 * w / len(y)
        grad_b = float(np.mean(p - y))
        w -= rate * grad_w
        b -= rate * grad_b
    return mean, scale, w, b
