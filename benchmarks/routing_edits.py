"""Updates and forget requests said in the conversation: the corpus figures of issue #29.

Usage::

    python benchmarks/routing_edits.py [--split heldout|tune|all] [--only updates|forgets]
    python benchmarks/routing_edits.py --split tune|heldout --judge-reach
    python benchmarks/routing_edits.py --split tune|heldout --conversation

Corpus: ``tests/routing/data/edits.jsonl`` (168 update scenarios: an old fact said
``gap_days`` before the statement that replaces it, a question; 24 plain facts; 229 forget
requests, precise / broad / vague, each with the memory it names and a neighbouring memory that
must survive). The split is the row's ``split`` field (the first rows: a quarter held out by
hash; rows added later: every other one). Each case runs for a fresh user on the embedded
PostgreSQL with the real MiniLM embedder: the old fact (or target and neighbour, plus
unrelated memories) is stored, the new sentence is routed by the offline router and applied by
``MemoryApplier`` with the conversation-edit handlers, then the question is searched; the
update's neighbour (a memory on a related subject, when the row has one) and the fillers must
stay current. Plain facts (``kind: plain``: no update, said beside a memory on a related
subject) are applied with ``replaces_earlier`` forced on: a false flag must supersede nothing
("unrelated memories wrongly superseded"). Each precise request runs again for a user who
never stored its target: nothing may be deleted (a weak match asks for a confirmation).
``--judge-reach`` measures only whether each precise or broad request's target is on the
shortlist a model judge (``ForgetJudge``) would be shown, among 35 memories of the user: the
ceiling of the judged path; no model is called.

``--conversation`` runs each update and precise or broad forget request as one conversation
through the default stack instead, as a user's agent would: a real ``Runner`` with
``MemoryRoutingPlugin()`` (nothing wired by hand) and ``DatabaseSessionService``, the old fact
(or the target) and the neighbour said as turns, then the new sentence (or the request);
then ``add_session_to_memory`` under the default write policy and ``search_memory`` with the
question. Whatever the router does with each turn counts (a preference lands in ``user:``
state: an update is then answered when the new turn changed that ``user:`` value). A
neighbour or filler missing at the end is replayed in the same conversation without the
update or request: when it is not stored there either, the router kept it out (not counted
as lost).
Figures and their reading: docs/routing.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import re
import sys
import uuid
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from google.adk.agents.llm_agent import LlmAgent  # noqa: E402
from google.adk.sessions.database_session_service import DatabaseSessionService  # noqa: E402

from adk_memory_kit import PgVectorMemoryService  # noqa: E402
from adk_memory_kit.core.markers import FORGET_STATE_KEY, PENDING_FORGET_KEY  # noqa: E402
from adk_memory_kit.db import embedded_db_url  # noqa: E402
from adk_memory_kit.routing import MemoryApplier, MemoryHome, MemoryRoutingPlugin  # noqa: E402
from adk_memory_kit.routing.apply import normalize_fact_text  # noqa: E402
from adk_memory_kit.routing.edits.conversation_edits import (  # noqa: E402
    ConversationEdits,
    conversation_edit_handlers,
)
from adk_memory_kit.routing.edits.forget_judge import ForgetJudge  # noqa: E402
from adk_memory_kit.routing.offline import LearnedExtractor  # noqa: E402
from adk_memory_kit.routing.rule import Candidate  # noqa: E402
from adk_memory_kit.testing import ScriptedLlm  # noqa: E402
from adk_memory_kit.text.sentences import split_sentences  # noqa: E402
from tests.support.routing import (  # noqa: E402
    Harness,  # noqa: E402
    make_context,
    store_facts,
    texts_of,
)

REACH_KINDS = ("forget_precise", "forget_broad")
CORPUS = ROOT / "tests" / "routing" / "data" / "edits.jsonl"
FILLER = [
    "I collect old film cameras.",
    "My brother lives in Toronto.",
    "We have a vegetable patch behind the house.",
]


def load(split: str, added: str | None = None, corpus: Path | None = None) -> list[dict]:
    """The corpus rows of ``split`` (``all``: every row; a row without a ``split`` field counts
    as held out), only those tagged ``added`` when given; ``corpus``: another file of the same
    shape (the default: the kit's own corpus)."""
    path = corpus or CORPUS
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    for row in rows:
        row.setdefault("split", "heldout")
    rows = [r for r in rows if added is None or r.get("added") == added]
    return [r for r in rows if split == "all" or r["split"] == split]


async def still_current(memory, app: str, user: str, texts: list[str]) -> set[str]:
    """Which of ``texts`` a default search (superseded memories left out) still returns."""
    left: set[str] = set()
    for query in texts:
        left.update(texts_of(await memory.search_memory(app_name=app, user_id=user, query=query)))
    return left & set(texts)


async def run_update(row, memory, router, applier, show: bool) -> dict:
    app, user = "edits", f"u-{uuid.uuid4().hex[:8]}"
    long_ago = datetime.now(timezone.utc) - timedelta(days=row.get("gap_days", 40))
    unrelated = [*([row["neighbour"]] if row.get("neighbour") else []), *FILLER]
    await store_facts(memory, app, user, [row["old"], *unrelated], long_ago)
    context = make_context(app=app, user=user, memory=memory)
    routes = await router.route_sentences([(row["new"], datetime.now(timezone.utc))])
    flagged = any(c.replaces_earlier for r in routes for c in r.candidates)
    for r in routes:
        for c in r.candidates:
            await applier.apply_one(c, context)
    found = await memory.search_memory(app_name=app, user_id=user, query=row["question"])
    texts = texts_of(found)
    past = await memory.search(
        app_name=app, user_id=user, query=row["question"], as_of=long_ago + timedelta(days=1)
    )
    # the new fact as the router words it (a capital, a full stop): ``_said`` finds it
    new_at, old_at = _said_any(row["new"], texts), _said(row["old"], texts)
    out = {
        "flagged": flagged,
        "current_first": new_at is not None and new_at < (len(texts) if old_at is None else old_at),
        "top1": new_at == 0,
        "as_of_old": row["old"] in texts_of(past),
        "unrelated_superseded": len(unrelated)
        - len(await still_current(memory, app, user, unrelated)),
        "unrelated": len(unrelated),
    }
    if show and not out["current_first"]:
        print(f"miss (update, flagged={flagged}): {row['new']!r} -> {texts[:3]}")
    return out


async def run_plain(row, memory, router, applier, show: bool) -> dict:
    """A plain fact (no update) said beside a related memory on another subject: how often the
    router flags it as an update, and what a flag would supersede: the fact is applied with
    ``replaces_earlier`` forced on, so the figure holds whatever the router decided."""
    app, user = "edits", f"u-{uuid.uuid4().hex[:8]}"
    unrelated = [row["neighbour"], *FILLER]
    await store_facts(memory, app, user, unrelated, datetime.now(timezone.utc) - timedelta(days=30))
    context = make_context(app=app, user=user, memory=memory)
    routes = await router.route_sentences([(row["new"], datetime.now(timezone.utc))])
    flagged = any(c.replaces_earlier for r in routes for c in r.candidates)
    for r in routes:
        for c in r.candidates:
            forced = replace(c, replaces_earlier=True) if c.needed_in_future_sessions else c
            await applier.apply_one(forced, context)
    kept = await still_current(memory, app, user, unrelated)
    if show and len(kept) < len(unrelated):
        print(f"miss (plain fact superseded an unrelated memory): {row['new']!r}")
    # the same fact as the router read it (not forced): linked to a memory on another subject?
    user = f"u-{uuid.uuid4().hex[:8]}"
    await store_facts(memory, app, user, unrelated, datetime.now(timezone.utc) - timedelta(days=30))
    context = make_context(app=app, user=user, memory=memory)
    linked = False
    for r in routes:
        for c in r.candidates:
            outcome = await applier.apply_one(c, context)
            linked = linked or (outcome is not None and outcome.detail.startswith("may update"))
    if show and linked:
        print(f"miss (plain fact linked to an unrelated memory): {row['new']!r}")
    return {
        "linked": linked,
        "flagged": flagged,
        "unrelated_superseded": len(unrelated) - len(kept),
        "unrelated": len(unrelated),
        "stored": _said(
            row["new"],
            texts_of(await memory.search_memory(app_name=app, user_id=user, query=row["new"])),
        )
        is not None,
    }


async def run_forget(row, memory, router, applier, show: bool, absent: bool = False) -> dict:
    """One forget request; ``absent``: the memory it names was never stored (nothing may go)."""
    app, user = "edits", f"u-{uuid.uuid4().hex[:8]}"
    held = [row["neighbour"], *FILLER] if absent else [row["target"], row["neighbour"], *FILLER]
    await store_facts(memory, app, user, held, datetime.now(timezone.utc))
    # each memory by its id (the top hit of its own text), so a target stored redacted ("My
    # PIN is [redacted]") is not counted gone because its text differs from the row's
    ids = {}
    for said in held:
        found = await memory.search_memory(app_name=app, user_id=user, query=said)
        ids[said] = str(found.memories[0].id) if found.memories else None
    context = make_context(app=app, user=user, memory=memory)
    routes = await router.route_sentences([(row["request"], None)])
    homes = {MemoryApplier().classify(c)[1] for r in routes for c in r.candidates}
    for r in routes:
        for c in r.candidates:
            if MemoryApplier().classify(c)[1] is MemoryHome.FORGET:
                await applier.apply_one(c, context)

    async def remaining() -> tuple[set[str], set[str]]:
        left, left_ids = set(), set()
        for query in (row["target"], row["neighbour"], *FILLER):
            found = await memory.search_memory(app_name=app, user_id=user, query=query)
            left.update(texts_of(found))
            left_ids.update(str(m.id) for m in found.memories)
        return left, left_ids

    left, left_ids = await remaining()

    def kept(said: str) -> bool:
        return ids.get(said) in left_ids if ids.get(said) else said in left

    out = {
        "routed_forget": MemoryHome.FORGET in homes,
        "routed_review": MemoryHome.PROCEDURAL_REVIEW in homes,
        "target_gone": not kept(row["target"]),
        "neighbour_kept": kept(row["neighbour"]) and all(kept(f) for f in FILLER),
        "stored_request": row["request"] in left,
        "confirm": bool((context.state.get(FORGET_STATE_KEY) or {}).get("needs_confirmation")),
        "state": context.state.get(FORGET_STATE_KEY),
    }
    # the user answers the agent's question truthfully: yes when what it shows holds the
    # memory they meant, else no (a later turn: the handler settles only then)
    pending = context.state.get(PENDING_FORGET_KEY) or {}
    if pending and applier.confirmation_handler is not None:
        later = make_context(app=app, user=user, memory=memory, state=dict(context.state.to_dict()))
        shown = list(pending.get("ids") or [])
        target = ids.get(row["target"])
        meant = not absent and target in shown
        await applier.confirmation_handler(later, [shown.index(target) + 1] if meant else False)
        left, left_ids = await remaining()
    out["target_gone_answered"] = not kept(row["target"])
    out["neighbour_kept_answered"] = kept(row["neighbour"]) and all(kept(f) for f in FILLER)
    expect_gone = row["kind"] != "forget_vague" and not absent
    if show and (
        (not absent and kept(row["target"]) == expect_gone)
        or row["request"] in left
        or not out["neighbour_kept"]
    ):
        what = f"{row['kind']}, target never stored" if absent else row["kind"]
        print(f"miss ({what}): {row['request']!r} state={out['state']}")
    return out


async def run_reach(row, memory, others: list[str], seed: int, show: bool) -> dict:
    """``--judge-reach``: whether the forget judge would be shown the row's target, among the
    target, its neighbour, the fillers and 30 other rows' targets stored for a fresh user.
    The judge's model is a recorder that answers nothing valid, so the offline decision
    stands; no model decides anything here (no figure of a model's choices is made up)."""
    app, user = "edits", f"u-{uuid.uuid4().hex[:8]}"
    rng = random.Random(seed)
    now = datetime.now(timezone.utc)
    await store_facts(memory, app, user, [row["target"]], now)
    # the target as stored (a secret in it is redacted on the way in)
    alone = await memory.search(app_name=app, user_id=user, query=row["target"], limit=1)
    target = (texts_of(alone) or [row["target"]])[0]
    pool = [row["neighbour"], *FILLER, *rng.sample(others, 30)]
    await store_facts(memory, app, user, pool, now)
    seen: list[list[str]] = []

    def record(request) -> str:
        body = request.contents[0].parts[0].text
        listed = body.split("<MEMORIES>\n", 1)[1].split("\n</MEMORIES>", 1)[0]
        seen.append([line.split(". ", 1)[1] for line in listed.splitlines()])
        return ""  # not a valid answer: the offline decision stands

    edits = ConversationEdits(forget_judge=ForgetJudge(ScriptedLlm(responder=record)))
    context = make_context(app=app, user=user, memory=memory)
    await edits.forget(Candidate(text=row["request"], forget_request=True), context)
    shown = seen[0] if seen else []
    if show and target not in shown:
        print(f"miss (not shown, {len(shown)} shown): {row['request']!r}")
    return {"shown": target in shown, "count": len(shown), "stored": bool(texts_of(alone))}


_DATED = re.compile(r"\s*\(\d{4}-\d{2}-\d{2}\)")


def _said(sentence: str, texts: list[str]) -> int | None:
    """The position in ``texts`` of the memory holding ``sentence`` as the router words it
    (a capital, a full stop, a resolved date in brackets); ``None``: not there."""
    wanted = normalize_fact_text(sentence)
    for i, text in enumerate(texts):
        if normalize_fact_text(_DATED.sub("", text)) == wanted:
            return i
    return None


def _said_any(text: str, texts: list[str]) -> int | None:
    """The first position in ``texts`` of a memory holding ``text`` or one of its sentences
    (the router stores each sentence of a message as its own memory)."""
    found = [i for s in [text, *split_sentences(text)] if (i := _said(s, texts)) is not None]
    return min(found, default=None)


async def _conversation(stack, turns: list[str]) -> tuple[Harness, list[dict]]:
    """A fresh user's session through the Runner: each turn said, the state after each."""
    sessions, memory, agent = stack
    user = f"u-{uuid.uuid4().hex[:8]}"
    h = Harness(agent, sessions, memory=memory, plugins=[MemoryRoutingPlugin()], user=user)
    await h.start()
    states = []
    for turn in turns:
        await h.turn(turn)
        states.append(await h.state())
    return h, states


async def _ingest(h: Harness) -> None:
    session = await h.sessions.get_session(app_name=h.app, user_id=h.user, session_id=h.session_id)
    await h.runner.memory_service.add_session_to_memory(session)


async def _stored(memory, h: Harness, sentence: str) -> bool:
    """Whether ``sentence`` is a current memory of ``h``'s user (searched by itself)."""
    found = await memory.search_memory(app_name=h.app, user_id=h.user, query=sentence)
    return _said(sentence, texts_of(found)) is not None


async def run_update_conversation(row, stack, show: bool) -> dict:
    """``--conversation``: the old fact, its neighbour and a filler, then the new sentence."""
    _, memory, _ = stack
    unrelated = [*([row["neighbour"]] if row.get("neighbour") else []), FILLER[0]]
    h, states = await _conversation(stack, [row["old"], *unrelated])
    between = datetime.now(timezone.utc)
    await h.turn(row["new"])
    after = await h.state()
    before = states[-1]
    in_state = any(
        k.startswith("user:pref_") and not k.endswith("_at") and after.get(k) != before.get(k)
        for k in after
    )
    await _ingest(h)
    found = await memory.search_memory(app_name=h.app, user_id=h.user, query=row["question"])
    texts = texts_of(found)
    new_at, old_at = _said_any(row["new"], texts), _said(row["old"], texts)
    past = texts_of(
        await memory.search(app_name=h.app, user_id=h.user, query=row["question"], as_of=between)
    )
    missing = [t for t in unrelated if not await _stored(memory, h, t)]
    if missing:  # never stored (the router sent it elsewhere), or superseded by the update?
        control, _ = await _conversation(stack, [row["old"], *unrelated])
        await _ingest(control)
        missing = [t for t in missing if await _stored(memory, control, t)]
    kept = len(unrelated) - len(missing)
    out = {
        "current_first": in_state or (new_at is not None and (old_at is None or new_at < old_at)),
        "in_state": in_state,
        "old_current": old_at is not None,
        "as_of_old": _said(row["old"], past) is not None,
        "unrelated_kept": kept,
        "unrelated": len(unrelated),
    }
    if show and not out["current_first"]:
        print(f"miss (update, conversation): {row['new']!r} -> {texts[:3]}")
    if show and missing:
        print(f"miss (update, conversation, unrelated lost): {row['new']!r} -> {missing}")
    return out


def _relay_memory_note(llm_request) -> str:
    """The scripted agent's reply: what the memory plugin told it (a forget request's outcome,
    the memories it asks about, numbered), as a real agent would relay it; else "Noted."."""
    told = str(llm_request.config.system_instruction or "")
    return told[told.index("[memory]") :] if "[memory]" in told else "Noted."


async def _forget_in_conversation(row, stack, answer: bool) -> tuple[Harness, bool, list[str]]:
    """The target, its neighbour and a filler, then the request; ``answer``: when the agent
    asks, the user answers truthfully (else the user moves on: "Thanks."). Returns the
    harness, whether a confirmation was asked, and what is left after ingestion."""
    _, memory, _ = stack
    h, _ = await _conversation(stack, [row["target"], row["neighbour"], FILLER[0]])
    replies = await h.turn(row["request"])
    state = await h.state()
    asked = bool((state.get(FORGET_STATE_KEY) or {}).get("needs_confirmation"))
    if state.get(PENDING_FORGET_KEY):
        reply = "Thanks."
        if answer:  # the agent showed the user what it found, numbered
            said = " ".join(p.text or "" for e in replies if e.content for p in e.content.parts)
            shown = [text for _, text in re.findall(r"(?m)^(\d)\. (.+)$", said)]
            meant = next(
                (i for i, text in enumerate(shown) if _said(row["target"], [text]) == 0), None
            )
            ordinal = ("The first one.", "The second one.", "The third one.")
            reply = ordinal[meant] if meant is not None and meant < 3 else "No, keep it."
        await h.turn(reply)
    await _ingest(h)
    left: list[str] = []
    for query in (row["target"], row["neighbour"], FILLER[0], row["request"]):
        left += texts_of(await memory.search_memory(app_name=h.app, user_id=h.user, query=query))
    return h, asked, left


async def run_forget_conversation(row, stack, show: bool) -> dict:
    """``--conversation``: the target, its neighbour and a filler, then the request; once
    with the user moving on when asked, once answering the agent's question truthfully."""
    _, memory, _ = stack
    _, _, unanswered = await _forget_in_conversation(row, stack, answer=False)
    h, asked, left = await _forget_in_conversation(row, stack, answer=True)
    kept = _said(row["neighbour"], left) is not None
    if not kept:  # never stored (the router sent it elsewhere), or deleted by the request?
        control, _ = await _conversation(stack, [row["target"], row["neighbour"], FILLER[0]])
        await _ingest(control)
        kept = not await _stored(memory, control, row["neighbour"])
    out = {
        "target_gone_at_once": _said(row["target"], unanswered) is None,
        "target_gone": _said(row["target"], left) is None,
        "neighbour_kept": kept,
        "stored_request": _said(row["request"], left) is not None,
        "confirm": asked,
    }
    if show and (not out["target_gone"] or out["stored_request"] or not kept):
        lost = "" if kept else ", neighbour lost"
        stored = ", request stored" if out["stored_request"] else ""
        print(f"miss ({row['kind']}, conversation{lost}{stored}): {row['request']!r}")
    return out


async def conversation_figures(
    split: str, added: str | None, only: str, show: bool, corpus: Path | None = None
) -> None:
    url = embedded_db_url()
    sessions = DatabaseSessionService(db_url=url)
    memory = PgVectorMemoryService(url)
    agent = LlmAgent(name="helper", model=ScriptedLlm(responder=_relay_memory_note))
    stack = (sessions, memory, agent)
    rows = load(split, added, corpus)
    updates = [
        await run_update_conversation(r, stack, show)
        for r in rows
        if r["kind"] == "update" and only != "forgets"
    ]
    forgets: dict[str, list] = {}
    for r in rows:
        if r["kind"] in REACH_KINDS and only != "updates":
            out = await run_forget_conversation(r, stack, show)
            forgets.setdefault(r["kind"].removeprefix("forget_"), []).append(out)
    await memory.close()
    await sessions.close()

    def rate(xs, key):
        return f"{sum(x[key] for x in xs)} / {len(xs)}"

    print(f"split: {split}, each case one conversation through the Runner")
    if updates:
        kept = sum(x["unrelated_kept"] for x in updates)
        print(
            "| updates | current fact above the old (of which in user: state) | old fact still "
            "current | as_of reaches the old | unrelated memories still current |"
        )
        print("|---|---|---|---|---|")
        print(
            f"| {len(updates)} | {rate(updates, 'current_first')} "
            f"({sum(x['in_state'] for x in updates)}) | {rate(updates, 'old_current')} | "
            f"{rate(updates, 'as_of_old')} | {kept} / {sum(x['unrelated'] for x in updates)} |"
        )
    if forgets:
        print(
            "\n| forget requests | target gone (user not answering) | target gone after the "
            "answer | neighbour kept | confirmation asked | request stored |"
        )
        print("|---|---|---|---|---|---|")
        for kind, xs in forgets.items():
            print(
                f"| {kind} ({len(xs)}) | {rate(xs, 'target_gone_at_once')} | "
                f"{rate(xs, 'target_gone')} | "
                f"{rate(xs, 'neighbour_kept')} | {rate(xs, 'confirm')} | "
                f"{rate(xs, 'stored_request')} |"
            )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", default="heldout", choices=("heldout", "tune", "all"))
    parser.add_argument(
        "--show-misses", action="store_true", help="print each case that misses (tune only)"
    )
    parser.add_argument("--only", default="all", choices=("updates", "forgets", "all"))
    parser.add_argument("--added", default=None, help="only the rows with this `added` tag")
    parser.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="another corpus of the same JSON-lines shape (rows without `split` count as "
        "held out): how to run cases of your own",
    )
    parser.add_argument(
        "--judge-reach",
        action="store_true",
        help="only: how often a forget request's target is on the shortlist the model judge "
        "is shown, among 35 memories (no model is called)",
    )
    parser.add_argument(
        "--conversation",
        action="store_true",
        help="run each update and precise or broad forget request as one conversation through "
        "the Runner with MemoryRoutingPlugin(), then add_session_to_memory and search_memory",
    )
    args = parser.parse_args()
    if args.conversation:
        await conversation_figures(args.split, args.added, args.only, args.show_misses, args.corpus)
        return
    memory = PgVectorMemoryService(embedded_db_url())
    if args.judge_reach:
        logging.getLogger("adk_memory_kit.routing.edits").setLevel(logging.ERROR)
        rows = [r for r in load(args.split, args.added, args.corpus) if r["kind"] in REACH_KINDS]
        reach = [
            await run_reach(
                r, memory, [x["target"] for x in rows if x is not r], i, args.show_misses
            )
            for i, r in enumerate(rows)
        ]
        await memory.close()
        print(f"split: {args.split}")
        print(
            "| forget requests (precise + broad) | target stored | target on the judge's "
            "shortlist | memories shown (mean) |"
        )
        print("|---|---|---|---|")
        mean = sum(x["count"] for x in reach) / max(len(reach), 1)
        print(
            f"| {len(reach)} | {sum(x['stored'] for x in reach)} / {len(reach)} | "
            f"{sum(x['shown'] for x in reach)} / {len(reach)} | {mean:.1f} |"
        )
        return
    router = LearnedExtractor()
    applier = MemoryApplier(**conversation_edit_handlers())
    rows = load(args.split, args.added, args.corpus)
    updates = [
        await run_update(r, memory, router, applier, args.show_misses)
        for r in rows
        if r["kind"] == "update" and args.only != "forgets"
    ]
    plains = [
        await run_plain(r, memory, router, applier, args.show_misses)
        for r in rows
        if r["kind"] == "plain" and args.only != "forgets"
    ]
    forgets: dict[str, list] = {}
    for r in rows:
        if r["kind"].startswith("forget_") and args.only != "updates":
            out = await run_forget(r, memory, router, applier, args.show_misses)
            forgets.setdefault(r["kind"].removeprefix("forget_"), []).append(out)
    for r in rows:  # the same precise requests for a user who never said what they name
        if r["kind"] == "forget_precise" and args.only != "updates":
            out = await run_forget(r, memory, router, applier, args.show_misses, absent=True)
            forgets.setdefault("precise, target never stored", []).append(out)
    await memory.close()

    def rate(xs, key):
        return f"{sum(x[key] for x in xs)} / {len(xs)}"

    print(f"split: {args.split}" + (f" (rows added by {args.added})" if args.added else ""))
    if updates:
        print(
            "| updates | flagged as update | current fact above the old | current fact top-1 | "
            "as_of reaches the old |"
        )
        print("|---|---|---|---|---|")
        print(
            f"| {len(updates)} | {rate(updates, 'flagged')} | {rate(updates, 'current_first')} | "
            f"{rate(updates, 'top1')} | {rate(updates, 'as_of_old')} |"
        )
    if plains or updates:

        def wrong(xs):
            superseded = sum(x["unrelated_superseded"] for x in xs)
            return f"{superseded} / {sum(x['unrelated'] for x in xs)}"

        print(
            "\n| unrelated memories wrongly superseded | by the updates | by plain facts "
            "forced to count as updates | plain facts flagged as updates | plain facts stored "
            "| plain facts linked to an unrelated memory |"
        )
        print("|---|---|---|---|---|---|")
        print(
            f"| {wrong(updates + plains)} | {wrong(updates)} | {wrong(plains)} | "
            f"{rate(plains, 'flagged')} | {rate(plains, 'stored')} | {rate(plains, 'linked')} |"
        )
    if not forgets:
        return
    print("\n| forget requests | routed to forget | routed to review | confirmation asked | "
          "target gone | neighbours kept | request stored | target gone after the answer | "
          "neighbours kept after the answer |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for kind, xs in forgets.items():
        print(
            f"| {kind} ({len(xs)}) | {rate(xs, 'routed_forget')} | {rate(xs, 'routed_review')} | "
            f"{rate(xs, 'confirm')} | "
            f"{rate(xs, 'target_gone')} | {rate(xs, 'neighbour_kept')} | "
            f"{rate(xs, 'stored_request')} | {rate(xs, 'target_gone_answered')} | "
            f"{rate(xs, 'neighbour_kept_answered')} |"
        )


if __name__ == "__main__":
    asyncio.run(main())
