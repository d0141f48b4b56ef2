"""Text the gate has already masked is still sensitive: a ``[REDACTED:<kind>]`` marker.

A sentence stored by ADK's session service after :class:`UserMessageRedactionPlugin` masked
it ("my card is [REDACTED:payment_card]") is found again by this detector as a finding of
the marked kind, so the router drops it as it would the original, and redacting it again
leaves it as it is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adk_memory_kit.sensitive.base import CREDENTIAL, Finding

_MARKER = re.compile(r"\[REDACTED:(?P<kind>[a-z_]{1,40})\]")


@dataclass(frozen=True)
class RedactedMarkerDetector:
    """Finds the gate's own ``[REDACTED:<kind>]`` markers, each as a finding of its kind."""

    name: str = "redacted_marker"
    kind: str = CREDENTIAL

    def find(self, text: str) -> list[Finding]:
        return [
            Finding(m.group("kind"), self.name, m.start(), m.end()) for m in _MARKER.finditer(text)
        ]
