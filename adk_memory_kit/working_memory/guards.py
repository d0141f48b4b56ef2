"""Validation of what the model writes: names, sources, instruction-like text, lengths."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

from adk_memory_kit.core.validation import short

FACT_NAME_RE = re.compile(r"[a-z][a-z0-9_]{0,39}")
USER_SOURCE = "user"
REMOVED = "[removed]"
ELLIPSIS = "…"

_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]+")
_SPACE_RE = re.compile(r"\s+")
_WORD_RE = re.compile(r"\w+")
# Invisible characters outside category Cf that can still split a word.
_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800")
# Letters from other scripts that look like Latin ones (only used to find patterns).
_LOOKALIKES = str.maketrans(
    "аеорсухіјѕԁһӏԛԝвкмнт"  # Cyrillic
    "АВЕКМНОРСТХІЈЅ"
    "αοιυνρκτεΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"  # Greek
    "ıɪɢɴᴏʀᴇᴀʙᴄᴅꜰʜᴊᴋʟᴍᴘꜱᴛᴜᴠᴡʏᴢ",  # dotless i, Latin small capitals
    "aeopcyxijsdhlqwbkmht"  # the Latin letters they look like, in the same order
    "ABEKMHOPCTXIJS"
    "aoiuvpkteABEZHIKMNOPTYX"
    "iignoreabcdfhjklmpstuvwyz",
)
_VERB = r"(?:ignore|disregard|forget|override|bypass|overrule)"
_EARLIER = r"(?:above|before|previous(?:ly)?|prior|earlier|preceding|foregoing|original|initial)"
_RULES = (
    r"(?:instructions?|prompts?|rules|guidelines|guidance|directions|directives|guardrails|"
    r"context|messages?|commands|orders|policies|polic(?:y|ies))"
)
_REST = r"[^.!?\n]*"
# Clause-level patterns, matched on a folded copy of the text (see ``_fold``); each match
# runs to the end of its sentence or line.
_INSTRUCTION_PATTERNS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"\b{_VERB}\b[^.!?\n]{{0,60}}?\b{_RULES}\b{_REST}",
        rf"\b{_VERB}\s+(?:(?:all|everything|anything|whatever|what)\b){_REST}?\b{_EARLIER}\b"
        rf"{_REST}",
        rf"\b{_VERB}\s+(?:all\s+(?:of\s+)?)?(?:the\s+|that\s+)?(?:above|foregoing)\b{_REST}",
        r"\byour\s+(?:real|actual|true|new|only|main|primary|updated)\s+"
        r"(?:job|task|goal|role|purpose|mission|objective|instructions?|orders)\b" + _REST,
        r"\b(?:you\s+are\s+now|you\s+must\s+now|from\s+now\s+on|act\s+as|"
        r"pretend\s+(?:to\s+be|you\s+are)|new\s+(?:instructions?|task|rules|role)|"
        r"updated\s+instructions?)\b" + _REST,
        r"\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention|reveal)\b[^.!?\n]*\buser\b" + _REST,
        r"\b(?:call|invoke|run|execute)\s+(?:the\s+)?(?:tool|function)\b" + _REST,
        r"\b(?:system|developer|assistant)\s*(?:prompt|message|instructions?)?\s*:",
        r"\b(?:system\s+prompt|developer\s+(?:mode|message|prompt)|jailbreak)\b" + _REST,
        r"<\|?/?\s*(?:system|im_start|im_end|assistant|user|instructions?)\b[^>]*\|?>",
        r"\[/?INST\]|#{2,}\s*(?:instruction|system)\w*",
    )
)
# Words that carry no content when checking a value against what the user said.
_FILLER = frozenset(
    "a an the and or of to in on at for from with by is are was be it this that my me i "
    "user users user's they their wants want said says".split()
)


def normalize(text: Any) -> str:
    """Text with Unicode format characters (category Cf) removed, then NFKC-normalised."""
    raw = str(text)
    kept = "".join(ch for ch in raw if unicodedata.category(ch) != "Cf")
    return unicodedata.normalize("NFKC", kept)


def _fold(text: str) -> tuple[str, list[int]]:
    """A copy of ``text`` for pattern matching, and the index in ``text`` of each character.

    Accents and combining marks are dropped, invisible fillers removed and look-alike letters
    from other scripts mapped to Latin, so "іgnore" (Cyrillic і) reads as "ignore".
    """
    chars: list[str] = []
    index: list[int] = []
    for i, ch in enumerate(text):
        if ch in _INVISIBLE:
            continue
        base = next(
            (c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c)), ""
        )
        if not base or unicodedata.category(base) in ("Cf", "Mn", "Me"):
            continue
        chars.append(base.translate(_LOOKALIKES))
        index.append(i)
    return "".join(chars), index


def match_key(text: Any) -> str:
    """``text`` folded for comparison: normalised, casefolded, whitespace collapsed."""
    return _SPACE_RE.sub(" ", normalize(text).casefold()).strip()


def is_valid_fact_name(name: str) -> bool:
    """A short snake_case name: a lowercase letter, then up to 39 of ``[a-z0-9_]``."""
    return isinstance(name, str) and FACT_NAME_RE.fullmatch(name) is not None


def clip(text: str, limit: int) -> tuple[str, bool]:
    """Cut ``text`` to at most ``limit`` characters, ending in an ellipsis when cut.

    The cut falls at a word boundary (the last whitespace that keeps at least half of the
    room); only a single word longer than that is cut inside the word.
    """
    if len(text) <= limit:
        return text, False
    room = max(limit - 1, 0)
    head = text[:room]
    if room and not text[room].isspace():
        boundary = max(head.rfind(" "), head.rfind("\t"))
        if boundary >= room // 2:
            head = head[:boundary]
    return head.rstrip().rstrip(",;:") + ELLIPSIS, True


def flatten(text: Any) -> str:
    """One line of plain text: format characters (Cf) dropped, NFKC applied, and control
    characters and runs of whitespace turned into one space."""
    return _SPACE_RE.sub(" ", _CONTROL_RE.sub(" ", normalize(text))).strip()


def neutralize_delimiters(text: str) -> str:
    """Replace angle brackets so stored text can never open or close a delimited block."""
    return text.replace("<", "‹").replace(">", "›")


def strip_instructions(text: str) -> tuple[str, bool]:
    """Remove instruction-like clauses (e.g. "ignore previous instructions ...").

    Format characters are dropped and NFKC applied first; patterns are then matched on a
    folded copy (accents dropped, look-alike letters mapped to Latin), so zero-width
    spaces and homoglyphs do not hide a clause. Returns the cleaned text and whether
    anything was removed. This is a filter, not a proof of safety: the view is also
    delimited and labelled as data.
    """
    text = normalize(text)
    folded, index = _fold(text)
    spans: list[tuple[int, int]] = []
    for pattern in _INSTRUCTION_PATTERNS:
        for match in pattern.finditer(folded):
            if match.end() > match.start():
                spans.append((index[match.start()], index[match.end() - 1] + 1))
    if not spans:
        return text, False
    pieces: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if end <= pos:
            continue
        if start >= pos:
            pieces += [text[pos:start], REMOVED]
        pos = end
    pieces.append(text[pos:])
    cleaned = re.sub(r"(?:\[removed\]\W*){2,}", REMOVED + " ", "".join(pieces))
    return flatten(cleaned), True


def clean_text(text: Any, limit: int, *, untrusted: bool = True) -> tuple[str, list[str]]:
    """Prepare model-written text for storage: flatten, filter, neutralize, cap.

    Everything stored goes through the filter; ``untrusted=False`` is only for text that
    is compared, never stored (e.g. the question passed to ``resolve_open_question``).
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


def user_texts_in_invocation(
    events: Iterable[Any], invocation_id: str, user_content: Any = None
) -> list[str]:
    """The text of the user's message(s) in this invocation (``user_content`` included).

    Only text parts of events authored by ``user`` count: a function response sent back
    by the client is a tool result, not something the user said.
    """
    contents = [
        event.content
        for event in events
        if getattr(event, "invocation_id", None) == invocation_id
        and getattr(event, "author", None) == USER_SOURCE
        and getattr(event, "content", None) is not None
    ]
    if user_content is not None and all(user_content is not c for c in contents):
        contents.append(user_content)
    texts: list[str] = []
    for content in contents:
        parts = getattr(content, "parts", None) or []
        if any(getattr(p, "function_response", None) for p in parts):
            continue
        for part in parts:
            text = getattr(part, "text", None)
            if text and not getattr(part, "thought", False) and text not in texts:
                texts.append(text)
    return texts


def _stem(word: str) -> str:
    for suffix in ("ies", "es", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def said_by_user(value: Any, user_texts: Sequence[str]) -> bool:
    """Whether ``value`` appears in, or is made only of words from, ``user_texts``.

    Both sides are normalised (format characters dropped, NFKC, casefold, whitespace
    collapsed). The value must appear in what the user said (on word boundaries), or every
    word of it,
    short filler words aside, must be a word the user used (plural endings ignored) or
    words the user wrote apart ("9 am" for "9am").
    """
    said = match_key(" \n ".join(user_texts))
    wanted = match_key(value)
    if not wanted or not said:
        return False
    if re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", said):
        return True
    tokens = _WORD_RE.findall(said)
    words = {_stem(w) for w in tokens}
    content = [w for w in _WORD_RE.findall(wanted) if w not in _FILLER]
    return bool(content) and all(_stem(w) in words or _joins(w, tokens) for w in content)


def _joins(word: str, tokens: Sequence[str]) -> bool:
    """Whether ``word`` is several whole consecutive ``tokens`` run together ("9 am")."""
    for i in range(len(tokens)):
        joined = ""
        for token in tokens[i:]:
            joined += token
            if len(joined) >= len(word):
                break
        if joined == word:
            return True
    return False


def check_source(
    source: str,
    called_tools: Sequence[str],
    *,
    value: Any = None,
    user_texts: Sequence[str] | None = None,
) -> str | None:
    """``None`` if ``source`` is allowed, else the reason it is refused.

    ``user`` is allowed only for a value the user said in this invocation (see
    ``said_by_user``); pass ``user_texts=None`` only where nothing came from a model.
    """
    called = ", ".join(called_tools) if called_tools else "none"
    if source == USER_SOURCE:
        if user_texts is None or said_by_user(value, user_texts):
            return None
        return (
            "source 'user' is only for what the user said in this turn, and the user's "
            "message does not contain this value. If a tool returned it, record it with "
            f"that tool's name as the source (tools with results: {called}); if the user "
            "said it, record it in the user's own words."
        )
    if source in called_tools:
        return None
    return (
        f"source {short(source)} is not 'user' and not a tool that returned a result in this "
        f"turn (tools with results: {called}). Call the tool first and record what it "
        "returned, or use source='user' only for what the user said."
    )
