"""Cheap, dependency-free token estimates for ADK requests.

The estimate is the usual ``characters / 4`` heuristic over every text part and
over the compact JSON form (``separators=(",", ":")``) of function-call
arguments and function-response payloads. The JSON length is computed
structurally, without serialising: escape sequences inside strings are not
counted, which keeps a 100 KB payload as cheap as a short one. Binary parts
(images, audio, files) count a flat :data:`MEDIA_PART_TOKENS`. The figures are
for growth curves and thresholds, not billing: real tokenizers differ by
roughly +/-25% on English prose and more on code or non-Latin text.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.genai import types

CHARS_PER_TOKEN = 4
"""Characters per estimated token."""

MEDIA_PART_TOKENS = 258
"""Flat estimate for one inline/file media part (Gemini's per-image figure)."""

_MAX_DEPTH = 64


def _json_default(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, (set, frozenset)):
        return sorted(payload_json(item) for item in value)
    if hasattr(value, "model_dump"):
        try:
            return value.model_dump(mode="json", exclude_none=True)
        except Exception:  # fall back to str() for odd models
            pass
    return str(value)


def payload_json(value: Any) -> str:
    """Serialise ``value`` deterministically (sorted keys, compact, unicode kept)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(
            value,
            sort_keys=True,
            ensure_ascii=False,
            separators=(",", ":"),
            default=_json_default,
        )
    except (TypeError, ValueError):  # e.g. mixed key types that cannot be sorted
        return str(value)


def json_length(value: Any, _depth: int = 0) -> int:
    """Length of ``value``'s compact JSON form, computed without serialising.

    Strings count ``len + 2`` (escapes ignored); anything that is not plain JSON
    data falls back to the length of :func:`payload_json`.
    """
    kind = type(value)
    if kind is str:
        return len(value) + 2
    if kind is dict or (kind is not str and isinstance(value, Mapping)):
        if _depth >= _MAX_DEPTH:
            return len(payload_json(value))
        size = 1 + len(value) if value else 2
        for key, item in value.items():
            size += (len(key) if type(key) is str else len(str(key))) + 3
            size += json_length(item, _depth + 1)
        return size
    if kind is bytes or kind is bytearray:  # sent as base64
        return -(-len(value) // 3) * 4 + 2
    if kind is list or kind is tuple or kind is set or kind is frozenset:
        if _depth >= _MAX_DEPTH:
            return len(payload_json(value))
        size = 1 + len(value) if value else 2
        for item in value:
            size += json_length(item, _depth + 1)
        return size
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if kind is int or kind is float:
        return len(repr(value))
    if isinstance(value, str):
        return len(value) + 2
    return len(payload_json(value))


def estimate_text_tokens(text: str | None) -> int:
    """Tokens for ``text``: ``ceil(len(text) / 4)``; 0 for empty or ``None``."""
    if not text:
        return 0
    return -(-len(text) // CHARS_PER_TOKEN)


def estimate_payload_tokens(value: Any) -> int:
    """Tokens for a function-call/response payload in its compact JSON form."""
    if value is None:
        return 0
    return -(-json_length(value) // CHARS_PER_TOKEN)


def estimate_function_response_tokens(response: types.FunctionResponse) -> int:
    """Tokens for a function response: name, payload and any media parts."""
    tokens = estimate_text_tokens(response.name) + estimate_payload_tokens(response.response)
    if response.parts:
        tokens += MEDIA_PART_TOKENS * len(response.parts)
    return tokens


def estimate_part_tokens(part: types.Part, *, include_function_response: bool = True) -> int:
    """Tokens for one :class:`~google.genai.types.Part` (0 for anything unknown)."""
    if not isinstance(part, types.Part):
        return 0
    text = part.text
    tokens = -(-len(text) // CHARS_PER_TOKEN) if text else 0
    call = part.function_call
    if call is not None:
        tokens += estimate_text_tokens(call.name) + estimate_payload_tokens(call.args)
    if include_function_response and part.function_response is not None:
        tokens += estimate_function_response_tokens(part.function_response)
    if part.inline_data is not None or part.file_data is not None:
        tokens += MEDIA_PART_TOKENS
    if part.executable_code is not None:
        tokens += estimate_text_tokens(part.executable_code.code)
    if part.code_execution_result is not None:
        tokens += estimate_text_tokens(part.code_execution_result.output)
    return tokens


def estimate_content_tokens(content: types.Content) -> int:
    """Tokens for one :class:`~google.genai.types.Content` (sum of its parts)."""
    if not isinstance(content, types.Content) or not content.parts:
        return 0
    return sum(estimate_part_tokens(part) for part in content.parts)


def _instruction_tokens(instruction: Any) -> int:
    if isinstance(instruction, str):
        return estimate_text_tokens(instruction)
    if isinstance(instruction, types.Content):
        return estimate_content_tokens(instruction)
    if isinstance(instruction, types.Part):
        return estimate_part_tokens(instruction)
    if isinstance(instruction, list):
        return sum(_instruction_tokens(item) for item in instruction)
    return 0


def _tool_tokens(tool: Any) -> int:
    if isinstance(tool, types.Tool):
        total = 0
        for declaration in tool.function_declarations or ():
            total += estimate_text_tokens(declaration.name)
            total += estimate_text_tokens(declaration.description)
            schema = declaration.parameters_json_schema
            if schema is None and declaration.parameters is not None:
                schema = declaration.parameters.model_dump(mode="json", exclude_none=True)
            total += estimate_payload_tokens(schema)
        others = tool.model_fields_set - {"function_declarations"}
        if others:  # built-in tools (search, code execution, ...): count their config
            total += estimate_payload_tokens(
                tool.model_dump(mode="json", exclude_none=True, include=others)
            )
        return total
    # a Python callable or an SDK object: count its name only
    return estimate_text_tokens(getattr(tool, "__name__", type(tool).__name__))


def estimate_overhead_tokens(llm_request: LlmRequest) -> int:
    """Tokens outside ``contents``: system instruction and tool declarations."""
    config = getattr(llm_request, "config", None)
    if config is None:
        return 0
    tokens = _instruction_tokens(config.system_instruction)
    for tool in config.tools or ():
        tokens += _tool_tokens(tool)
    return tokens


def estimate_request_tokens(llm_request: LlmRequest) -> int:
    """Estimated prompt tokens of ``llm_request``: contents plus overhead."""
    contents = getattr(llm_request, "contents", None) or ()
    return estimate_overhead_tokens(llm_request) + sum(
        estimate_content_tokens(content) for content in contents
    )
