"""Routing on the labelled bank: per home, the rules alone, the offline router and
``LlmExtractor`` behind the gate with a scripted model (the contract), plus the offline p95.

Usage::

    python benchmarks/routing.py [--json OUT] [--turns 200]

The bank ships in the package (``adk_memory_kit/routing/data/bank.jsonl``); a fixed quarter of
it (by hash of the text) is held out. The offline router is trained on the tune split only
and scored on both (tune = training fit, held-out = generalisation). The scripted model
answers each sentence it is sent with that sentence's true label in the strict schema: it
checks the gate, the schema and the mapping to homes, not a model's judgement.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

from google.adk.events.event import Event
from google.genai import types

from adk_memory_kit.routing import MemoryApplier, MemoryHome, RuleBasedExtractor
from adk_memory_kit.routing.bank import Example, label_home, load_bank
from adk_memory_kit.routing.extractors import LlmExtractor
from adk_memory_kit.routing.gated import GatedLlmExtractor
from adk_memory_kit.routing.learned import LearnedRouter
from adk_memory_kit.routing.offline import LearnedExtractor
from adk_memory_kit.testing import ScriptedLlm

H = MemoryHome
PRIORITY = [H.FORGET, H.DROP, H.PROCEDURAL_REVIEW, H.USER_STATE, H.LONG_TERM, H.SESSION_STATE]
ROWS = [
    ("user: state", H.USER_STATE),
    ("long-term fact", H.LONG_TERM),
    ("session state", H.SESSION_STATE),
    ("human review", H.PROCEDURAL_REVIEW),
    ("drop (sensitive)", H.DROP),
    ("nothing to keep", None),
    ("forget request", H.FORGET),
]
APPLIER = MemoryApplier()


def predicted(candidates) -> tuple[MemoryHome | None, str | None, bool]:
    """(home, preference name, replaces_earlier) of one sentence's candidates."""
    homes: dict = {}
    for c in candidates:
        c2, home, _ = APPLIER.classify(c)
        homes.setdefault(home, c2)
    for home in PRIORITY:
        if home in homes:
            c = homes[home]
            return home, c.key if home is H.USER_STATE else None, c.replaces_earlier
    return None, None, False


def correct(example: Example, got: tuple) -> bool:
    home, key, _ = got
    if home != label_home(example.label):
        return False
    return home is not H.USER_STATE or key == example.preference


def table(results: dict[str, list[tuple[Example, tuple]]]) -> list[dict]:
    out: list[dict] = []
    for name, home in ROWS:
        row: dict = {"home": name}
        for system, pairs in results.items():
            mine = [(e, g) for e, g in pairs if label_home(e.label) == home]
            row[system] = (sum(correct(e, g) for e, g in mine), len(mine))
        out.append(row)
    total: dict = {"home": "overall"}
    for system, pairs in results.items():
        total[system] = (sum(correct(e, g) for e, g in pairs), len(pairs))
    out.append(total)
    upd: dict = {"home": "update flagged (of update rows)"}
    for system, pairs in results.items():
        flagged = [bool(g[2]) for e, g in pairs if e.label == "update"]
        upd[system] = (sum(flagged), len(flagged))
    out.append(upd)
    return out


def contract_model(by_text: dict[str, Example]) -> ScriptedLlm:
    """A scripted model answering each sentence with its true label, in the schema."""

    def fact(e: Example, sentence: str) -> dict | None:
        base = dict(
            text=sentence, key=None, value=None, exact_value=False, about_user=True,
            needed_later_this_session=False, needed_in_future_sessions=False,
            changes_agent_behaviour=False, sensitive=False,
        )  # fmt: skip
        if e.preference:
            base.update(key=e.preference, value="x", exact_value=True)
            base["needed_in_future_sessions"] = True
        elif e.label in ("long_term", "update"):
            base.update(needed_in_future_sessions=True, replaces_earlier=e.label == "update")
        elif e.label == "session_state":
            base.update(needed_later_this_session=True)
        elif e.label in ("review", "forget_vague"):
            base.update(changes_agent_behaviour=True)
        elif e.label == "drop":
            base.update(sensitive=True)
        elif e.label == "forget":
            base.update(forget_request=True)
        else:
            return None
        return base

    def respond(request) -> str:
        text = request.contents[-1].parts[0].text
        facts = []
        for line in text.splitlines():
            if "] user: " in line:
                sentence = line.split("] user: ", 1)[1]
                example = by_text.get(sentence)
                made = fact(example, sentence) if example else None
                if made:
                    facts.append(made)
        return json.dumps({"facts": facts})

    return ScriptedLlm(responder=respond)


def event(text: str) -> Event:
    return Event(
        author="user",
        invocation_id="bench",
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        timestamp=datetime(2026, 11, 2, tzinfo=timezone.utc).timestamp(),
    )


async def run(split: str, router: LearnedExtractor, gated: GatedLlmExtractor) -> list[dict]:
    examples = [e for e in load_bank() if e.split == split]
    rules = RuleBasedExtractor()
    results: dict[str, list] = defaultdict(list)
    for e in examples:
        results["rules"].append((e, predicted(rules.extract_text(e.text))))
    routes = await router.route_sentences([(e.text, None) for e in examples])
    for e, r in zip(examples, routes, strict=True):
        results["offline router"].append((e, predicted(r.candidates)))
    for e in examples:
        results["LlmExtractor (scripted)"].append(
            (e, predicted(await gated.extract([event(e.text)])))
        )
    return table(results)


HARMLESS_NUMBERS = Path(__file__).resolve().parents[1] / "tests/routing/data/harmless_numbers.txt"


def harmless_numbers() -> list[str]:
    """Harmless sentences with numbers, in neither split of the bank (a check set)."""
    lines = HARMLESS_NUMBERS.read_text("utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.startswith("#")]


async def false_sensitive(router: LearnedRouter) -> dict:
    """How often the router calls a harmless sentence with a number sensitive."""
    texts = harmless_numbers()
    decisions = await router.classify(texts)
    vectors = await router._embed(texts)
    probs = router.head.predict_proba(router.features(texts, vectors))
    drop = probs[:, router.head.labels.index("drop")]
    return {
        "sentences": len(texts),
        "decided_drop": sum(d.label == "drop" for d in decisions),
        "max_p_drop": round(float(drop.max()), 3),
        "mean_p_drop": round(float(drop.mean()), 3),
    }


async def latency(router: LearnedExtractor, turns: int) -> dict:
    texts = [e.text for e in load_bank() if e.split == "heldout"]
    await router.extract([event(texts[0])])  # warm: model loaded, head trained
    one: list[float] = []
    three: list[float] = []
    one_cpu: list[float] = []
    for i in range(turns):
        for sink, text in (
            (one, texts[i % len(texts)]),
            (three, " ".join(texts[(i + k) % len(texts)] for k in range(3))),
        ):
            router.router._cache.clear()  # a new turn: no decision remembered (cold)
            cache = getattr(router.router.embedder, "cache", None)
            if cache is not None:
                cache.clear()  # nor any vector
            started, cpu = time.perf_counter(), time.process_time()
            await router.extract([event(text)])
            sink.append((time.perf_counter() - started) * 1000)
            if sink is one:  # CPU time of the process: what machine load inflates least
                one_cpu.append((time.process_time() - cpu) * 1000)

    def p95(xs: list[float]) -> float:
        return statistics.quantiles(xs, n=20)[-1]

    return {
        "p95_ms_one_sentence": p95(one),
        "p95_ms_three_sentences": p95(three),
        "p95_cpu_ms_one_sentence": p95(one_cpu),
    }


def show(split: str, rows: list[dict]) -> None:
    systems = [k for k in rows[0] if k != "home"]
    print(f"\n{split} split")
    print("| expected home | " + " | ".join(systems) + " |")
    print("|---|" + "---|" * len(systems))
    for row in rows:
        cells = []
        for s in systems:
            ok, n = row[s]
            cells.append(f"{ok} / {n} ({ok / n:.2f})" if n else "-")
        print(f"| {row['home']} | " + " | ".join(cells) + " |")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json", help="write the figures here")
    parser.add_argument("--turns", type=int, default=200, help="turns timed for the p95")
    args = parser.parse_args()
    router = LearnedExtractor(LearnedRouter.from_bank(split="tune"))
    by_text = {e.text: e for e in load_bank()}
    gated = GatedLlmExtractor(LlmExtractor(contract_model(by_text)), offline=router)
    out: dict = {}
    for split in ("tune", "heldout"):
        out[split] = await run(split, router, gated)
        show(split, out[split])
    print(f"\nmodel calls (scripted): {gated.calls}, failures: {gated.failures}")
    out["harmless_numbers"] = await false_sensitive(router.router)
    print("harmless sentences with numbers (router on the tune split): " + json.dumps(
        out["harmless_numbers"]))  # fmt: skip
    out["latency"] = await latency(LearnedExtractor(), args.turns)
    print("offline routing of one new turn (model warm, no decision cached): " + json.dumps(
        {k: round(v, 1) for k, v in out["latency"].items()}))  # fmt: skip
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=2)


if __name__ == "__main__":
    asyncio.run(main())
