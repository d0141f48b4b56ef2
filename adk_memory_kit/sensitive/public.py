"""Public artifacts that look like secrets and are not: spans inside them are not findings.

A subresource-integrity hash (``integrity="sha384-..."``), an SSH public key line
(``ssh-ed25519 AAAA... user@host``), a PGP/GPG fingerprint, and a number labelled as a
part, model, serial, SKU or catalogue number with no id cue near it. Guarantee: a finding
lies inside one of these spans only when it came from an entropy or shape rule (never from
a vendor prefix or a keyword-introduced password), so dropping it loses no labelled secret.
"""

from __future__ import annotations

import re

_PUBLIC = re.compile(
    r"integrity\s*=\s*[\"']?sha(?:256|384|512)-[A-Za-z0-9+/=]+"
    r"|(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d{3}|sk-ssh-ed25519@openssh\.com)"
    r"\s+AAAA[A-Za-z0-9+/=]+"
    r"|(?:sha(?:1|256|384|512)|md5)[:-][A-Za-z0-9+/=:]{16,}"
    r"|(?i:(?:part|model|serial|sku|item|catalog(?:ue)?|product|order|ticket|invoice|"
    r"tracking|style|mfr|mpn|asset|lot|batch)\s*(?:number|no\.?|num|nr|#|id|code)?\s*[:#]?\s*)"
    r"[A-Z0-9]{1,8}(?:-[A-Z0-9]{1,8}){1,4}",
)
#: Detectors whose findings a public span can cancel (shape and entropy rules only).
SHAPE_DETECTORS = frozenset({"high_entropy", "us_ssn", "cue_value", "ca_sin", "nl_bsn", "us_ein"})


def public_spans(text: str) -> list[tuple[int, int]]:
    """Spans of public artifacts in ``text`` (left to right)."""
    return [m.span() for m in _PUBLIC.finditer(text)]
