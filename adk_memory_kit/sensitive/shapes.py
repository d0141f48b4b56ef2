"""Secrets recognised by shape alone, with no cue and no checksum library.

Guarantees: a password in a URL's user-info (``scheme://[user]:PASSWORD@host``, the user
may be empty) is a credential; a passport machine-readable zone line (``P<GBR...<<``, or the
44-character second line with ``<`` fillers) is a government id; an Indian IFSC
(``HDFC0001234``: four letters, a zero, six letters or digits) is a bank detail when an
account-length number (8-18 digits) is within 100 characters (a branch code alone is
public). Linear.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adk_memory_kit.sensitive.base import BANK_ACCOUNT, CREDENTIAL, GOVERNMENT_ID, Finding

_URL_PASSWORD = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@]{0,64}:([^\s@/]{3,128})@")
_MRZ = re.compile(
    r"(?<![A-Z0-9<])(?:[PIACV][A-Z<][A-Z]{3}[A-Z<]{20,41}|[A-Z0-9<]{30,44})(?![A-Z0-9<])"
)
_ACCOUNT_DIGITS = re.compile(r"(?<![\w-])\d{8,18}(?![\w-])")
_IFSC = re.compile(r"(?<![A-Za-z0-9])[A-Z]{4}0[A-Z0-9]{6}(?![A-Za-z0-9])")


@dataclass(frozen=True)
class ShapeDetector:
    """URL passwords, passport MRZ lines and IFSC codes (see the module docstring)."""

    name: str = "shape"

    def find(self, text: str) -> list[Finding]:
        found: list[Finding] = []
        if "://" in text:  # every URL password follows one
            found += [
                Finding(CREDENTIAL, "url_password", *m.span(1))
                for m in _URL_PASSWORD.finditer(text)
            ]
        if "<<" in text:
            for m in _MRZ.finditer(text):
                line = m.group(0)
                if "<<" in line and sum(c.isdigit() for c in line) >= 6 or line[:2] in ("P<",):
                    found.append(Finding(GOVERNMENT_ID, "mrz", *m.span()))
        if "0" not in text:  # an IFSC's fifth character
            return found
        for m in _IFSC.finditer(text):
            # a branch code is public: it counts given with an account number
            near = text[max(0, m.start() - 100) : m.end() + 100]
            if any(c.isdigit() for c in m.group(0)[5:]) and _ACCOUNT_DIGITS.search(near):
                found.append(Finding(BANK_ACCOUNT, "ifsc", *m.span()))
        return found
