"""LoCoMo retrieval benchmark: memory services side by side, in one run.

Usage::

    ADK_MEMORY_KIT_HOME=$(mktemp -d) python benchmarks/locomo_retrieval.py locomo_dev.json \
        [--services pgvector,inmemory,sqlite] [--limit-conversations N] [--json OUT]

One user per conversation, one ADK session per LoCoMo session, one event per turn (author =
speaker, timestamp = the session's date, an image's ``blip_caption`` appended to the text).
Every question of categories 1-4 with evidence is asked with ``search_memory``; results are
mapped back to dialogue ids. Recall@k of a question is the fraction of its evidence ids in
the top k, averaged over questions; NDCG@10 uses binary relevance. Conversations 0-3 are the
tuning split, the rest are held out. After the run, everything is ingested into
PgVectorMemoryService again to show that figures and row count do not change.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from google.adk.events.event import Event
from google.adk.memory.base_memory_service import BaseMemoryService
from google.adk.sessions.session import Session
from google.genai import types

APP = "locomo-bench"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
TUNE_CONVERSATIONS = 4  # conversations 0-3 tune, 4+ are held out
K = 10
DEPTH = K  # --depth: rows asked for (and dumped); metrics use the first K
_DIA = re.compile(r"D:?(\d+):0*(\d+)")


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- data
@dataclass
class Question:
    conv: int
    user_id: str
    text: str
    category: int
    evidence: list[str]


@dataclass
class Conversation:
    index: int
    user_id: str
    sessions: list[Session]
    event_to_dia: dict[str, str] = field(default_factory=dict)


def parse_date(value: str) -> datetime:
    """``1:56 pm on 8 May, 2023`` -> aware datetime (UTC)."""
    return datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=timezone.utc)


def parse_evidence(raw: Sequence[str]) -> list[str]:
    """Normalise evidence ids: ``D8:6; D9:17`` -> two ids, ``D:11:26`` -> ``D11:26``,
    ``D30:05`` -> ``D30:5``; anything without a session and turn number is dropped."""
    out: list[str] = []
    for item in raw:
        for s, t in _DIA.findall(str(item)):
            dia = f"D{int(s)}:{int(t)}"
            if dia not in out:
                out.append(dia)
    return out


def event_id_for(user_id: str, dia_id: str) -> str:
    return f"{user_id}.{dia_id.replace(':', '.')}"


def load(path: str, limit: int | None) -> tuple[list[Conversation], list[Question], int]:
    """Build ADK sessions and the question list; returns the count of dropped evidence ids."""
    records = json.loads(Path(path).read_text())
    if limit is not None:
        records = records[:limit]
    convs: list[Conversation] = []
    questions: list[Question] = []
    dropped = 0
    for ci, rec in enumerate(records):
        user_id = str(rec["sample_id"])
        c = rec["conversation"]
        conv = Conversation(ci, user_id, [])
        nums = sorted(
            int(k.split("_")[1])
            for k, v in c.items()
            if re.fullmatch(r"session_\d+", k) and isinstance(v, list)
        )
        for n in nums:
            when = parse_date(c[f"session_{n}_date_time"])
            events = []
            for turn in c[f"session_{n}"]:
                text = turn["text"]
                if turn.get("blip_caption"):
                    text = f"{text} [shares an image: {turn['blip_caption']}]"
                eid = event_id_for(user_id, turn["dia_id"])
                conv.event_to_dia[eid] = parse_evidence([turn["dia_id"]])[0]
                events.append(
                    Event(
                        id=eid,
                        invocation_id=f"session_{n}",
                        author=turn["speaker"],
                        timestamp=when.timestamp(),
                        content=types.Content(role="user", parts=[types.Part(text=text)]),
                    )
                )
            conv.sessions.append(
                Session(
                    id=f"session_{n}",
                    app_name=APP,
                    user_id=user_id,
                    events=events,
                    last_update_time=when.timestamp(),
                )
            )
        known = set(conv.event_to_dia.values())
        for qa in rec["qa"]:
            if qa.get("category") not in CATEGORIES or not qa.get("evidence"):
                continue
            ev = parse_evidence(qa["evidence"])
            dropped += sum(e not in known for e in ev)
            ev = [e for e in ev if e in known]
            if ev:
                questions.append(Question(ci, user_id, qa["question"], qa["category"], ev))
        convs.append(conv)
    return convs, questions, dropped


# ---------------------------------------------------------------------------- services
@dataclass
class ServiceSpec:
    name: str
    make: Callable[[], BaseMemoryService]
    limit_kw: bool  # search_memory accepts limit=


def _kv(pairs: Sequence[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, _, value = pair.partition("=")
        out[key] = json.loads(value)
    return out


def service_specs(args: argparse.Namespace, tmp: str) -> dict[str, ServiceSpec]:
    from google.adk.memory._sqlite_memory_service import SqliteMemoryService
    from google.adk.memory.in_memory_memory_service import InMemoryMemoryService

    from adk_memory_kit import PgVectorMemoryService
    from adk_memory_kit.core.session_policy import WritePolicy
    from adk_memory_kit.memory import IndexingOptions, SearchOptions

    def pg(policy: WritePolicy = WritePolicy.FULL_TRANSCRIPT) -> BaseMemoryService:
        return PgVectorMemoryService.from_url(
            search=SearchOptions(**_kv(args.search_option)),
            indexing=IndexingOptions(**_kv(args.indexing_option)),
            write_policy=policy,
        )

    return {
        # LoCoMo is episodic recall of everything two people said: the full-transcript mode
        "pgvector": ServiceSpec("PgVectorMemoryService", pg, True),
        # the kit's default write policy on the same data (filler, fact-less questions,
        # sensitive sentences left out); see docs/write_policy.md
        "pgvector_routed": ServiceSpec(
            "PgVectorMemoryService (routed)", lambda: pg(WritePolicy.ROUTED), True
        ),
        "inmemory": ServiceSpec("ADK InMemoryMemoryService", InMemoryMemoryService, False),
        "sqlite": ServiceSpec(
            "ADK SqliteMemoryService (FTS5)",
            lambda: SqliteMemoryService(os.path.join(tmp, "memory.db")),
            False,
        ),
    }


async def routed_sessions(convs: list[Conversation], cache: str | None) -> list[Conversation]:
    """The conversations as the default (routed) write policy stores them: each session's
    events reduced by ``select_events`` (what ``add_session_to_memory`` does under ROUTED
    before indexing, index-only keys included). Ingesting these under FULL_TRANSCRIPT writes
    the same rows, so index-time variants need not re-run the policy; ``cache`` keeps them
    between runs (pickle; a cache of another format is recomputed)."""
    import pickle

    from adk_memory_kit.core.session_policy import WritePolicy
    from adk_memory_kit.routing.write_policy import RoutedOptions, select_events

    if cache and os.path.exists(cache):
        with open(cache, "rb") as fh:
            loaded = pickle.load(fh)
        if isinstance(loaded, dict) and loaded.get("format") == ROUTED_CACHE_FORMAT:
            return loaded["conversations"]
        log(f"  {cache} holds an older selection format: recomputing it")
    out: list[Conversation] = []
    for conv in convs:
        sessions = []
        for session in conv.sessions:
            events = list(session.events)
            kept = await select_events(
                session, events, WritePolicy.ROUTED, RoutedOptions(), index_context=True
            )
            sessions.append(session.model_copy(update={"events": kept}))
        out.append(Conversation(conv.index, conv.user_id, sessions, conv.event_to_dia))
        log(f"  routed selection of {conv.user_id} done")
    if cache:
        with open(cache, "wb") as fh:
            pickle.dump({"format": ROUTED_CACHE_FORMAT, "conversations": out}, fh)
    return out


#: Format of the --routed-cache pickle (2: with the policy's index-only keys).
ROUTED_CACHE_FORMAT = 2


# ---------------------------------------------------------------------------- scoring
def recall(ranked: list[str], evidence: list[str], k: int) -> float:
    return len(set(ranked[:k]) & set(evidence)) / len(evidence)


def ndcg(ranked: list[str], evidence: list[str], k: int) -> float:
    rel = set(evidence)
    dcg = sum(1 / math.log2(i + 2) for i, d in enumerate(ranked[:k]) if d in rel)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(rel), k)))
    return dcg / ideal


def scores_of(entry: Any) -> dict[str, Any]:
    """The score parts a returned entry carries, its session and event (PgVector only)."""
    meta = entry.custom_metadata or {}
    return {
        **dict(meta.get("scores") or {}),
        "sid": meta.get("session_id"),
        "eid": meta.get("event_id"),
    }


def dia_of(entry: Any, conv: Conversation) -> str | None:
    meta = entry.custom_metadata or {}
    for key in (meta.get("event_id"), entry.id):
        if key in conv.event_to_dia:
            return conv.event_to_dia[key]
    return None


async def ingest(service: BaseMemoryService, convs: list[Conversation], label: str) -> float:
    start = time.perf_counter()
    total = sum(len(c.sessions) for c in convs)
    done = 0
    for conv in convs:
        for session in conv.sessions:
            await service.add_session_to_memory(session)
            done += 1
        log(
            f"  [{label}] ingested {conv.user_id} ({done}/{total} sessions, "
            f"{time.perf_counter() - start:.1f}s)"
        )
    return time.perf_counter() - start


async def run_queries(
    service: BaseMemoryService,
    spec: ServiceSpec,
    convs: list[Conversation],
    questions: list[Question],
    label: str,
    dump: list[list[dict[str, Any]]] | None = None,
) -> tuple[list[list[str]], list[float]]:
    ranked_all: list[list[str]] = []
    latencies: list[float] = []
    for i, q in enumerate(questions):
        kwargs: dict[str, Any] = {"app_name": APP, "user_id": q.user_id, "query": q.text}
        if spec.limit_kw:
            kwargs["limit"] = max(K, DEPTH)
        start = time.perf_counter()
        response = await service.search_memory(**kwargs)
        latencies.append((time.perf_counter() - start) * 1000)
        ranked: list[str] = []
        for entry in response.memories:
            dia = dia_of(entry, convs[q.conv])
            if dia and dia not in ranked:
                ranked.append(dia)
        ranked_all.append(ranked[:K])
        if dump is not None:
            dump.append(
                [{"dia": dia_of(e, convs[q.conv]), **scores_of(e)} for e in response.memories]
            )
        if (i + 1) % 200 == 0 or i + 1 == len(questions):
            log(f"  [{label}] {i + 1}/{len(questions)} questions")
    return ranked_all, latencies


def summarize(questions: list[Question], ranked: list[list[str]]) -> dict[str, Any]:
    """Metrics for each split (all / tune / held-out) and category."""
    groups: dict[str, list[tuple[Question, list[str]]]] = defaultdict(list)
    for q, r in zip(questions, ranked, strict=True):
        split = "tune" if q.conv < TUNE_CONVERSATIONS else "heldout"
        for key in ("all", split, f"all/cat{q.category}", f"{split}/cat{q.category}"):
            groups[key].append((q, r))
    out: dict[str, Any] = {}
    for key, items in sorted(groups.items()):
        out[key] = {
            "n": len(items),
            "recall@5": statistics.fmean(recall(r, q.evidence, 5) for q, r in items),
            "recall@10": statistics.fmean(recall(r, q.evidence, 10) for q, r in items),
            "ndcg@10": statistics.fmean(ndcg(r, q.evidence, 10) for q, r in items),
        }
    return out


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(p / 100 * len(s)) - 1))]


async def count_rows(service: Any, convs: list[Conversation]) -> int:
    total = 0
    for conv in convs:
        counts = await service.count_memories(app_name=APP, user_id=conv.user_id)
        total += sum(counts.values())
    return total


async def policy_reasons(service: Any, convs: list[Conversation]) -> dict[str, int]:
    """Per reason, how many sentences the service's write policy kept or left out."""
    from adk_memory_kit.core.session_policy import WritePolicy
    from adk_memory_kit.routing.write_policy import select_events

    config = getattr(service, "config", None)
    if getattr(config, "write_policy", None) is not WritePolicy.ROUTED:
        return {}
    counts: dict[str, int] = defaultdict(int)
    for conv in convs:
        for session in conv.sessions:
            verdicts: list[Any] = []
            events = list(session.events)
            await select_events(
                session, events, WritePolicy.ROUTED, service.config.routed_options, verdicts
            )
            for v in verdicts:
                counts[v.reason] += 1
    return dict(sorted(counts.items()))


# ---------------------------------------------------------------------------- report
def markdown(results: dict[str, Any], questions: list[Question]) -> str:
    lines = [
        "| Service | Split | Questions | Recall@5 | Recall@10 | NDCG@10 | p50 ms | p95 ms "
        "| Ingest s |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, res in results.items():
        for split, label in (("all", "all"), ("tune", "tune (0-3)"), ("heldout", "held-out")):
            m = res["metrics"].get(split)
            if not m:
                continue
            lat = res["latency_ms"] if split == "all" else {"p50": None, "p95": None}
            ing = f"{res['ingest_s']:.1f}" if split == "all" else ""
            p50 = f"{lat['p50']:.1f}" if lat["p50"] is not None else ""
            p95 = f"{lat['p95']:.1f}" if lat["p95"] is not None else ""
            lines.append(
                f"| {name} | {label} | {m['n']} | {m['recall@5']:.3f} | {m['recall@10']:.3f} "
                f"| {m['ndcg@10']:.3f} | {p50} | {p95} | {ing} |"
            )
    lines += [
        "",
        "Recall@10 by category (R@5 / R@10 / NDCG@10, all conversations; tune / held-out R@10):",
        "",
        "| Service | " + " | ".join(f"{c} {n}" for c, n in CATEGORIES.items()) + " |",
        "|---|" + "---:|" * len(CATEGORIES),
    ]
    for name, res in results.items():
        cells = []
        for c in CATEGORIES:
            m = res["metrics"].get(f"all/cat{c}")
            if not m:
                cells.append("")
                continue
            t = res["metrics"].get(f"tune/cat{c}", {}).get("recall@10")
            h = res["metrics"].get(f"heldout/cat{c}", {}).get("recall@10")
            split = " / ".join(f"{x:.2f}" if x is not None else "-" for x in (t, h))
            cells.append(
                f"{m['recall@5']:.2f} / **{m['recall@10']:.2f}** / {m['ndcg@10']:.2f} "
                f"({split}; n={m['n']})"
            )
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- main
async def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", help="path to the LoCoMo JSON (e.g. locomo_dev.json)")
    parser.add_argument(
        "--services",
        default="pgvector,inmemory,sqlite",
        help="comma-separated subset of pgvector,inmemory,sqlite,pgvector_routed "
        "(pgvector = full-transcript write policy; pgvector_routed = the default routed one)",
    )
    parser.add_argument(
        "--routed",
        action="store_true",
        help="also run PgVectorMemoryService under the default (routed) write policy and "
        "report it beside the full-transcript figures",
    )
    parser.add_argument("--limit-conversations", type=int, default=None)
    parser.add_argument(
        "--split",
        choices=("all", "tune", "heldout"),
        default="all",
        help="ingest and ask only the tuning conversations (0-3) or the held-out ones (4+)",
    )
    parser.add_argument("--json", dest="json_out", default=None, help="write results here")
    parser.add_argument(
        "--routed-cache",
        nargs="?",
        const="",
        default=None,
        metavar="PATH",
        help="pgvector_routed: run the routed policy's selection once (kept in PATH if "
        "given) and ingest its events, instead of running the policy on every ingestion",
    )
    parser.add_argument(
        "--read-variants",
        default=None,
        metavar="JSON",
        help="after the run, ask every question again with these SearchOptions overrides, "
        'e.g. \'{"floor off": {"relevance_floor": false}}\' (same ingestion)',
    )
    parser.add_argument(
        "--dump",
        default=None,
        help="write every question's returned entries (turn id, score parts) here, for "
        "calibrating the relevance floor (the last service run)",
    )
    parser.add_argument(
        "--no-reingest", action="store_true", help="skip the PgVector re-ingestion check"
    )
    parser.add_argument(
        "--reuse",
        action="store_true",
        help="keep PgVector rows from an earlier run (unchanged rows are not re-embedded)",
    )
    parser.add_argument(
        "--search-option",
        action="append",
        default=[],
        metavar="KEY=JSON",
        help="override a SearchOptions field of PgVectorMemoryService (repeatable)",
    )
    parser.add_argument(
        "--indexing-option",
        action="append",
        default=[],
        metavar="KEY=JSON",
        help="override an IndexingOptions field of PgVectorMemoryService (repeatable)",
    )
    parser.add_argument(
        "--depth",
        type=int,
        default=K,
        help="ask search_memory for this many rows (the dump holds them; metrics use the top 10)",
    )
    parser.add_argument(
        "--rls",
        choices=("on", "off"),
        default=None,
        help="row-level security (ADK_MEMORY_KIT_RLS; default: the kit's default, off)",
    )
    args = parser.parse_args(argv)
    if args.rls:
        os.environ["ADK_MEMORY_KIT_RLS"] = args.rls
    global DEPTH
    DEPTH = max(K, args.depth)

    convs, questions, dropped = load(args.data, args.limit_conversations)
    if args.split != "all":
        tune = args.split == "tune"
        questions = [q for q in questions if (q.conv < TUNE_CONVERSATIONS) == tune]
    turns = sum(len(c.event_to_dia) for c in convs)
    log(
        f"{len(convs)} conversations, {sum(len(c.sessions) for c in convs)} sessions, "
        f"{turns} turns, {len(questions)} questions (categories 1-4 with evidence; "
        f"{dropped} evidence ids not in the dialogue dropped)"
    )

    tmp = tempfile.mkdtemp(prefix="locomo_bench_")
    specs = service_specs(args, tmp)
    wanted = [s.strip() for s in args.services.split(",") if s.strip()]
    if args.routed and "pgvector_routed" not in wanted:
        wanted.append("pgvector_routed")
    unknown = set(wanted) - set(specs)
    if unknown:
        parser.error(f"unknown services {sorted(unknown)}; choose from {sorted(specs)}")

    results: dict[str, Any] = {}
    read_variants: dict[str, dict[str, Any]] = json.loads(args.read_variants or "{}")
    for key in wanted:
        spec = specs[key]
        log(f"== {spec.name}")
        service: Any = spec.make()  # PgVector attributes are read below
        ingest_convs = convs
        if key == "pgvector_routed" and args.routed_cache is not None:
            # the routed policy's selection, computed once (see routed_sessions)
            from adk_memory_kit.core.session_policy import WritePolicy

            ingest_convs = await routed_sessions(convs, args.routed_cache or None)
            # a cache made from more conversations than this run loads
            ingest_convs = ingest_convs[: len(convs)]
            service.pipeline.config = service.config.model_copy(
                update={"write_policy": WritePolicy.FULL_TRANSCRIPT}
            )
        asked = {q.conv for q in questions}
        ingest_convs = [c for c in ingest_convs if c.index in asked]
        if key.startswith("pgvector") and not args.reuse:
            for conv in convs:  # a clean slate, so ingestion time means something
                await service.delete_user_memories(app_name=APP, user_id=conv.user_id)
        if key.startswith("pgvector"):
            await service.search_memory(app_name=APP, user_id="warmup", query="warm up")
        ingest_s = await ingest(service, ingest_convs, key)
        dump: list[list[dict[str, Any]]] | None = [] if args.dump else None
        ranked, lat = await run_queries(service, spec, convs, questions, key, dump)
        if dump is not None:
            Path(args.dump).write_text(
                json.dumps(
                    [
                        {"conv": q.conv, "category": q.category, "evidence": q.evidence, "got": d}
                        for q, d in zip(questions, dump, strict=True)
                    ]
                )
            )
        res: dict[str, Any] = {
            "ingest_s": ingest_s,
            "latency_ms": {"p50": pct(lat, 50), "p95": pct(lat, 95)},
            "metrics": summarize(questions, ranked),
        }
        results[spec.name] = res  # first in the report, before its read-time variants
        if key.startswith("pgvector"):
            base = service.store.search_options
            for vname, overrides in read_variants.items():
                service.store.search_options = base.model_copy(update=overrides)
                vranked, vlat = await run_queries(service, spec, convs, questions, vname)
                results[f"{spec.name} [{vname}]"] = {
                    "ingest_s": 0.0,
                    "latency_ms": {"p50": pct(vlat, 50), "p95": pct(vlat, 95)},
                    "metrics": summarize(questions, vranked),
                }
            service.store.search_options = base
            res["rows"] = await count_rows(service, convs)
            res["sentences"] = await policy_reasons(service, convs)
        if key.startswith("pgvector") and not args.no_reingest:
            rows = await count_rows(service, convs)
            log("== PgVectorMemoryService: ingest everything again")
            again_s = await ingest(service, ingest_convs, "pgvector re-ingest")
            rows_again = await count_rows(service, convs)
            ranked_again, _ = await run_queries(
                service, spec, convs, questions, "pgvector re-ingest"
            )
            res["reingest"] = {
                "seconds": again_s,
                "rows_before": rows,
                "rows_after": rows_again,
                "rankings_identical": ranked_again == ranked,
                "metrics_identical": summarize(questions, ranked_again) == res["metrics"],
            }
        if hasattr(service, "close"):
            await service.close()
        m = res["metrics"]["all"]
        log(
            f"   R@5 {m['recall@5']:.3f}  R@10 {m['recall@10']:.3f}  NDCG@10 {m['ndcg@10']:.3f}"
            f"  p95 {res['latency_ms']['p95']:.1f} ms"
        )

    print(markdown(results, questions))
    for name, res in results.items():
        if "reingest" in res:
            r = res["reingest"]
            print(
                f"\nRe-ingesting everything into {name}: {r['seconds']:.1f}s, rows "
                f"{r['rows_before']} -> {r['rows_after']}, rankings identical: "
                f"{r['rankings_identical']}, metrics identical: {r['metrics_identical']}"
            )
    for name, res in results.items():
        if "rows" in res:
            why = ", ".join(f"{n} {r}" for r, n in res.get("sentences", {}).items())
            print(f"\n{name}: {res['rows']} rows stored" + (f"; sentences: {why}" if why else ""))
    print(
        f"\n{len(convs)} conversations, {turns} turns, {len(questions)} questions; "
        f"latency is per search_memory call (PgVector: query embedding included)."
    )
    if args.json_out:
        Path(args.json_out).write_text(
            json.dumps(
                {
                    "conversations": len(convs),
                    "turns": turns,
                    "questions": len(questions),
                    "search_options": args.search_option,
                    "indexing_options": args.indexing_option,
                    "results": results,
                },
                indent=2,
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
