"""Values a key names as secret: ``P24_CRC=bef783f92300a811``, ``"accountNo":"31907526"``,
``routing_number: "071000505"``, ``vnp_HashSecret=AVLL...``.

Configs, logs, JSON and ``.env`` files say what a value is in the key before it. The key is
split into its words (``snake_case``, ``camelCase``, ``kebab-case``, dotted), and a value
whose key holds a word of :data:`KEY_WORDS` (a secret, a key, a token, a hash, a PIN, a bank
account, a routing or sort code, a government id's short name) is a credential, whatever the
vendor or the language of the text around it, unless the key names a property of it
(:data:`PROPERTY_WORDS`: its file, URL, name, type, length, expiry).

Guarantees: only ``key=value`` and ``key: value`` pairs (the key a single token, optionally
quoted) are read; the value must look like a value (six characters or more with a digit, or
sixteen or more letters with no space), and is left alone when it is a placeholder (``<...>``,
``${...}``, ``xxxx``, ``your_...``, ``changeme``, a variable reference ``var.x``) or an
example by its form. Linear: each character is read by a bounded number of searches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from adk_memory_kit.sensitive.base import CREDENTIAL, Finding
from adk_memory_kit.sensitive.public import example_value, placeholder_value

#: Words of a key that say its value is secret (lower case, one word of the split key).
KEY_WORDS = frozenset(
    """
    secret secrets key apikey appkey token pass passwd password pwd passkey passphrase pin
    otp cvv cvc hash crc salt signature credential credentials auth private priv
    iban account acct accountno accountnumber acc routing sortcode bsb ifsc
    ssn tfn nino rfc curp ine dni nie nif cpf pesel passport
    """.split()
)
#: Words of a key that name a property of the secret, not the secret: ``key_file``,
#: ``token_url``, ``password_min_length``, ``key_name``, ``api_version``.
PROPERTY_WORDS = frozenset(
    """
    file path dir url uri endpoint host name alias label hint type format version region
    count length len size limit max min ttl timeout expiry expires expiration rotation
    """.split()
)
#: A key, optionally quoted, then ``=`` or ``:``, then the value, optionally quoted.
_PAIR = re.compile(
    r"""(?<![\w.-])["']?(?P<key>[A-Za-z][\w.-]{1,63})["']?[ \t]*(?:=|:)[ \t]*"""
    r"""(?P<q>["']?)(?P<value>[^\s"',;}\]]{6,256})(?P=q)"""
)
_CAMEL = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def key_words(key: str) -> list[str]:
    """The words of a key, in lower case (``vnp_HashSecret`` -> vnp, hash, secret)."""
    words: list[str] = []
    for part in re.split(r"[_.\-]+", key):
        words += [w.lower() for w in _CAMEL.findall(part)]
        if part and part.lower() not in words:
            words.append(part.lower())  # "accountNo" is also read whole
    return words


def names_secret(key: str) -> bool:
    """Whether a key (or a column name) names a secret: a word of :data:`KEY_WORDS` and none
    of :data:`PROPERTY_WORDS` among its words."""
    words = key_words(key)
    return not KEY_WORDS.isdisjoint(words) and PROPERTY_WORDS.isdisjoint(words)


def value_like(value: str) -> bool:
    """Whether a keyed value looks like one: a digit, or sixteen letters or more."""
    if any(c.isdigit() for c in value):
        return True
    return len(value) >= 16 and value.isalpha()


@dataclass(frozen=True)
class KeyNamedDetector:
    """Values whose key names a secret (see the module docstring)."""

    name: str = "key_named"

    def find(self, text: str) -> list[Finding]:
        if "=" not in text and ":" not in text:
            return []
        found: list[Finding] = []
        pos = 0
        while (m := _PAIR.search(text, pos)) is not None:
            # a rejected pair's value may hold the next pair ("thật: vnp_HashSecret=..."):
            # the search goes on from the value's start; an accepted one, from its end
            pos = m.start("value")
            value = m.group("value").rstrip(".")
            if not value_like(value) or placeholder_value(value) or example_value(value):
                continue
            if "://" in text[pos - 3 : pos + 3]:
                continue  # a URL's scheme, not a key
            if not names_secret(m.group("key")):
                continue
            found.append(Finding(CREDENTIAL, self.name, pos, pos + len(value)))
            pos = m.end()
        return found
