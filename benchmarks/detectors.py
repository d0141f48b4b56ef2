"""Sensitive-data detectors on the kit's labelled corpus: recall and precision per kind, tune
and held-out, and timing.

Usage::

    python benchmarks/detectors.py [--json OUT]
    python benchmarks/detectors.py --corpus PATH [--show-misses] [--no-timing]

``--corpus`` scores any JSON-lines corpus of ``{"label", "kind", "text", "secrets"}`` rows.

The corpus is ``benchmarks/data/privacy_corpus.jsonl`` (written by
``benchmarks/privacy_corpus.py``; split by phrasing into tune and held-out halves). A positive
is found when none of its secrets survives :func:`redact_for_store` verbatim (health: when a
health finding covers the sentence); a negative is a false positive when any detector flags
anything in it. Timing: p95 of ``detect_sensitive`` (every detector) over 1 KB messages, and
the slowest of a set of 1 MB adversarial inputs; the 1 KB p95 is also given with the
MiniLM health head off, with the share of messages the head runs on (it runs only on
sentences the health vocabulary picks, about 10 ms each). Needs no pytest.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from adk_memory_kit.embedders.multilingual import MultilingualEncoder  # noqa: E402
from adk_memory_kit.sensitive import (  # noqa: E402
    CREDENTIAL,
    GOVERNMENT_ID,
    HEALTH,
    IBAN,
    PAYMENT_CARD,
    detect_sensitive,
    finding_kinds,
    redact_for_store,
)
from adk_memory_kit.sensitive.meaning_encoder import use_meaning_encoder  # noqa: E402

CORPUS = ROOT / "benchmarks" / "data" / "privacy_corpus.jsonl"
SPLITS = ("tune", "heldout")
_ID_KINDS = {"us_ssn", "ca_sin", "aadhaar", "india_pan", "uk_nino", "es_dni",
             "it_codice_fiscale", "nl_bsn", "br_cpf", "fr_nir", "de_idnr", "nhs_number",
             "passport"}  # fmt: skip

#: 1 MB adversarial inputs: (head, repeated unit, tail).
ADVERSARIAL: dict[str, tuple[str, str, str]] = {
    "password_spaces": ("my password for the portal", " ", "x"),
    "password_is_a": ("", "password is a ", ""),
    "passwort_ist": ("", "Passwort ist das ", ""),
    "mot_de_passe": ("", "mot de passe est le ", ""),
    "keyword_underscores": ("", "password_", "x"),
    "quote_runs": ("password is '", "a'", ""),
    "jwt_hyphen": ("", "eyJ-", "x"),
    "jwt_two_segments": ("", "eyJabcdefghij.", "x"),
    "url_colons": ("", "://a:", "x"),
    "npm_slashes": ("", "//a/", "x"),
    "base64_run": ("", "aB3+/9zQ", "="),
    "digits_spaced": ("", "1 ", "x"),
    "digit_groups": ("", "4111 ", ""),
    "digits_dots": ("", "4.", "1"),
    "iban_heads": ("", "DE89 ", ""),
    "login_pairs": ("", "user ab / ", ""),
    "pem_begins": ("", "-----BEGIN RSA PRIVATE KEY-----", ""),
    "health_words": ("I ", "depression ", ""),
    "long_word": ("", "a", ""),
    "hex_run": ("", "0123456789abcdef", ""),
    # the fail-closed layer, recovery material and the health pre-filter (issue 43)
    "cue_code_digits": ("", "door code 1234 ", ""),
    "cue_id": ("", "id ", ""),
    "cue_account_words": ("", "account number is the one ", ""),
    "seed_words": ("", "abandon ", ""),
    "grouped_codes": ("", "a1b2c-d3e4f ", ""),
    "split_card_lines": ("", "4111 1111\n", ""),
    "health_sentences": ("", "I take insulin. ", ""),
    # stop 60: key-named values and combinations
    "key_pairs": ("", "api_key=ab12cd34ef ", ""),
    "rejected_pairs": ("", "note: x_id=ab12cd34ef ", ""),
    "combinations": ("", "17-42-08 ", ""),
    # stop 61: table columns, spelled drug names, placeholders
    "table_rows": ("user,password\n", "bob,S3cret#pw9\n", ""),
    "table_headers": ("", "id,account_number\n", ""),
    "spelled_words": ("", "эналаприл инсулин ", ""),
    "masked_values": ("", "api_key=AKIAXXXXXXXXXXXX ", ""),
}


def kind_class(kind: str) -> str:
    if kind == "payment_card":
        return PAYMENT_CARD
    if kind == "iban":
        return IBAN
    if kind == "health":
        return HEALTH
    if kind in _ID_KINDS:
        return GOVERNMENT_ID
    return CREDENTIAL


def load(path: Path = CORPUS) -> list[dict]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def found(row: dict) -> bool:
    if row["kind"] == "health":
        return any(f.kind == HEALTH for f in detect_sensitive(row["text"]))
    redacted = redact_for_store(row["text"]) or ""
    return all(secret not in redacted for secret in row["secrets"])


def score(rows: list[dict]) -> dict:
    """Per split: per kind recall; per class recall and precision; overall."""
    out: dict = {}
    for split in SPLITS:
        part = [r for r in rows if r["split"] == split]
        kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        classes: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # tp, fn, fp
        negatives = fp_any = 0
        for r in part:
            if r["label"] == "positive":
                hit = found(r)
                kinds[r["kind"]][0] += hit
                kinds[r["kind"]][1] += 1
                classes[kind_class(r["kind"])][0 if hit else 1] += 1
            else:
                negatives += 1
                flagged = {f.kind for f in detect_sensitive(r["text"])}
                fp_any += bool(flagged)
                for c in flagged:
                    classes[c][2] += 1
        tp = sum(c[0] for c in classes.values())
        fn = sum(c[1] for c in classes.values())
        out[split] = {
            "kinds": {k: {"cases": n, "recall": h / n} for k, (h, n) in sorted(kinds.items())},
            "classes": {
                c: {"recall": tp_c / max(1, tp_c + fn_c), "precision": tp_c / max(1, tp_c + fp_c),
                    "positives": tp_c + fn_c, "false_positives": fp_c}
                for c, (tp_c, fn_c, fp_c) in sorted(classes.items())
            },
            "overall": {"positives": tp + fn, "negatives": negatives,
                        "recall": tp / max(1, tp + fn), "precision": tp / max(1, tp + fp_any),
                        "false_positive_negatives": fp_any},
        }  # fmt: skip
    return out


def score_flat(rows: list[dict]) -> dict:
    """A corpus with no split (a first read): recall and precision overall and per class.

    The class is the row's ``kind`` mapped by :func:`kind_class` (new classes such as ``bank``
    or ``one_time_or_recovery`` are kept as they are); a flagged negative counts against the
    class it imitates."""
    classes: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # tp, fn, fp, negatives
    missed: list[int] = []
    flagged_rows: list[int] = []
    for i, r in enumerate(rows):
        c = r["kind"] if r["kind"] in _FLAT_CLASSES else kind_class(r["kind"])
        if r["label"] == "positive":
            hit = found(r)
            classes[c][0 if hit else 1] += 1
            if not hit:
                missed.append(i)
        else:
            classes[c][3] += 1
            if detect_sensitive(r["text"]):
                classes[c][2] += 1
                flagged_rows.append(i)
    tp = sum(v[0] for v in classes.values())
    fn = sum(v[1] for v in classes.values())
    fp = sum(v[2] for v in classes.values())
    return {
        "classes": {
            c: {"positives": t + f, "found": t, "negatives": n, "false_positives": p,
                "recall": t / max(1, t + f), "precision": t / max(1, t + p)}
            for c, (t, f, p, n) in sorted(classes.items())
        },
        "overall": {"positives": tp + fn, "found": tp,
                    "negatives": sum(v[3] for v in classes.values()),
                    "false_positives": fp, "recall": tp / max(1, tp + fn),
                    "precision": tp / max(1, tp + fp)},
        "missed_rows": missed,
        "flagged_rows": flagged_rows,
    }  # fmt: skip


_FLAT_CLASSES = {"credential", "one_time_or_recovery", "bank", "payment_card", "government_id",
                 "health", "iban"}  # fmt: skip


def print_flat(table: dict, name: str) -> None:
    print(f"corpus: {name}")
    print("| class | positives | recall | negatives | flagged | precision |")
    print("|---|---:|---:|---:|---:|---:|")
    for c, v in table["classes"].items():
        print(f"| `{c}` | {v['positives']} | {v['recall']:.3f} | {v['negatives']} | "
              f"{v['false_positives']} | {v['precision']:.3f} |")  # fmt: skip
    o = table["overall"]
    print(f"| **all** | {o['positives']} | {o['recall']:.3f} | {o['negatives']} | "
          f"{o['false_positives']} | {o['precision']:.3f} |")  # fmt: skip


def kb_messages(rows: list[dict], n: int = 300) -> list[str]:
    texts = [r["text"] for r in rows]
    out, i = [], 0
    while len(out) < n:
        msg = ""
        while len(msg) < 1024:
            msg += texts[i % len(texts)] + " "
            i += 7
        out.append(msg[:1024])
    return out


def timing(rows: list[dict]) -> dict:
    msgs = kb_messages(rows)
    for m in msgs[:20]:
        detect_sensitive(m)
    times, cpu = [], []
    for m in msgs:
        started, started_cpu = time.perf_counter(), time.thread_time()
        detect_sensitive(m)
        cpu.append((time.thread_time() - started_cpu) * 1000)
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    cpu.sort()
    # the same messages with the meaning heads off (what the vocabulary and rules cost)
    use_meaning_encoder(None)
    try:
        no_head = []
        for m in msgs:
            started = time.perf_counter()
            detect_sensitive(m)
            no_head.append((time.perf_counter() - started) * 1000)
    finally:
        use_meaning_encoder(MultilingualEncoder)
    no_head.sort()
    adversarial, adversarial_cpu = {}, {}
    for name, (head, unit, tail) in ADVERSARIAL.items():
        size = 1_000_000
        text = (head + unit * (size // len(unit) + 1))[: size - len(tail)] + tail
        started, started_cpu = time.perf_counter(), time.thread_time()
        detect_sensitive(text)
        adversarial_cpu[name] = time.thread_time() - started_cpu
        adversarial[name] = time.perf_counter() - started
    return {
        "p50_1kb_ms": statistics.median(times),
        "p95_1kb_ms": times[int(0.95 * len(times)) - 1],
        "p95_1kb_cpu_ms": cpu[int(0.95 * len(cpu)) - 1],
        "p95_1kb_ms_head_off": no_head[int(0.95 * len(no_head)) - 1],
        "adversarial_1mb_s": adversarial,
        "adversarial_1mb_cpu_s": adversarial_cpu,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--no-timing", action="store_true", help="skip the timing runs")
    parser.add_argument("--corpus", type=Path, help="score this corpus (no split) instead")
    parser.add_argument("--show-misses", action="store_true", help="print missed/flagged rows")
    args = parser.parse_args(argv)
    if args.corpus is not None:
        rows = load(args.corpus)
        flat = score_flat(rows)
        print_flat(flat, str(args.corpus))
        if args.show_misses:
            for i in flat["missed_rows"]:
                print("MISS", rows[i]["kind"], repr(rows[i]["text"]))
            for i in flat["flagged_rows"]:
                kinds = finding_kinds(detect_sensitive(rows[i]["text"]))
                print("FP", rows[i]["kind"], kinds, repr(rows[i]["text"]))
        if not args.no_timing:
            flat["timing"] = timing(rows)
            t = flat["timing"]
            print(
                f"  1 KB p95 {t['p95_1kb_ms']:.2f} ms wall, {t['p95_1kb_ms_head_off']:.2f} ms "
                "with the meaning heads off"
            )
        if args.json:
            args.json.write_text(json.dumps(flat, indent=2))
        return 0
    rows = load()
    table = score(rows)
    pos = sum(r["label"] == "positive" for r in rows)
    kinds = {r["kind"] for r in rows if r["label"] == "positive"}
    print(f"corpus: {pos} positives in {len(kinds)} kinds, {len(rows) - pos} hard negatives")
    print("\n| kind | class | cases tune | recall tune | cases held-out | recall held-out |")
    print("|---|---|---:|---:|---:|---:|")
    for kind in sorted(kinds):
        t, h = table["tune"]["kinds"].get(kind), table["heldout"]["kinds"].get(kind)
        cells = [f"{x['cases']} | {x['recall']:.2f}" if x else "0 | -" for x in (t, h)]
        print(f"| `{kind}` | {kind_class(kind)} | {cells[0]} | {cells[1]} |")
    print("\n| class | recall tune | precision tune | recall held-out | precision held-out |")
    print("|---|---:|---:|---:|---:|")
    for c in sorted(table["tune"]["classes"]):
        t, h = table["tune"]["classes"][c], table["heldout"]["classes"].get(c)
        print(
            f"| `{c}` | {t['recall']:.3f} | {t['precision']:.3f} | "
            f"{h['recall']:.3f} | {h['precision']:.3f} |"
        )
    for split in SPLITS:
        o = table[split]["overall"]
        print(
            f"| **all ({split})** | recall {o['recall']:.3f} | precision {o['precision']:.3f} | "
            f"{o['positives']} positives | {o['negatives']} negatives, "
            f"{o['false_positive_negatives']} flagged |"
        )
    if not args.no_timing:
        t = timing(rows)
        table["timing"] = t
        worst = max(t["adversarial_1mb_s"].items(), key=lambda kv: kv[1])
        worst_cpu = max(t["adversarial_1mb_cpu_s"].items(), key=lambda kv: kv[1])
        print(
            "\ntiming (wall, and CPU time of this thread, which a loaded machine does not inflate):"
        )
        print(
            f"  1 KB message: p50 {t['p50_1kb_ms']:.2f} ms, p95 {t['p95_1kb_ms']:.2f} ms wall; "
            f"p95 {t['p95_1kb_cpu_ms']:.2f} ms CPU"
        )
        print(f"  1 KB with the meaning heads off: p95 {t['p95_1kb_ms_head_off']:.2f} ms wall")
        print(
            f"  1 MB adversarial ({len(t['adversarial_1mb_s'])} inputs): slowest {worst[0]} "
            f"{worst[1]:.2f} s wall; slowest CPU {worst_cpu[0]} {worst_cpu[1]:.2f} s"
        )
        for name, s in sorted(t["adversarial_1mb_cpu_s"].items(), key=lambda kv: -kv[1])[:6]:
            print(f"    {name}: {s:.3f} s CPU, {t['adversarial_1mb_s'][name]:.3f} s wall")
    if args.json:
        args.json.write_text(json.dumps(table, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
