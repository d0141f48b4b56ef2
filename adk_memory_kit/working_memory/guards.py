"""Validation of what the model writes: names, sources, instruction-like text, lengths."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

FACT_NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,39}")
USER_SOURCE = "user"
REMOVED = "[removed]"
ELLIPSIS = "…"

_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")
_SPACE_RE = re.compile(r"\s+")
# Clause-level patterns: each match runs to the end of its sentence or line.
_INSTRUCTION_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        r"\b(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,60}?"
        r"\b(?:instructions?|prompts?|rules|guidelines|directions|directives|guardrails)\b"
        r"[^.!?\n]*",
        r"\b(?:you are now|you must now|from now on|act as|pretend (?:to be|you are)|"
        r"new (?:instructions?|task|rules)|updated instructions?)\b[^.!?\n]*",
        r"\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal)\b[^.!?\n]*\buser\b[^.!?\n]*",
        r"\b(?:call|invoke|run|execute)\s+(?:the\s+)?(?:tool|function)\b[^.!?\n]*",
        r"\b(?:system|developer|assistant)\s*(?:prompt|message|instruction)?\s*:",
        r"\b(?:system prompt|jailbreak)\b[^.!?\n]*",
        r"<\|?/?\s*(?:system|im_start|im_end|assistant|user|instructions?)\b[^>]*\|?>",
        r"\[/?INST\]|#{2,}\s*(?:instruction|system)\w*",
    )
)


def is_valid_fact_name(name: str) -> bool:
    """A short snake_case name: a lowercase letter, then up to 39 of ``[a-z0-9_]``."""
    return isinstance(name, str) and FACT_NAME_RE.fullmatch(name) is not None


def clip(text: str, limit: int) -> tuple[str, bool]:
    """Cut ``text`` to at most ``limit`` characters (ending in an ellipsis when cut)."""
    if len(text) <= limit:
        return text, False
    return text[: max(limit - 1, 0)].rstrip() + ELLIPSIS, True


def flatten(text: Any) -> str:
    """One line of plain text: control characters and runs of whitespace become one space."""
    return _SPACE_RE.sub(" ", _CONTROL_RE.sub(" ", str(text))).strip()


def neutralize_delimiters(text: str) -> str:
    """Replace angle brackets so stored text can never open or close a delimited block."""
    return text.replace("<", "‹").replace(">", "›")


def strip_instructions(text: str) -> tuple[str, bool]:
    """Remove instruction-like clauses (e.g. "ignore previous instructions ...").

    Returns the cleaned text and whether anything was removed. This is a filter, not a
    proof of safety: the view is also delimited and labelled as data.
    """
    cleaned = text
    for pattern in _INSTRUCTION_PATTERNS:
        cleaned = pattern.sub(REMOVED, cleaned)
    if cleaned == text:
        return text, False
    cleaned = re.sub(r"(?:\[removed\]\W*){2,}", REMOVED + " ", cleaned)
    return flatten(cleaned), True


def clean_text(text: Any, limit: int, *, untrusted: bool = True) -> tuple[str, list[str]]:
    """Prepare model-written text for storage: flatten, filter, neutralize, cap.

    Returns the text and notes for the model ("instruction-like text removed", "cut to N").
    """
    notes: list[str] = []
    out = flatten(text)
    if untrusted:
        out, removed = strip_instructions(out)
        if removed:
            notes.append("instruction-like text removed")
    out = neutralize_delimiters(out)
    out, cut = clip(out, limit)
    if cut:
        notes.append(f"cut to {limit} characters")
    return out, notes


def _branch_visible(current: str | None, event_branch: str | None) -> bool:
    """Whether an event on ``event_branch`` is in the history of ``current``.

    Mirrors ADK: an event is visible on its own branch and on branches below it.
    """
    if not current or not event_branch:
        return True
    cur, evt = current.split("."), event_branch.split(".")
    return cur[: len(evt)] == evt


def tools_called_in_invocation(
    events: Iterable[Any],
    invocation_id: str,
    *,
    branch: str | None = None,
    exclude: Sequence[str] = (),
) -> list[str]:
    """Names of tools that returned a result in this invocation and branch, in order.

    A tool counts once its function response is in the session; a call still waiting for
    its result (e.g. issued in the same model turn) does not, because the model has not
    seen its output yet.
    """
    seen: list[str] = []
    skip = set(exclude)
    for event in events:
        if getattr(event, "invocation_id", None) != invocation_id or getattr(
            event, "partial", False
        ):
            continue
        if not _branch_visible(branch, getattr(event, "branch", None)):
            continue
        for response in event.get_function_responses():
            name = response.name or ""
            if name and name not in skip and name not in seen:
                seen.append(name)
    return seen


def check_source(source: str, called_tools: Sequence[str]) -> str | None:
    """``None`` if ``source`` is allowed, else the reason it is refused."""
    if source == USER_SOURCE:
        return None
    if source in called_tools:
        return None
    called = ", ".join(called_tools) if called_tools else "none"
    return (
        f"source {source!r} is not 'user' and not a tool that returned a result in this "
        f"turn (tools with results: {called}). Call the tool first and record what it "
        "returned, or use source='user' only for what the user said."
    )
