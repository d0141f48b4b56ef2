"""Sensitive-data detection stays linear on adversarial input (no catastrophic backtracking).

``redact_secrets`` runs on every ingested text and ``detect_sensitive`` on the event loop, so
a pathological message must not hang them. Each case below is a 1 MB text aimed at one of the
patterns (long runs of spaces after a keyword, a keyword prefix repeated, long base64-like or
digit runs, ...). Every detector in ``DEFAULT_DETECTORS``, ``detect_sensitive`` and
``redact_secrets`` must get through all of them.

This is not a speed test: the cases run in a child process with a generous limit for all of
them together. Linear code takes a second or two; the quadratic patterns this guards against
took hours on these inputs, so only a hang fails.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import adk_memory_kit.sensitive

pytestmark = pytest.mark.slow  # a megabyte per detector in child processes

SIZE = 1_000_000
#: For all cases together, per case: the fixed module needs a small fraction of it on an idle
#: machine, the quadratic patterns this guards against took hours, and CI machines are shared.
TIMEOUT_PER_CASE_S = 6.0
#: Children running cases side by side (at most one per CPU).
WORKERS = 8

#: name -> (head, repeated unit, tail): the text is ``head + unit * k + tail`` cut to SIZE.
CASES: dict[str, tuple[str, str, str]] = {
    # a keyword followed by a long whitespace run that the pattern cannot finish on
    "password_tabs": ("DB_PASSWORD", "\t", "x"),
    "password_phrase_spaces": ("my password for the portal", " ", "x"),
    "pin_is_spaces": ("my PIN is", " ", "x"),
    "cvv_spaces": ("cvv code", "\t", "x"),
    # a keyword prefix repeated: every occurrence is a new start
    "password_is_a": ("", "password is a ", ""),
    "password_is_the_stop": ("", "password is the ", "." * 5_000 + "x"),
    "password_quoted_short": ("", "password='ab' ", ""),
    "password_underscore": ("", "password_", "x"),
    "passport_hyphen": ("", "passport-", "x"),
    "nie_hyphen": ("", "nie-", "x"),
    # URLs, JWTs, tokens
    "scheme_dots": ("", "a.", "x"),
    "jwt_hyphen": ("", "eyJ-", "x"),
    "jwt_two_segments": ("", "eyJabcdefghij.", "x"),
    "base64_run": ("", "aB3+/9zQ", "="),
    # digits: cards, IBANs, ids
    "digits_spaced": ("", "1 ", "x"),
    "labelled_cards": ("", "order" + " " * 50 + ";4000000000000002 ", ""),
    # login/password pairs, relative clauses, passphrases, national ids
    "login_then_spaces": ("login jsmith", " ", "x"),
    "login_repeated": ("", "login ab/", ""),
    "user_pw_repeated": ("", "user ab pw ", ""),
    "password_i_use": ("", "password I use ", ""),
    "passphrase_words": ("passphrase is correct", " horse", "."),
    "passphrase_repeated": ("", "passphrase is the a b c ", ""),
    "aadhaar_groups": ("", "2345 ", ""),
    "aadhaar_hyphens": ("aadhaar ", "2345-", "x"),
    "pan_like": ("", "ABCPE1234", "F"),
    # sentence ends and health terms
    "dots": ("password is a", ".", "x"),
    "personal_terms": ("I ", "depression ", ""),
}
TIMEOUT_S = TIMEOUT_PER_CASE_S * len(CASES)

_RUNNER = r"""
import importlib.util, json, sys, time

spec = importlib.util.spec_from_file_location("sensitive_under_test", sys.argv[1])
module = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = module  # dataclasses look their module up
spec.loader.exec_module(module)
size, cases = int(sys.argv[2]), json.loads(sys.argv[3])


class Timed:  # one detector, reporting how long its find() took
    def __init__(self, case, detector):
        self.case, self.detector, self.name = case, detector, detector.name

    def find(self, text):
        started = time.perf_counter()
        found = list(self.detector.find(text))
        print(json.dumps([self.case, self.name, time.perf_counter() - started]), flush=True)
        return found


for name, (head, unit, tail) in cases.items():
    text = (head + unit * (size // len(unit) + 1))[: size - len(tail)] + tail
    # every default detector, one row each, through detect_sensitive
    module.detect_sensitive(text, [Timed(name, d) for d in module.DEFAULT_DETECTORS])
    started = time.perf_counter()
    module.redact_secrets(text)
    print(json.dumps([name, "redact_secrets", time.perf_counter() - started]), flush=True)
"""


def run_adversarial_cases(
    module_path: str | Path, size: int = SIZE, timeout: float = TIMEOUT_S
) -> tuple[bool, list[list]]:
    """Run every case against the module at ``module_path`` in child processes.

    The cases are shared out among a few children that run side by side. Returns
    ``(finished, rows)``: whether every child completed within ``timeout`` seconds (all
    together) and the ``[case, detector, seconds]`` rows reported by then.
    """
    workers = max(1, min(WORKERS, os.cpu_count() or 1))
    names = list(CASES)
    children = []
    for i in range(workers):
        share = {name: CASES[name] for name in names[i::workers]}
        child = subprocess.Popen(
            [sys.executable, "-u", "-c", _RUNNER, str(module_path), str(size), json.dumps(share)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        children.append(child)
    deadline = time.monotonic() + timeout
    finished, rows = True, []
    for child in children:
        try:
            out, err = child.communicate(timeout=max(0.1, deadline - time.monotonic()))
            assert child.returncode == 0, err
        except subprocess.TimeoutExpired:
            finished = False
            os.killpg(child.pid, signal.SIGKILL)
            out, _ = child.communicate()
        rows += [json.loads(line) for line in out.splitlines() if line.strip()]
    return finished, rows


def test_every_detector_finishes_on_adversarial_megabyte_inputs():
    finished, rows = run_adversarial_cases(adk_memory_kit.sensitive.__file__)
    slowest = sorted(rows, key=lambda row: -row[2])[:5]
    assert finished, f"timed out after {len(rows)} calls; slowest reported: {slowest}"
    labels = [d.name for d in adk_memory_kit.sensitive.DEFAULT_DETECTORS] + ["redact_secrets"]
    assert sorted((case, label) for case, label, _ in rows) == sorted(
        (case, label) for case in CASES for label in labels
    )
