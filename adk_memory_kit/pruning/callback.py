"""``PruneStaleToolPayloads``: the pruning layer as an ADK ``before_model_callback``."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from typing_extensions import override

from adk_memory_kit._adk_compat import static_instruction_prefix_end
from adk_memory_kit.core.validation import check_number
from adk_memory_kit.pruning.core import (
    PruningOutcome,
    ToolPredicate,
    is_dynamic_instruction,
    prune_contents,
)
from adk_memory_kit.pruning.report import (
    LAST_STATE_KEY,
    METADATA_KEY,
    STATE_KEY,
    PruningRecord,
    PruningReport,
)
from adk_memory_kit.pruning.tokens import estimate_overhead_tokens
from adk_memory_kit.pruning.tombstones import (
    TombstoneCache,
    TombstoneFactory,
    tombstone_factory,
)

logger = logging.getLogger(__name__)


def _predicate(prunable: Iterable[str] | Callable[[str], bool]) -> ToolPredicate:
    if isinstance(prunable, str):
        names = frozenset({prunable})
        return names.__contains__
    if callable(prunable):
        return prunable
    names = frozenset(prunable)
    if not all(isinstance(name, str) for name in names):
        raise TypeError("prunable must be tool names (strings) or a predicate on a tool name")
    return names.__contains__


class PruneStaleToolPayloads:
    """Replace stale raw tool results in the outgoing request with small tombstones.

    An instance is a valid ADK ``before_model_callback(callback_context, llm_request)``::

        pruner = PruneStaleToolPayloads(prunable={"web_search", "fetch_page"})
        agent = LlmAgent(..., before_model_callback=pruner,
                         after_model_callback=pruner.after_model_callback)

    Only ``llm_request`` is edited, copy-on-write: stored session events keep the
    raw payloads. Function calls and responses stay paired (a response's payload
    is replaced, the part is never dropped). Tombstones are deterministic.

    Args:
        prunable: Tool names whose results may be pruned, or a predicate on a tool name.
        keep_recent: The most recent contents that are never touched.
        tombstone: ``None`` for :func:`default_tombstone`, a fixed dict, or a factory
            taking a :class:`PrunedPayload` and returning a dict.
        findings_tool: Tool the default tombstone tells the model to call (or ``None``).
        min_payload_tokens: Payloads estimated below this size are never pruned.
        threshold_tokens: Cache-friendly mode: prune only when the conversation history
            in the request (its contents up to the last model turn or function response,
            without the system instruction, tool declarations or content inserted for
            this request only) exceeds this estimate, then everything prunable outside
            the recent window.
        report: Where per-call records go (a new :class:`PruningReport` by default).
    """

    def __init__(
        self,
        prunable: Iterable[str] | Callable[[str], bool],
        keep_recent: int = 4,
        *,
        tombstone: Mapping[str, Any] | TombstoneFactory | None = None,
        findings_tool: str | None = "get_findings",
        min_payload_tokens: int = 200,
        threshold_tokens: int | None = None,
        report: PruningReport | None = None,
    ) -> None:
        check_number("keep_recent", keep_recent, minimum=0, integer=True)
        check_number("min_payload_tokens", min_payload_tokens, minimum=0, integer=True)
        check_number(  # None: eager mode
            "threshold_tokens",
            threshold_tokens,
            minimum=0,
            exclusive_minimum=True,
            integer=True,
            allow_none=True,
        )
        self._is_prunable = _predicate(prunable)
        self._make_tombstone = tombstone_factory(tombstone, findings_tool=findings_tool)
        # the default tombstone points to ``findings_tool``; when a request declares tools and
        # that one is not among them, the pointer is left out rather than naming a missing tool
        self._findings_tool = findings_tool if tombstone is None else None
        self._make_plain_tombstone = tombstone_factory(None, findings_tool=None)
        self._plain_cache = TombstoneCache()
        self.keep_recent = keep_recent
        self.min_payload_tokens = min_payload_tokens
        self.threshold_tokens = threshold_tokens
        self.report = report if report is not None else PruningReport()
        self._cache = TombstoneCache()

    def prune(
        self, llm_request: LlmRequest, transient: Sequence[types.Content] = ()
    ) -> PruningOutcome:
        """Prune ``llm_request.contents`` (assigning a new list) and return the outcome.

        ``transient``: contents inserted into this request only (left out of the
        threshold decision, see :func:`prune_contents`).
        """
        declared = getattr(llm_request, "tools_dict", None) or {}
        pointer_ok = not (self._findings_tool and declared and self._findings_tool not in declared)
        outcome = prune_contents(
            getattr(llm_request, "contents", None),
            is_prunable=self._is_prunable,
            make_tombstone=self._make_tombstone if pointer_ok else self._make_plain_tombstone,
            keep_recent=self.keep_recent,
            min_payload_tokens=self.min_payload_tokens,
            threshold_tokens=self.threshold_tokens,
            overhead_tokens=estimate_overhead_tokens(llm_request),
            cache=self._cache if pointer_ok else self._plain_cache,
            transient=transient,
        )
        llm_request.contents = outcome.contents
        return outcome

    def __call__(self, callback_context: Any, llm_request: LlmRequest) -> LlmResponse | None:
        """Prune the request and record its token figures; always lets the call proceed."""
        started = time.perf_counter()
        try:
            transient = [
                *_model_input_context(callback_context),
                *_static_instruction_contents(llm_request),
            ]
            before = list(llm_request.contents or [])
            outcome = self.prune(llm_request, transient)
        except Exception:  # never break a model call because of pruning
            logger.exception("Tool-payload pruning failed; the request is sent unchanged")
            return None
        record = PruningRecord(
            call=self.report.next_call(),
            tokens_before=outcome.tokens_before,
            tokens_after=outcome.tokens_after,
            pruned_parts=outcome.pruned_parts,
            contents=len(outcome.contents),
            threshold_crossed=outcome.threshold_crossed,
            session_id=_session_id(callback_context),
            invocation_id=getattr(callback_context, "invocation_id", None),
            agent_name=getattr(callback_context, "agent_name", None),
            elapsed_ms=round((time.perf_counter() - started) * 1000, 3),
        )
        self.report.add(record)
        state = getattr(callback_context, "state", None)
        if state is not None:
            try:
                state[STATE_KEY] = {"report": id(self.report), **record.to_dict()}
                state[LAST_STATE_KEY] = _last_call_summary(record, before, outcome.contents)
            except Exception:  # a read-only or schema-checked state: accounting is optional
                logger.debug("Could not write %s to state", STATE_KEY, exc_info=True)
        return None

    def after_model_callback(
        self, callback_context: Any, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """Add the model's usage to this call's record and attach it to the response event.

        Usable as an ADK ``after_model_callback``; the record lands in the stored
        event's ``custom_metadata[METADATA_KEY]``, so :meth:`PruningReport.from_events`
        can rebuild the growth curve from any session later.
        """
        if getattr(llm_response, "partial", False):
            return None
        actions = getattr(callback_context, "actions", None)
        delta = getattr(actions, "state_delta", None) or {}
        data = delta.get(STATE_KEY)
        if not isinstance(data, dict) or data.get("report") != id(self.report):
            return None
        record = self.report.find(data.get("call", -1))
        if record is None:
            record = PruningRecord.from_dict(data)
        usage = getattr(llm_response, "usage_metadata", None)
        if usage is not None:
            record.prompt_tokens = usage.prompt_token_count
            record.cached_tokens = usage.cached_content_token_count
        metadata = dict(llm_response.custom_metadata or {})
        metadata[METADATA_KEY] = record.to_dict()
        llm_response.custom_metadata = metadata
        return None

    @override
    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(keep_recent={self.keep_recent}, "
            f"min_payload_tokens={self.min_payload_tokens}, "
            f"threshold_tokens={self.threshold_tokens})"
        )


def _model_input_context(callback_context: Any) -> Sequence[types.Content]:
    """``RunConfig.model_input_context``: contents ADK adds to this invocation's requests only."""
    try:
        contents = callback_context.run_config.model_input_context
    except Exception:
        return ()
    return list(contents) if isinstance(contents, (list, tuple)) else ()


def _static_instruction_contents(llm_request: LlmRequest) -> list[types.Content]:
    """The user contents ADK puts first for a non-text ``static_instruction``.

    ADK keeps them, and the dynamic instruction, as a prefix of the request
    (:func:`~adk_memory_kit._adk_compat.static_instruction_prefix_end`). They are trusted
    only if each still looks like instruction content (media, or the labelled dynamic
    instruction).
    """
    end = static_instruction_prefix_end(llm_request)
    contents = getattr(llm_request, "contents", None) or []
    if end is None or not 0 < end <= len(contents):
        return []
    prefix = contents[:end]
    for content in prefix:
        parts = getattr(content, "parts", None) or ()
        if getattr(content, "role", None) != "user" or any(
            getattr(part, "function_response", None) for part in parts
        ):
            return []
        media = any(
            getattr(part, "inline_data", None) or getattr(part, "file_data", None) for part in parts
        )
        if not (media or is_dynamic_instruction(content)):
            return []
    return list(prefix)


def _session_id(callback_context: Any) -> str | None:
    try:
        return callback_context.session.id
    except Exception:
        return None


def _last_call_summary(
    record: PruningRecord, before: Sequence[types.Content], after: Sequence[types.Content]
) -> dict[str, Any]:
    """The compact, persisted record of one call (see ``LAST_STATE_KEY``)."""
    pruned = [
        old.function_response.name or "?"
        for was, now in zip(before, after, strict=False)
        if was is not now
        for old, new in zip(was.parts or [], now.parts or [], strict=False)
        if old.function_response is not None and old is not new
    ]
    return {
        "call": record.call,
        "at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "tokens_before": record.tokens_before,
        "tokens_after": record.tokens_after,
        "pruned_parts": record.pruned_parts,
        "pruned": pruned,
    }
