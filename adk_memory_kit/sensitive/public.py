"""Public artifacts that look like secrets and are not: spans inside them are not findings.

A subresource-integrity hash (``integrity="sha384-..."``), an SSH public key line
(``ssh-ed25519 AAAA... user@host``), a key fingerprint, a public key or certificate block, a
Stripe publishable key (``pk_live_...``), a number labelled as a part, model, serial, SKU or
order number, a postal item's S10 tracking id (``RR123456785DE``), and a template placeholder
(``${DB_PASSWORD}``, ``{{ secret }}``).
Guarantee: :func:`~adk_memory_kit.sensitive.detect_sensitive` drops a finding only when it
lies wholly inside one of these spans; a secret next to one is still found.

:func:`example_value` says whether a value is a placeholder by its form, in any language:
six digits or more of which four in five are one digit (``0000 0000 0000``, ``A000000000X``,
``PT50 0000 0000 0000 0000 0000 0``), or a value masked with ``X``/``*`` (``FR76 XXXX
XXXX``). A card number (a network's prefix, 13 to 19 digits, Luhn) is never one: the
sandboxes' test cards (``4111 1111 1111 1111``) are what people type to try a redaction
gate, and a gate that lets them through looks broken; a flagged test card costs nothing.
"""

from __future__ import annotations

import re

from adk_memory_kit.sensitive.base import prefix_tree
from adk_memory_kit.sensitive.numbers import luhn_valid

_PUBLIC = re.compile(
    r"integrity\s*=\s*[\"']?sha(?:256|384|512)-[A-Za-z0-9+/=]+"
    r"|(?:ssh-(?:ed25519|rsa|dss)|ecdsa-sha2-nistp\d{3}|sk-ssh-ed25519@openssh\.com)"
    r"\s+AAAA[A-Za-z0-9+/=]+"
    r"|(?:sha(?:1|256|384|512)|md5)[:-][A-Za-z0-9+/=:]{16,}"
    r"|(?i:(?:part|model|serial|sku|item|catalog(?:ue)?|product|order|ticket|invoice|"
    r"tracking|style|mfr|mpn|asset|lot|batch) ?(?:number|no\.?|num|nr|#|id|code)? ?[:#]? ?)"
    r"[A-Z0-9]{1,8}(?:-[A-Z0-9]{1,8}){1,4}"
    r"|(?i:fingerprint)\s*[:=]?\s*(?:[0-9A-Fa-f]{2,4}[ :]?){8,20}"
    r"|-----BEGIN (?:PUBLIC KEY|CERTIFICATE|PGP PUBLIC KEY BLOCK|SSH2 PUBLIC KEY)-----"
    r"[A-Za-z0-9+/=\s]{0,8192}-----END [A-Z ]+-----"
    r"|\bpk_(?:live|test)_[A-Za-z0-9]{8,}",
)
#: Templates and masks: a finding inside one is never a secret, whichever detector made it.
_PLACEHOLDER = re.compile(r"\$\{[A-Za-z0-9_.-]{1,64}\}|\{\{[^{}\n]{1,64}\}\}|<[a-z][\w -]{2,40}>")


#: Every match of ``_PUBLIC`` starts with one of these (lower case): the pattern is tried
#: only where one starts (one C-speed pass), not at every position of the text.
_HEADS = re.compile(
    "(?="
    + prefix_tree(
        "integrity ssh- ecdsa-sha2-nistp sk-ssh sha1 sha2 sha3 sha5 md5 part model serial sku "
        "item catalog product order ticket invoice tracking style mfr mpn asset lot batch "
        "fingerprint -----begin pk_".split()
    )
    + ")"
)


def _public_matches(text: str) -> list[tuple[int, int]]:
    """``_PUBLIC.finditer(text)``'s spans, the pattern tried at its heads only."""
    lower = text.lower()
    if len(lower) != len(text) or "\u0131" in text or "\u017f" in text or "\u212a" in text:
        return [m.span() for m in _PUBLIC.finditer(text)]  # lower case would mislead
    spans: list[tuple[int, int]] = []
    pos = 0
    for head in _HEADS.finditer(lower):
        start = head.start()
        if start < pos:
            continue
        m = _PUBLIC.match(text, start)
        if m is not None:
            spans.append(m.span())
            pos = max(m.end(), start + 1)
    return spans


#: A postal item's id (UPU S10: two letters, eight digits and a check digit, a country code:
#: ``LA204857312TH``, ``RR123456785DE``): a parcel's tracking number, printed on the parcel.
_S10 = re.compile(r"(?<![A-Za-z0-9])[A-Z]{2}\d{9}[A-Z]{2}(?![A-Za-z0-9])")


def public_spans(text: str) -> list[tuple[int, int]]:
    """Spans of public artifacts in ``text`` (left to right)."""
    spans = _public_matches(text)
    if sum(map(str.isdigit, text)) >= 9:
        spans += [m.span() for m in _S10.finditer(text)]
    if "{" in text or "<" in text:
        spans += [m.span() for m in _PLACEHOLDER.finditer(text)]
    return spans


_SEPARATORS = str.maketrans("", "", " -./")


#: A value that stands for one: a template (``${DB_PASSWORD}``, ``{{ secret }}``, ``<your key>``,
#: ``%(pw)s``), a variable or reference (``$REDIS_PW``, ``var.db_password``,
#: ``data.aws_secretsmanager_secret_version.x``, ``secrets.TOKEN``), a mask (``****``,
#: ``xxxx``), a call that fetches it (``dbutils.secrets.get(...)``), or a word that says so
#: (``your_token_here``, ``sk-your-key-here``, ``changeme``, ``dummy``). The
#: vendors' documented sample keys (``AKIAIOSFODNN7EXAMPLE``) stay findings, as test cards do.
_STANDS_FOR = re.compile(
    r"(?:\$\{|\{\{|%\(|<[\w .-]+>$|(?-i:\$[A-Z_][A-Z0-9_]{2,})$|"
    r"(?:var|vars|env|local|data|secrets?|module|self|process\.env|os\.environ)\.\w|"
    r"your[_-]|changeme|change[_-]me|replace[_-]?me|replace[_-]with|example|dummy|placeholder|"
    r"sample[_-]|(?:todo|tbd|fixme)$|[A-Za-z_]\w*(?:\.\w+)+\(|[a-z]{2,5}[_-]your[_-]|"
    r"fake[_-]|(?:none|null|nil|true|false|undefined)$|\*{3,}|[xX•]{4,}$)",
    re.IGNORECASE,
)


#: A masked stretch inside a value (``AKIAXXXXXXXXXXXXXXXX``, ``sk_live_****``).
_MASK_RUN = re.compile(r"[xX]{6,}|\*{4,}|•{4,}")
_BRACKETS = {"<": ">", "{": "}", "[": "]", "(": ")"}


def placeholder_value(value: str) -> bool:
    """Whether ``value`` stands for a secret rather than being one (:data:`_STANDS_FOR`:
    templates, references, masks, the words that say so). Repeated digits
    (:func:`example_value`) are not enough alone: the secret head decides those."""
    value = value.strip("\"'`")
    if not value:
        return False
    return _STANDS_FOR.match(value) is not None or _MASK_RUN.search(value) is not None


def placeholder_at(text: str, start: int, end: int) -> bool:
    """:func:`placeholder_value` of ``text[start:end]``, read with the brackets a detector
    trimmed from it (``<REPLACE_ME>`` found as ``REPLACE_ME``)."""
    if placeholder_value(text[start:end]):
        return True
    before = text[start - 1] if start > 0 else ""
    return (
        before in _BRACKETS
        and text[end : end + 1] == _BRACKETS[before]
        and placeholder_value(text[start - 1 : end + 1])
    )


def example_value(value: str) -> bool:
    """Whether ``value`` is a placeholder by its form (see the module docstring)."""
    compact = value.translate(_SEPARATORS).upper()
    digits = [c for c in compact if c.isdigit()]
    if len(digits) >= 6 and max(map(digits.count, set(digits))) >= 0.8 * len(digits):
        return not (compact.isdigit() and compact[0] in "23456" and 13 <= len(compact) <= 19
                    and luhn_valid(compact))  # fmt: skip
    masked = sum(c in "X*•" for c in compact)
    return masked >= 4 and masked * 5 >= 2 * len(compact)
