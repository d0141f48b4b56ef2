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
from adk_memory_kit.sensitive.key_named import KEY_WORDS, PROPERTY_WORDS, key_words, value_like
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


def _secret_columns(line: str) -> tuple[str, list[int]] | None:
    """The header's delimiter and the indexes of its secret columns, when ``line`` is one."""
    for delimiter in _DELIMITERS:
        if line.count(delimiter) < 1:
            continue
        fields = [line[a:b] for a, b in _fields(line, delimiter)]
        if len(fields) < 2 or not all(_NAME.fullmatch(f) for f in fields):
            continue
        secret = []
        for i, field in enumerate(fields):
            words = key_words(field.replace(" ", "_"))
            if not KEY_WORDS.isdisjoint(words) and PROPERTY_WORDS.isdisjoint(words):
                secret.append(i)
        return (delimiter, secret) if secret else None
    return None


@dataclass(frozen=True)
class TableColumnDetector:
    """Values under a column whose header names a secret (see the module docstring)."""

    name: str = "table_column"

    def find(self, text: str) -> list[Finding]:
        if "\n" not in text or _KEY_WORD.search(text) is None:
            return []
        lines: list[tuple[int, str]] = []
        offset = 0
        for line in text.split("\n"):
            lines.append((offset, line))
            offset += len(line) + 1
        found: list[Finding] = []
        header: tuple[str, list[int], int] | None = None  # delimiter, columns, field count
        for offset, line in lines:
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
                            found.append(Finding(CREDENTIAL, self.name, offset + a, offset + b))
                    continue
                header = None
            named = len(line) <= 400 and _KEY_WORD.search(line) is not None
            read = _secret_columns(line) if named else None
            if read is not None:
                delimiter, columns = read
                header = (delimiter, columns, len(_fields(line, delimiter)))
        return found
