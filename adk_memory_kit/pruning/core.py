"""Pure pruning step: choose stale tool payloads and replace them copy-on-write.

Nothing here mutates its input. Pruned contents are new ``Content`` objects
holding new ``Part`` and ``FunctionResponse`` objects; untouched contents are
passed through by reference. ADK's request contents share nested objects with
the session's events (``_copy_content_for_request`` is a shallow copy), so an
in-place edit would rewrite stored history.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from google.genai import types

from adk_memory_kit.pruning.tokens import (
    CHARS_PER_TOKEN,
    MEDIA_PART_TOKENS,
    estimate_part_tokens,
    estimate_payload_tokens,
    estimate_text_tokens,
    json_length,
)
from adk_memory_kit.pruning.tombstones import TombstoneCache, TombstoneFactory, describe_payload

ToolPredicate = Callable[[str], bool]


@dataclass(frozen=True)
class PruningOutcome:
    """Result of one pruning pass over a request's contents."""

    contents: list[types.Content]
    """The contents to send (a new list; pruned entries are new objects)."""
    tokens_before: int
    """Estimated request tokens before pruning (contents plus overhead)."""
    tokens_after: int
    """Estimated request tokens after pruning."""
    pruned_parts: int
    """Function responses replaced by a tombstone in this request."""
    boundary: int
    """Prunable payloads in ``contents[:boundary]`` were pruned."""
    threshold_crossed: bool | None = None
    """Threshold mode: whether this very request moved the boundary; else ``None``."""


@dataclass
class _Candidate:
    part_index: int
    response: types.FunctionResponse
    tokens: int
    chars: int
    replacement: types.FunctionResponse | None = None
    saving: int | None = None


def _response_size(response: types.FunctionResponse) -> tuple[int, int]:
    """``(estimated tokens, payload JSON chars)`` of a function response."""
    try:
        chars = 0 if response.response is None else json_length(response.response)
        tokens = -(-chars // CHARS_PER_TOKEN) + estimate_text_tokens(response.name)
        return tokens + MEDIA_PART_TOKENS * len(response.parts or ()), chars
    except Exception:  # a malformed response is left alone and counted as 0
        return 0, 0


def _part_tokens(part: Any, *, include_function_response: bool = True) -> int:
    try:
        return estimate_part_tokens(part, include_function_response=include_function_response)
    except Exception:  # a malformed part is left alone and counted as 0
        return 0


def _is_model_turn(content: Any) -> bool:
    return getattr(content, "role", None) == "model"


def prune_contents(
    contents: Sequence[types.Content] | None,
    *,
    is_prunable: ToolPredicate,
    make_tombstone: TombstoneFactory,
    keep_recent: int = 4,
    min_payload_tokens: int = 0,
    threshold_tokens: int | None = None,
    overhead_tokens: int = 0,
    cache: TombstoneCache | None = None,
) -> PruningOutcome:
    """Replace stale prunable tool payloads in ``contents`` with tombstones.

    Eager mode (``threshold_tokens=None``): every prunable payload outside the
    last ``keep_recent`` contents is pruned. Threshold mode: the pass replays the
    request points in ``contents`` (each point where the model answered) and moves
    a pruning boundary to ``len(prefix) - keep_recent`` only at points whose
    estimated size, after earlier pruning, exceeds ``threshold_tokens``. The
    decision depends only on the contents, so later turns reproduce the same
    pruned prefix until the next crossing. ``cache`` reuses tombstones built for
    the same payload objects on earlier calls.
    """
    items = list(contents or ())
    count = len(items)
    limit = max(0, count - max(0, keep_recent))

    costs: list[int] = []
    candidates: dict[int, list[_Candidate]] = {}
    for index, content in enumerate(items):
        parts = getattr(content, "parts", None) if isinstance(content, types.Content) else None
        cost = 0
        for part_index, part in enumerate(parts or ()):
            response = getattr(part, "function_response", None)
            if not isinstance(response, types.FunctionResponse):
                cost += _part_tokens(part)
                continue
            tokens, chars = _response_size(response)
            cost += tokens + _part_tokens(part, include_function_response=False)
            if (
                index < limit
                and response.name
                and tokens >= min_payload_tokens
                and is_prunable(response.name)
            ):
                candidates.setdefault(index, []).append(
                    _Candidate(part_index, response, tokens, chars)
                )
        costs.append(cost)

    def saving(index: int) -> int:
        total = 0
        for candidate in candidates.get(index, ()):
            if candidate.saving is None:
                _build_replacement(candidate, make_tombstone, cache)
            total += candidate.saving or 0
        return total

    tokens_before = overhead_tokens + sum(costs)
    crossed: bool | None = None
    if threshold_tokens is None:
        boundary = limit
    else:
        boundary, crossed = _threshold_boundary(
            items, costs, saving, keep_recent, threshold_tokens, overhead_tokens
        )

    new_contents = items
    pruned = 0
    saved = 0
    for index in sorted(i for i in candidates if i < boundary):
        content = items[index]
        new_parts = list(content.parts or ())
        changed = False
        for candidate in candidates[index]:
            if candidate.saving is None:
                _build_replacement(candidate, make_tombstone, cache)
            if candidate.replacement is None:
                continue
            new_parts[candidate.part_index] = new_parts[candidate.part_index].model_copy(
                update={"function_response": candidate.replacement}
            )
            pruned += 1
            saved += candidate.saving or 0
            changed = True
        if changed:
            if new_contents is items:
                new_contents = list(items)
            new_contents[index] = content.model_copy(update={"parts": new_parts})
    if new_contents is items:
        new_contents = list(items)
    return PruningOutcome(
        contents=new_contents,
        tokens_before=tokens_before,
        tokens_after=tokens_before - saved,
        pruned_parts=pruned,
        boundary=boundary,
        threshold_crossed=crossed,
    )


def _build_replacement(
    candidate: _Candidate, make_tombstone: TombstoneFactory, cache: TombstoneCache | None
) -> None:
    """Build the tombstone response; keep it only if it is smaller than the original."""
    response = candidate.response
    cached = cache.get(response) if cache is not None else None
    if cached is None:
        payload = describe_payload(response, candidate.tokens, candidate.chars)
        tombstone = dict(make_tombstone(payload))
        new_tokens = estimate_text_tokens(response.name) + estimate_payload_tokens(tombstone)
        replacement = None
        if new_tokens < candidate.tokens:
            replacement = response.model_copy(update={"response": tombstone, "parts": None})
        cached = (replacement, new_tokens)
        if cache is not None:
            cache.put(response, cached, candidate.chars)
    candidate.replacement, new_tokens = cached
    candidate.saving = candidate.tokens - new_tokens if candidate.replacement else 0


def _threshold_boundary(
    items: list[Any],
    costs: list[int],
    saving: Callable[[int], int],
    keep_recent: int,
    threshold_tokens: int,
    overhead_tokens: int,
) -> tuple[int, bool]:
    """Replay the request points and return ``(boundary, crossed_now)``."""
    count = len(items)
    boundary = 0
    total = overhead_tokens
    saved = 0
    crossed_now = False
    for end in range(1, count + 1):
        total += costs[end - 1]
        is_request_point = end == count or _is_model_turn(items[end])
        if not is_request_point or total - saved <= threshold_tokens:
            continue
        new_boundary = max(boundary, end - max(0, keep_recent))
        if new_boundary > boundary:
            saved += sum(saving(i) for i in range(boundary, new_boundary))
            boundary = new_boundary
            crossed_now = end == count
    return boundary, crossed_now
