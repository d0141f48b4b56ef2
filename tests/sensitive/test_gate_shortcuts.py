"""The gate's shortcuts change no finding: the cue pattern's lookahead, the detectors skipped
for too few digits, the digit count, the seed-phrase windows and the digit conversion.
Sentences written for these tests; none copied from a corpus."""

from __future__ import annotations

import random
import re
import unicodedata

import pytest

from adk_memory_kit.sensitive import DEFAULT_DETECTORS, RECOVERY, detect_sensitive
from adk_memory_kit.sensitive.base import ascii_digits, prefix_tree
from adk_memory_kit.sensitive.cues import _LATIN, _LATIN_START, CUE_PATTERN, CUES
from adk_memory_kit.sensitive.recovery import _BITLOCKER, _union, _wordlists
from adk_memory_kit.sensitive.scan import TextScan

_PIECES = [
    "my password is Nebula#7", "PIN 4821 for the door", "card 4111 1111 1111 1111 exp 12/29",
    "IBAN DE89 3704 0044 0532 0130 00", "passport number: S23165255", "SSN 078-05-1120",
    "order A-6790", "wifi密码 Kiwi88", "пароль: qwerty12", "aadhaar 2345 6789 0123",
    "backup codes: 4821-7730 1942-5521 7781-0023", "call me on 030 9276974, it's private",
    "P051298374K", "code 9-3-7-1-0", "CPF 529.982.247-25", "my NINO is QQ123456C",
    "seed: abandon ability able about above absent absorb abstract absurd abuse access accident",
    "routing 021000021 account 1234567890", "x-request-id 5521", "gate code 2580 #",
]  # fmt: skip


def _texts(n: int = 200, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        text = rng.choice([" ", ". ", "\n", "; "]).join(rng.sample(_PIECES, rng.randrange(1, 5)))
        out.append(text.upper() if rng.random() < 0.2 else text)
    return out


def test_cue_pattern_finds_what_it_found_without_its_lookahead() -> None:
    latin = sorted(w for w in CUES if _LATIN_START.match(w))
    other = sorted(w for w in CUES if not _LATIN_START.match(w))
    plain = re.compile(rf"(?<![{_LATIN}])(?:{prefix_tree(latin)})|(?:{prefix_tree(other)})")
    for text in _texts() + ["密码pin:1234", "パスワードは", "wifi密码", "код доступа 12"]:
        lower = text.lower()
        assert [m.span() for m in CUE_PATTERN.finditer(lower)] == [
            m.span() for m in plain.finditer(lower)
        ]


@pytest.mark.parametrize("text", _texts(60, seed=11))
def test_a_detector_finds_nothing_with_fewer_digits_than_it_needs(text: str) -> None:
    for detector in DEFAULT_DETECTORS:
        least = getattr(detector, "least_digits", 0)
        if not least:
            continue
        digits = [m.start() for m in re.finditer(r"\d", text)]
        # keep the first least - 1 digits, the others become letters
        fewer = list(text)
        for i in digits[least - 1 :]:
            fewer[i] = "x"
        assert detector.find("".join(fewer)) == [], type(detector).__name__


def test_the_digit_count_is_what_backslash_d_matches() -> None:
    for text in ["", "no digits", "4821", "١٢٣ and 45", "٤٨٢١-٧٧٣٠ ²"]:
        assert TextScan(text).digits == len(re.findall(r"\d", text))


def test_every_decimal_digit_is_written_in_ascii() -> None:
    decimals = "".join(chr(c) for c in range(0x110000) if chr(c).isdecimal())
    text = "a" + decimals + "\u00b2 z"
    expected = "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)
    assert ascii_digits(text) == expected
    assert ascii_digits("plain 42") == "plain 42"


def _window_reference(words: list[str]) -> bool:
    """Some 12 words in a row hold 10 list words, 9 of them distinct (the count read word
    by word)."""
    union = _union()
    return any(
        sum(w in union for w in words[i : i + 12]) >= 10 and len(set(words[i : i + 12])) >= 9
        for i in range(len(words) - 11)
    )


def test_seed_phrase_windows_are_counted_as_word_by_word() -> None:
    rng = random.Random(5)
    english = sorted(_wordlists()[0])
    others = ["table", "quickly", "meeting", "tomorrow", "xylo", "brrr"]
    for _ in range(200):
        n = rng.randrange(10, 30)
        words = [rng.choice(english if rng.random() < 0.8 else others) for _ in range(n)]
        if rng.random() < 0.3:
            words[3:9] = [words[3]] * 6  # repeated words: not distinct
        text = " ".join(words)
        found = any(f.kind == RECOVERY for f in detect_sensitive(text))
        if not _window_reference(words):
            assert not found, text


def test_a_bitlocker_key_is_found_and_a_longer_run_is_not() -> None:
    key = "-".join(f"{n:06d}" for n in range(123456, 999999, 111111)[:8])
    assert [m.span() for m in _BITLOCKER.finditer(f"key {key}.")] == [(4, 4 + len(key))]
    assert _BITLOCKER.search(f"9{key}") is None and _BITLOCKER.search(f"{key}9") is None
    assert any(f.kind == RECOVERY for f in detect_sensitive(f"bitlocker recovery key {key}"))
