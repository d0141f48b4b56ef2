"""The shared reading (TextScan) gives every detector the findings it gives alone, and the
fast entropy verdict is the library's own."""

from __future__ import annotations

import random

import pytest

from adk_memory_kit.sensitive import DEFAULT_DETECTORS, detect_sensitive
from adk_memory_kit.sensitive.scan import SHARED_MAX, TextScan
from adk_memory_kit.sensitive.vendor import _CHARSET, entropy_at_least, shannon_entropy

_PIECES = [
    "my password is Nebula#7", "das Passwort für den Server ist Nebula.9", "mot de passe: Zebra_42",
    "contraseña = OvqtrTR0k6", "use 'Tr0ub4dor!' to log in", "log in with Orion-azul-7",
    "user admin / S3cret!x", "passport number: S23165255", "id card X1234567",
    "my daughter was diagnosed with autism", "I'm a Cancer, born in July", "she takes insulin",
    "xapp password Hunter22!", "card verification code 123", "api key AbC9dEf0GhI1jKl2",
    "PIN 4821", "the password field is empty", "boarding pass 12", "no allergies",
    "İstanbul password ist Kiwi88", "ſecret token is q9Z8y7X6w5V4u3T2", "\u212aid has asthma",
]  # fmt: skip


def _texts(n: int = 300) -> list[str]:
    rng = random.Random(23)
    out = []
    for _ in range(n):
        parts = rng.sample(_PIECES, rng.randrange(1, 6))
        text = rng.choice([" ", ". ", "\n", "; "]).join(parts)
        if rng.random() < 0.3:
            text = text.upper() if rng.random() < 0.5 else text.lower()
        out.append(text)
    return out


def _key(findings):
    return sorted((f.kind, f.detector, f.start, f.end) for f in findings)


@pytest.mark.parametrize("text", _texts())
def test_shared_scan_gives_each_detector_its_own_findings(text: str) -> None:
    scan = TextScan(text)
    for detector in DEFAULT_DETECTORS:
        find_in = getattr(detector, "find_in", None)
        if find_in is not None:
            assert _key(find_in(scan)) == _key(detector.find(text)), type(detector).__name__


def test_shared_scan_positions_are_word_starts_of_the_text() -> None:
    text = "xpassword PASSWORD, Passwort: my daughter has asthma"
    heads = TextScan(text).heads("password")
    assert heads is not None
    assert all(text[p - 1 : p].lower() not in "abcdefghijklmnopqrstuvwxyz" or p == 0 for p in heads)
    assert text.index("PASSWORD") in heads and text.index("Passwort") in heads
    assert 1 not in heads  # "password" inside "xpassword"


def test_misleading_case_and_long_texts_are_read_alone() -> None:
    assert TextScan("a dotless \u0131 password").heads("password") is None
    assert TextScan("a Kelvin \u212a password").heads("password") is None
    assert TextScan("password " * (SHARED_MAX // 9 + 1)).heads("password") is None
    flood = "my password is Nebula#7 " * (SHARED_MAX // 24 + 1)
    assert len(detect_sensitive(flood)) == flood.count("Nebula#7")


def test_entropy_verdict_is_the_library_sum() -> None:
    rng = random.Random(5)
    alphabet = _CHARSET + ".:"
    for _ in range(3000):
        value = "".join(rng.choice(alphabet[: rng.randrange(2, len(alphabet))])
                        for _ in range(rng.randrange(1, 80)))  # fmt: skip
        exact = shannon_entropy(value)
        for threshold in (3.0, 4.2, exact):
            assert entropy_at_least(value, threshold) == (exact >= threshold)
