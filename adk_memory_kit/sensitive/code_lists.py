"""Lists of codes of one random shape, in any language: backup codes, recovery keys.

No cue word is read. A *code* is a token of 6 to 40 letters and digits, hyphens allowed
between groups (``xjht-nvmm``, ``jhn4cs9x``, ``02460592``, ``4821 7730``: digit groups of
four joined by one space read as one code). A code is *random* when it holds digits, or when
its letters are mostly consonants (a word has vowels). Guarantees:

- three or more random codes of one shape (the length and class of each group, and the
  letter case) one after another, with only separators between them (spaces, commas,
  slashes, bars, semicolons, line breaks, bullets or list numbers), at least half of them
  holding a digit or a hyphen and not all starting with the same three letters (an
  enumeration: ``item10 item11``), are findings, each code its own span; once two random
  codes make a list, a code of their shape that reads as letters with vowels joins it;
- one token of three or more hyphen-joined groups of four to eight characters (the first
  may be two), most holding letters, at most a third of its letters vowels
  (``R7KQ-2MXP-9WTD-4HLC``), is a finding unless labelled public (a serial number); a UUID
  is not; nor is one base32 key of 16+ characters (``LGIWGUUTIZYVW6CO...``).
- Not codes: digits only with fewer than 6 digits per code, short git hashes in a message
  about commits. Linear: one pass.
"""

from __future__ import annotations

import re

from adk_memory_kit.sensitive.public_numbers import public_label_before

#: One code: groups of letters and digits joined by a hyphen, or four-digit groups joined by
#: single spaces; never part of a word, an address, a path or a decimal.
_CODE = re.compile(
    r"(?<![\w@./:#$€£-])(?:\d{4}(?: \d{4})+(?![\w-])"
    # letters and digits, a digit or a hyphen in it
    r"|(?=[A-Za-z0-9-]*[\d-])[A-Za-z0-9]{2,12}(?:-[A-Za-z0-9]{2,12}){0,7}"
    # letters alone: 6 to 12 with at most one vowel (a word has more)
    r"|(?=[A-Za-z]{6,12}(?![A-Za-z0-9]))(?i:[b-df-hj-np-tv-xz]*[aeiouy]?[b-df-hj-np-tv-xz]*)"
    r"|[A-Z2-7]{16,64})"
    r"(?![\w@/#-]|[.:,]\w)"
)
#: What may stand between two codes of a list.
_SEPARATOR = re.compile(r"[ \t]*(?:[,;/|·•\n][ \t]*|(?<=[ \t]))(?:\n[ \t]*)*(?:\d{1,2}[.)][ \t]+)?")
_VOWELS = frozenset("aeiouyAEIOUY")
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_HEX = re.compile(r"[0-9a-f]{7,40}")
_GIT = re.compile(r"(?<![a-z])(?:commit|commits|sha|hash|hashes|merge|revert|cherry|rebase|git)")
#: A base32 secret in one piece (an authenticator or bank-app key): 16+ capitals and digits
#: 2-7, at least two digits and eight letters.
_BASE32_KEY = re.compile(r"(?=(?:[A-Z]*[2-7]){2})(?=(?:[2-7]*[A-Z]){8})[A-Z2-7]{16,64}")
LIST_LEAST = 3


def _random(code: str) -> bool:
    """Digits, or letters that are mostly consonants (at most one in four a vowel)."""
    letters = [c for c in code if c.isalpha()]
    if len(letters) < len(code.replace("-", "").replace(" ", "")):
        return True
    return sum(c in _VOWELS for c in letters) * 4 <= len(letters)


def _shape(code: str, random: bool = True) -> tuple[object, ...] | None:
    """The shape of a random code (its groups' lengths and classes, its case), else
    ``None``; ``random=False``: of any code (a list's member that happens to read as
    letters with vowels, ``engi-lxix`` after ``y1wt-wekw``, ``h9jk-zlwp``)."""
    compact = code.replace("-", "").replace(" ", "")
    if len(compact) < 6 or (random and not _random(code)):
        return None
    if compact.isdigit():
        return ("d", len(code), code.count(" "), code.count("-"))
    case = "l" if code.islower() else "u" if code.isupper() else "m"
    if case == "m" and any(c.isalpha() for c in code):
        return None  # a word in title case ("Madrid-Barajas"), not a code
    groups = tuple(len(g) for g in code.split("-"))
    return ("r", case, groups)


def _single_key(code: str) -> bool:
    """One token of three or more groups that reads as a recovery key."""
    groups = code.split("-")
    if len(groups) < 3 or _UUID.fullmatch(code) is not None:
        return False
    if not all(4 <= len(g) <= 8 for g in groups[1:]) or len(groups[0]) < 2:
        return False
    if not (code.isupper() or code.islower()) or sum(len(g) for g in groups) < 12:
        return False
    if sum(any(c.isalpha() for c in g) for g in groups) * 2 <= len(groups):
        return False
    letters = [c for c in code if c.isalpha()]
    return sum(c in _VOWELS for c in letters) * 3 <= len(letters)


def code_list_spans(text: str) -> list[tuple[int, int]]:
    """Spans of codes in lists of ``LIST_LEAST`` or more, and of single recovery keys."""
    found: list[tuple[int, int]] = []
    run: list[re.Match[str]] = []
    shape: tuple[object, ...] | None = None
    git: bool | None = None

    def close() -> None:
        nonlocal git
        if len(run) < LIST_LEAST:
            return
        # letters alone may be a word ("strength"): most codes must hold a digit or a hyphen
        marked = sum(any(c.isdigit() or c == "-" for c in m.group(0)) for m in run)
        if marked * 2 < len(run):
            return
        head = run[0].group(0)[:3].lower()
        if head.isalpha() and all(m.group(0)[:3].lower() == head for m in run):
            return  # an enumeration ("item10, item11, item12"), not random codes
        if all(_HEX.fullmatch(m.group(0)) for m in run):
            if git is None:
                git = _GIT.search(text.lower()) is not None
            if git:
                return
        found.extend(m.span() for m in run)

    # a code's shape is read only once the next code joins it (most codes in prose stand
    # alone): ``pending`` says the run's one code has not had its shape read yet
    pending = False
    for m in _CODE.finditer(text):
        code = m.group(0)
        if ("-" in code and _single_key(code)) or _BASE32_KEY.fullmatch(code):
            if not public_label_before(text, m.start()):
                found.append(m.span())
        joined = bool(run) and _SEPARATOR.fullmatch(text, run[-1].end(), m.start()) is not None
        if joined and pending:
            shape, pending = _shape(run[0].group(0)), False
            if shape is None:  # no code: no run
                run, joined = [], False
        if joined:
            this = _shape(code)
            if this is None and len(run) >= 2 and shape is not None:
                this = _shape(code, random=False)  # a list of random codes goes on
            if this is not None and this == shape:
                run.append(m)
                continue
            close()
            run, shape = ([m], this) if this is not None else ([], None)
            continue
        close()
        run, shape, pending = [m], None, True
    close()
    return found
