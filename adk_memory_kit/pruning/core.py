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

from adk_memory_kit._adk_compat import is_labelled_instruction_text
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


def is_dynamic_instruction(content: Any) -> bool:
    """ADK's labelled dynamic instruction, sent as a user content (static_instruction set)."""
    if getattr(content, "role", None) != "user":
        return False
    parts = getattr(content, "parts", None) or ()
    return is_labelled_instruction_text(getattr(parts[0], "text", None) if parts else None)


def _request_scoped(
    items: list[Any], settles: list[bool], transient: Sequence[types.Content]
) -> set[int]:
    """Indexes of contents that belong to this request only, never to the history."""
    scoped = set()
    for index, content in enumerate(items):
        if settles[index]:
            continue
        if is_dynamic_instruction(content) or (
            transient and any(content is other or content == other for other in transient)
        ):
            scoped.add(index)
    return scoped


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
    transient: Sequence[types.Content] = (),
) -> PruningOutcome:
    """Replace stale prunable tool payloads in ``contents`` with tombstones.

    Eager mode (``threshold_tokens=None``): every prunable payload outside the
    last ``keep_recent`` contents is pruned.

    Threshold mode: the pass replays the request points in ``contents`` (each point
    where the model answered, and this request) over the *settled history* only:
    the contents up to the point's last model turn or function response. It leaves
    out ``overhead_tokens`` (system instruction, tool declarations), ADK's labelled
    dynamic instruction, the contents in ``transient`` (compared by value, e.g.
    ``RunConfig.model_input_context``) and the user contents after the last model
    turn or function response, where ADK inserts request-scoped content (preloaded
    memory, a recall block) and the new user message. A point moves the pruning
    boundary to ``len(settled) - keep_recent`` when the settled history, after
    earlier pruning, exceeds ``threshold_tokens``. None of that changes between
    requests of a session whose history only grows, so every later request replays
    the same decisions: the boundary never moves backwards, the pruned prefix stays
    byte-identical until the next crossing, and a restarted process (no state)
    reproduces it. ``cache`` reuses tombstones built for the same payload objects.
    """
    items = list(contents or ())
    count = len(items)
    limit = max(0, count - max(0, keep_recent))

    costs: list[int] = []
    settles: list[bool] = []  # a model turn or a function response: it closes an exchange
    candidates: dict[int, list[_Candidate]] = {}
    for index, content in enumerate(items):
        parts = getattr(content, "parts", None) if isinstance(content, types.Content) else None
        cost = 0
        responded = False
        for part_index, part in enumerate(parts or ()):
            response = getattr(part, "function_response", None)
            if not isinstance(response, types.FunctionResponse):
                cost += _part_tokens(part)
                continue
            responded = True
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
        settles.append(responded or _is_model_turn(content))

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
            items,
            costs,
            settles,
            saving,
            keep_recent,
            threshold_tokens,
            _request_scoped(items, settles, transient),
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
    settles: list[bool],
    saving: Callable[[int], int],
    keep_recent: int,
    threshold_tokens: int,
    request_scoped: set[int],
) -> tuple[int, bool]:
    """Replay the request points over the settled history; return ``(boundary, crossed_now)``.

    ``settles[i]``: content ``i`` is a model turn or holds a function response. ADK
    inserts request-scoped user contents (a dynamic instruction, preloaded memory) only
    after the last such content, so a point counts the contents up to its last one:
    the history that every later request carries again. Positions below are in that
    history (the contents less ``request_scoped``); the returned boundary is an index
    into the contents.
    """
    history = [index for index in range(len(items)) if index not in request_scoped]
    count = len(history)
    keep = max(0, keep_recent)
    boundary = 0
    settled = 0  # history positions counted in ``total``
    total = 0
    pending = 0  # cost of the history after ``settled``
    saved = 0
    crossed_now = False
    for end in range(1, count + 1):
        index = history[end - 1]
        pending += costs[index]
        if settles[index]:
            total += pending
            pending = 0
            settled = end
        if end < count and not _is_model_turn(items[history[end]]):
            continue  # not a request point: the model did not answer here
        if total - saved <= threshold_tokens:
            continue
        new_boundary = settled - keep
        if new_boundary > boundary:
            saved += sum(saving(history[k]) for k in range(boundary, new_boundary))
            boundary = new_boundary
            crossed_now = end == count
    return (history[boundary - 1] + 1 if boundary else 0), crossed_now
