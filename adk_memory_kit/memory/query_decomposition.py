"""An optional model step for multi-hop questions: the question split into sub-questions.

Issue 48. Off by default (``MemoryConfig.query_decomposer=None``). With a
:class:`QueryDecomposer` configured (the agent's own model, or any ADK ``BaseLlm``), a search
asks the model once for up to ``max_parts`` self-contained sub-questions ("Where did the
woman who gave Jógvan his hens grow up?" -> "Who gave Jógvan hens?", "Where did she grow
up?"), searches the question and each sub-question, and fuses the lists by reciprocal rank
(:func:`fuse_searches`). No figure is claimed for it offline (docs/locomo.md).

Guarantees: a model that fails, answers outside the schema or returns nothing leaves the
search as it would be without it (one warning, naming the error's type only, never the
question); the model sees only the question, never a stored memory.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.genai import types
from pydantic import BaseModel, Field, ValidationError

from adk_memory_kit.core.model_calls import final_response, response_text
from adk_memory_kit.errors import InvalidInputError

logger = logging.getLogger(__name__)

_INSTRUCTION = (
    "You split a question about a person's remembered conversations into simpler search "
    "questions. If answering it needs facts from more than one memory (a person named by a "
    "relation or description, then something about them; several events to gather), return "
    "up to {n} short self-contained questions that together find those memories, naming "
    "people as the question does. If one search is enough, return an empty list. Answer "
    "with JSON only."
)
_MAX_QUESTION = 2_000
_MAX_PART = 300


class Decomposition(BaseModel):
    """The model's answer: the sub-questions (empty: search the question as it is)."""

    questions: list[str] = Field(default_factory=list)


class QueryDecomposer:
    """Splits a multi-hop question into sub-questions with a model (off unless configured).

    Args:
        model: an ADK ``BaseLlm`` or a model name resolved by ADK's registry.
        max_parts: the most sub-questions used (1-5).
    """

    def __init__(self, model: BaseLlm | str, *, max_parts: int = 3) -> None:
        if not 1 <= max_parts <= 5:
            raise InvalidInputError("max_parts must be between 1 and 5")
        if isinstance(model, str):
            from google.adk.models.registry import LLMRegistry

            model = LLMRegistry.new_llm(model)
        self.model = model
        self.max_parts = max_parts
        self.failures = 0

    def build_request(self, question: str) -> LlmRequest:
        return LlmRequest(
            model=self.model.model,
            contents=[
                types.Content(role="user", parts=[types.Part(text=question[:_MAX_QUESTION])])
            ],
            config=types.GenerateContentConfig(
                system_instruction=_INSTRUCTION.format(n=self.max_parts),
                response_schema=Decomposition,
                response_mime_type="application/json",
                temperature=0.0,
            ),
        )

    async def parts(self, question: str) -> list[str]:
        """The sub-questions worth a search of their own (none: search ``question`` alone)."""
        try:
            response = await final_response(
                self.model, self.build_request(question), what="the query model", error=ValueError
            )
            answer = Decomposition.model_validate_json(response_text(response))
        except (ValidationError, ValueError) as exc:
            self.failures += 1
            logger.warning("query decomposition skipped (%s)", type(exc).__name__)
            return []
        seen = {" ".join(question.lower().split())}
        parts: list[str] = []
        for part in answer.questions:
            text = " ".join(str(part).split())[:_MAX_PART]
            if text and text.lower() not in seen:
                seen.add(text.lower())
                parts.append(text)
        return parts[: self.max_parts]


def fuse_searches(
    lists: Sequence[Sequence[Mapping[str, Any]]], *, limit: int, rrf_k: int
) -> list[Mapping[str, Any]]:
    """Rows of several searches (the question's first) in one ranking: a row's score is the
    sum of ``1 / (rrf_k + rank)`` over the lists holding it, the question's list counting
    double; each row keeps its first list's fields. Best first, at most ``limit``."""
    score: dict[str, float] = {}
    first: dict[str, Mapping[str, Any]] = {}
    for position, rows in enumerate(lists):
        weight = 2.0 if position == 0 else 1.0
        for rank, row in enumerate(rows, start=1):
            key = str(row["id"])
            score[key] = score.get(key, 0.0) + weight / (rrf_k + rank)
            first.setdefault(key, row)
    ranked = sorted(score, key=lambda key: -score[key])[:limit]
    return [{**first[key], "score": score[key]} for key in ranked]
