"""Values in a table column whose header names a secret: a CSV, TSV or Markdown table pasted
with ``account_number``, ``routing_number``, ``password`` or ``api_key`` among its columns.

A header is a line of two or more fields, split by one delimiter (comma, tab, semicolon or
bar), every field a name (a letter first, at most three words), one of them holding a word
of :data:`~.key_named.KEY_WORDS` and none of :data:`~.key_named.PROPERTY_WORDS` (the same
reading of a key as :mod:`.key_named`). Each following line with the header's number of
fields is a row (a Markdown separator row ``|---|---|`` is skipped); the table ends at the
first line that is not one. In a row, the field under a secret column is a finding when it
looks like a value (a digit, or sixteen letters or more) and is no placeholder. Linear: each
line is split once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adk_memory_kit.sensitive.base import CREDENTIAL, Finding
from adk_memory_kit.sensitive.key_named import KEY_WORDS, names_secret, value_like
from adk_memory_kit.sensitive.public import placeholder_value

_DELIMITERS = (",", "\t", ";", "|")
#: A column name: a letter first, at most three words (a sentence between commas is none).
_NAME = re.compile(r"(?=.{1,40}$)[A-Za-z][\w.#/-]*(?: [\w.#/-]+){0,2}")
#: A word of KEY_WORDS anywhere (a cheap test before a line is read as a header).
_KEY_WORD = re.compile("|".join(sorted(KEY_WORDS, key=len, reverse=True)), re.IGNORECASE)
_SEPARATOR_ROW = re.compile(r"[\s|:-]+")


def _fields(line: str, delimiter: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each field of ``line``, trimmed of blanks and quotes (a Markdown
    row's outer bars are no fields)."""
    spans: list[tuple[int, int]] = []
    start = 0
    for part in line.split(delimiter):
        stripped = part.strip(" \t\"'`\r")
        a = start + (part.find(stripped) if stripped else 0)
        spans.append((a, a + len(stripped)))
        start += len(part) + 1
    if delimiter == "|" and spans and spans[0][0] == spans[0][1]:
        spans = spans[1:]
    if delimiter == "|" and spans and spans[-1][0] == spans[-1][1]:
        spans = spans[:-1]
    return spans


def _header(line: str) -> tuple[str, list[int], int] | None:
    """The header's delimiter, the indexes of its secret columns and its number of fields,
    when ``line`` is one."""
    for delimiter in _DELIMITERS:
        if delimiter not in line:
            continue
        fields = [line[a:b] for a, b in _fields(line, delimiter)]
        if len(fields) < 2 or not all(_NAME.fullmatch(f) for f in fields):
            continue
        secret = [i for i, f in enumerate(fields) if names_secret(f.replace(" ", "_"))]
        return (delimiter, secret, len(fields)) if secret else None
    return None


@dataclass(frozen=True)
class TableColumnDetector:
    """Values under a column whose header names a secret (see the module docstring)."""

    name: str = "table_column"

    def find(self, text: str) -> list[Finding]:
        if "\n" not in text or _KEY_WORD.search(text) is None:
            return []
        found: list[Finding] = []
        header: tuple[str, list[int], int] | None = None  # delimiter, columns, field count
        next_start = 0
        for line in text.split("\n"):
            start, next_start = next_start, next_start + len(line) + 1
            if header is not None:
                delimiter, columns, count = header
                if delimiter == "|" and _SEPARATOR_ROW.fullmatch(line) and "-" in line:
                    continue
                spans = _fields(line, delimiter)
                if len(spans) == count:
                    for i in columns:
                        a, b = spans[i]
                        value = line[a:b]
                        if value_like(value) and not placeholder_value(value):
                            found.append(Finding(CREDENTIAL, self.name, start + a, start + b))
                    continue
                header = None
            if len(line) <= 400 and _KEY_WORD.search(line) is not None:
                header = _header(line)
        return found
