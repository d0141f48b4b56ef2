"""Bad input across the public APIs: every input gets a clear kit error or a sane result.

Usage::

    python benchmarks/bad_input.py [--db-url URL] [--json OUT]

Tries a few hundred malformed inputs (ids that are empty, too long for a btree, with NUL
bytes or lone surrogates; metadata nested 5,000 deep, circular, with a ``__str__`` that
raises; embedders returning the wrong dimension, NaN, infinity, ``None``, too few vectors,
or raising; malformed database URLs; bad review-queue, search, forget, closer and idle-job
arguments; search filters, pin, purge_stale and correct_memory; every public constructor's
numbers (NaN, infinities, wrong types, out of range); the episodic log's calls; every tool
of every toolset called with wrong types, which must answer a tool error, never raise)
against the real PostgreSQL (the embedded server unless ``--db-url`` or
``ADK_MEMORY_KIT_DB_URL``). Each outcome is counted as:

* **clear error**: a kit error (``MemoryKitError``) whose message holds none of the input's
  marker text;
* **sane result**: the call returned and its result passed the case's check;
* **raw error**: anything else (another exception type, a wrong result, a bad value a
  constructor accepted, user text in the message, a message over 600 characters: an echo
  of a long value). The goal is 0.

Every log record (any logger, DEBUG included for the kit) is checked for the marker: the
run prints how many held user text (goal: 0).

After each area the store must still work (a write and a search of a canary fact); a broken
store counts as a raw error. Prints the README's table.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import logging
import math
import secrets
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from google.adk.events.event import Event  # noqa: E402
from google.adk.memory.memory_entry import MemoryEntry  # noqa: E402
from google.adk.sessions.database_session_service import DatabaseSessionService  # noqa: E402
from google.adk.sessions.session import Session  # noqa: E402
from google.genai import types  # noqa: E402

from adk_memory_kit.errors import MemoryKitError  # noqa: E402

MARK = "zzsecretmark"  # planted in every input's text; must never appear in an error message
LONG = MARK + "y" * 100_000  # a long value: no message may quote it (nor be this long)
MAX_MESSAGE = 600  # a kit error message longer than this counts as an echo


class LeakCatcher(logging.Handler):
    """Counts log records (any logger, any level) whose text holds the marker."""

    def __init__(self) -> None:
        super().__init__(level=logging.DEBUG)
        self.leaks: list[str] = []
        self.records = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.records += 1
        try:
            text = record.getMessage()
        except Exception:  # noqa: BLE001 - a record that cannot format holds no text
            return
        if record.exc_info and record.exc_info[1] is not None:
            text += str(record.exc_info[1])
        if MARK in text:
            self.leaks.append(f"{record.name}: {text[:80]!r}")


LOGS = LeakCatcher()


@dataclass
class Tally:
    """Outcomes of one area."""

    tried: int = 0
    clear: int = 0
    sane: int = 0
    raw: int = 0
    raw_examples: list[str] = field(default_factory=list)

    def add(self, outcome: str, detail: str = "") -> None:
        self.tried += 1
        setattr(self, outcome, getattr(self, outcome) + 1)
        if outcome == "raw" and len(self.raw_examples) < 40:
            self.raw_examples.append(detail)


Check = Callable[[Any], bool]


async def attempt(tally: Tally, label: str, call: Awaitable[Any], check: Check | None) -> None:
    """Run one case and count its outcome."""
    try:
        result = await asyncio.wait_for(call, timeout=60)
    except MemoryKitError as exc:
        if MARK in str(exc) or not str(exc).strip():
            tally.add("raw", f"{label}: user text or empty message in {type(exc).__name__}")
        elif len(str(exc)) > MAX_MESSAGE:
            tally.add("raw", f"{label}: a {len(str(exc))}-character message (echo)")
        else:
            tally.add("clear")
        return
    except Exception as exc:  # noqa: BLE001 - this is what the benchmark counts
        tally.add("raw", f"{label}: {type(exc).__name__}: {str(exc)[:120]!r}")
        return
    if isinstance(result, dict) and result.get("status") == "error":
        message = str(result.get("error", ""))
        if MARK in message or len(message) > MAX_MESSAGE or not message.strip():
            tally.add("raw", f"{label}: tool error quotes the input or is empty")
        else:
            tally.add("clear")  # a tool answered the error as its result
        return
    if check is None or check(result):
        tally.add("sane")
    else:
        tally.add("raw", f"{label}: unexpected result")


def stored_one(report: Any) -> bool:
    """``add_memory``'s report says its one entry was written.

    ``WRITTEN`` without a consolidator; ``ADD`` or ``UPDATE`` with one.
    """
    outcomes = getattr(report, "outcomes", None)
    return (
        bool(outcomes)
        and len(outcomes) == 1
        and outcomes[0].outcome in {"WRITTEN", "ADD", "UPDATE"}
    )


def content(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def entry(text: str = f"plain fact {MARK}", **kw: Any) -> MemoryEntry:
    return MemoryEntry(content=content(text), **kw)


def event(text: str, event_id: str | None = None, t: float | None = None) -> Event:
    kw = {"id": event_id} if event_id is not None else {}
    return Event(
        author="user",
        invocation_id="inv",
        timestamp=t if t is not None else time.time() - 3600,
        content=content(text),
        **kw,
    )


class BadEmbedder:
    """Wraps the real embedder and breaks its output one way."""

    def __init__(self, inner: Any, mode: str) -> None:
        self.inner, self.mode = inner, mode

    @property
    def model_id(self) -> str:
        return self.inner.model_id

    @property
    def dim(self) -> int:
        return self.inner.dim

    async def embed(self, texts: Sequence[str]) -> Any:
        good = await self.inner.embed(texts)
        mode, dim = self.mode, self.inner.dim
        if mode == "raises":
            raise RuntimeError(f"model crashed on {texts[0]}")
        if mode == "wrong_dim":
            return [list(v)[: dim - 1] for v in good]
        if mode == "too_long":
            return [[*list(v), 0.0] for v in good]
        if mode == "nan":
            return [[math.nan] * dim for _ in good]
        if mode == "inf":
            return [[math.inf] * dim for _ in good]
        if mode == "none_vector":
            return [None for _ in good]
        if mode == "none_value":
            return [[None] * dim for _ in good]
        if mode == "returns_none":
            return None
        if mode == "too_few":
            return good[:-1]
        if mode == "too_many":
            return [*good, good[0]]
        if mode == "strings":
            return [["x"] * dim for _ in good]
        if mode == "scalar":
            return [1.0 for _ in good]
        if mode == "empty_list":
            return []
        raise AssertionError(mode)


EMBEDDER_MODES = (
    "raises",
    "wrong_dim",
    "too_long",
    "nan",
    "inf",
    "none_vector",
    "none_value",
    "returns_none",
    "too_few",
    "too_many",
    "strings",
    "scalar",
    "empty_list",
)


class RaisingStr:
    def __str__(self) -> str:
        raise RuntimeError(f"no str for {MARK}")

    __repr__ = __str__


def deep(n: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": MARK}
    for _ in range(n):
        value = {"k": value}
    return value


def deep_list(n: int) -> list[Any]:
    value: list[Any] = [MARK]
    for _ in range(n):
        value = [value]
    return value


def circular_dict() -> dict[str, Any]:
    value: dict[str, Any] = {"a": MARK}
    value["self"] = value
    return value


def circular_list() -> list[Any]:
    value: list[Any] = [MARK]
    value.append(value)
    return value


BAD_IDS: list[Any] = [
    "",
    "   ",
    None,
    123,
    b"bytes",
    "a\x00b",
    "\x00",
    "x\ud800y",
    "\udfff",
    "m" * 129,
    "m" * 257,
    "m" * 2700,
    "m" * 5000,
    "é" * 1400,
    ["list"],
]
ODD_BUT_VALID_IDS = ["user'; DROP TABLE adk_memory_items;--", "ü-ñ-✓-🙂", "a%b_c\\d", "tab\there"]
BAD_URLS: list[Any] = [
    "",
    "   ",
    "mysql://u:p@localhost/db",
    "not a url",
    "postgresql://h:notaport/db",
    "postgresql://[::1/db",
    "postgresql://h:99999999/db",
    "postgresql://h:-1/db",
    "postgresql+psycopg://u:p@127.0.0.1:1/db",
    "postgresql://u@/db?host=/nonexistent/socket/dir",
    "postgresql://u:p@127.0.0.1:1/db\x00",
    "sqlite:///x.db",
    "http://example.com",
    "postgresql+asyncpg://u@h/db",
    123,
]


async def run(db_url: str | None) -> dict[str, Tally]:
    """Every area's tally (see the module doc)."""
    from adk_memory_kit.assembly import PgVectorMemoryService
    from adk_memory_kit.db.engine import resolve_db_url
    from adk_memory_kit.embedders import LocalMiniLMEmbedder
    from adk_memory_kit.lifecycle.closer import SessionCloser
    from adk_memory_kit.lifecycle.forget import data_map, forget_user
    from adk_memory_kit.lifecycle.idle_job import IdleIngestJob
    from adk_memory_kit.routing.review_queue import ReviewQueue

    url = resolve_db_url(db_url)
    app = f"bad_{uuid.uuid4().hex[:8]}"
    embedder = LocalMiniLMEmbedder()
    # every event is stored (full transcript), so odd texts reach the database
    memory = PgVectorMemoryService.from_url(url, embedder=embedder, write_policy="full_transcript")
    sessions = DatabaseSessionService(db_url=url, hide_parameters=True)
    queue = ReviewQueue(engine=memory.engine)
    tallies: dict[str, Tally] = {}

    async def store_works() -> bool:
        fact = f"canary {uuid.uuid4().hex}"
        await memory.add_memory(app_name=app, user_id="canary", memories=[entry(fact)])
        found = await memory.search_memory(app_name=app, user_id="canary", query=fact)
        return any(m.content.parts[0].text == fact for m in found.memories)

    async def area(name: str, cases: list[tuple[str, Callable[[], Awaitable[Any]], Check | None]]):
        tally = tallies.setdefault(name, Tally())
        for label, make, check in cases:
            try:
                call = make()
            except MemoryKitError:  # refused while building the call (a constructor)
                tally.add("clear")
                continue
            except Exception as exc:  # noqa: BLE001
                tally.add("raw", f"{label}: {type(exc).__name__} at construction")
                continue
            await attempt(tally, label, call, check)
        try:
            usable = await store_works()
        except Exception as exc:  # noqa: BLE001
            usable = False
            tally.raw_examples.append(f"store broken after {name}: {type(exc).__name__}")
        if not usable:
            tally.raw += 1

    # ---------------------------------------------------------------- ids
    cases = []
    for bad in BAD_IDS:
        for field_name in ("app_name", "user_id"):
            kw = {"app_name": app, "user_id": "u1", field_name: bad}
            cases += [
                (
                    f"add_memory {field_name}",
                    lambda kw=kw: memory.add_memory(**kw, memories=[entry()]),
                    None,
                ),
                (f"search {field_name}", lambda kw=kw: memory.search_memory(**kw, query="x"), None),
                (f"count {field_name}", lambda kw=kw: memory.count_memories(**kw), None),
                (
                    f"add_events {field_name}",
                    lambda kw=kw: memory.add_events_to_memory(**kw, events=[event(MARK)]),
                    None,
                ),
            ]
        cases += [
            (
                "delete_session_memories session_id",
                lambda bad=bad: memory.delete_session_memories(
                    app_name=app, user_id="u1", session_id=bad
                ),
                None,
            ),
            (
                "add_session session.id",
                lambda bad=bad: memory.add_session_to_memory(
                    Session.model_construct(
                        id=bad, app_name=app, user_id="u1", events=[event(MARK)], state={}
                    )
                ),
                None,
            ),
            (
                "MemoryEntry.id",
                lambda bad=bad: (
                    memory.add_memory(app_name=app, user_id="u1", memories=[entry(id=bad)])
                    if isinstance(bad, str)
                    else memory.add_memory(app_name=app, user_id="u1", memories=[bad])
                ),
                None,
            ),
            (
                "event id",
                lambda bad=bad: memory.add_events_to_memory(
                    app_name=app,
                    user_id="u1",
                    events=[event(MARK, event_id=bad if isinstance(bad, str) else None)],
                ),
                None,
            ),
            (
                "session_id in metadata",
                lambda bad=bad: memory.add_memory(
                    app_name=app,
                    user_id="u1",
                    memories=[entry()],
                    custom_metadata={"session_id": bad},
                ),
                None,
            ),
        ]
    for odd in ODD_BUT_VALID_IDS:
        cases.append(
            (
                "odd but valid user id",
                lambda odd=odd: memory.add_memory(app_name=app, user_id=odd, memories=[entry()]),
                stored_one,
            )
        )
    await area("ids (app, user, session, entry, event)", cases)

    # ---------------------------------------------------------------- metadata
    metadata_cases: list[Any] = [
        deep(5000),
        deep_list(5000),
        deep(40),
        circular_dict(),
        circular_list(),
        {"obj": RaisingStr()},
        {RaisingStr(): 1},
        {"nan": math.nan},
        {"inf": -math.inf},
        {"big": MARK * 20000},
        {f"k{i}": MARK for i in range(20000)},
        {"set": {1, 2}},
        {"bytes": b"\x00\xff"},
        {"nul": "a\x00b" + MARK},
        {"surrogate": "x\ud800" + MARK},
        {("tuple", "key"): 1},
        {"ttl": -5},
        {"ttl": "soon"},
        {"ttl": 1e300},
        {"importance": 7},
        {"importance": math.nan},
        {"importance": "high"},
        {"subject": ""},
        {"subject": "s" * 3000},
        {"subject": secrets.token_urlsafe(4000)},  # too large for the subject index
        {"expires_at": "not a time"},
        {"expires_at": "99999-01-01"},
        "not a mapping",
        ["a", "list"],
        42,
    ]
    cases = []
    for meta in metadata_cases:
        cases += [
            (
                "add_memory custom_metadata",
                lambda meta=meta: memory.add_memory(
                    app_name=app, user_id="u2", memories=[entry()], custom_metadata=meta
                ),
                None,
            ),
            (
                "MemoryEntry.custom_metadata",
                lambda meta=meta: memory.add_memory(
                    app_name=app,
                    user_id="u2",
                    # unvalidated, as a caller's own subclass or model_construct can pass it
                    memories=[
                        MemoryEntry.model_construct(content=content(MARK), custom_metadata=meta)
                    ],
                ),
                None,
            ),
            (
                "add_events custom_metadata",
                lambda meta=meta: memory.add_events_to_memory(
                    app_name=app, user_id="u2", events=[event(MARK)], custom_metadata=meta
                ),
                None,
            ),
        ]
    await area("metadata (depth, cycles, __str__, size, hygiene)", cases)

    # ---------------------------------------------------------------- entries and text
    cases = [
        (
            "entries not MemoryEntry",
            lambda: memory.add_memory(app_name=app, user_id="u3", memories=[{"text": MARK}]),
            None,
        ),
        (
            "entries None",
            lambda: memory.add_memory(app_name=app, user_id="u3", memories=[None]),
            None,
        ),
        (
            "entries a string",
            lambda: memory.add_memory(app_name=app, user_id="u3", memories=MARK),
            None,
        ),
        (
            "empty text",
            lambda: memory.add_memory(app_name=app, user_id="u3", memories=[entry("")]),
            None,
        ),
        (
            "whitespace text",
            lambda: memory.add_memory(app_name=app, user_id="u3", memories=[entry("  \n ")]),
            None,
        ),
        (
            "NUL text",
            lambda: memory.add_memory(app_name=app, user_id="u3", memories=[entry("a\x00" + MARK)]),
            stored_one,
        ),
        (
            "surrogate text",
            lambda: memory.add_memory(
                app_name=app, user_id="u3", memories=[entry("\ud800" + MARK)]
            ),
            stored_one,
        ),
        (
            "1 MB text",
            lambda: memory.add_memory(app_name=app, user_id="u3", memories=[entry(MARK * 90000)]),
            stored_one,
        ),
        (
            "bad timestamp",
            lambda: memory.add_memory(
                app_name=app, user_id="u3", memories=[entry(timestamp="yesterday-ish")]
            ),
            None,
        ),
        (
            "year 99999",
            lambda: memory.add_memory(
                app_name=app, user_id="u3", memories=[entry(timestamp="99999-01-01T00:00:00")]
            ),
            None,
        ),
        (
            "huge author",
            lambda: memory.add_memory(
                app_name=app, user_id="u3", memories=[entry(author="a" * 5000)]
            ),
            stored_one,
        ),
        (
            "event timestamp NaN",
            lambda: memory.add_events_to_memory(
                app_name=app, user_id="u3", events=[event(MARK, t=math.nan)]
            ),
            None,
        ),
        (
            "event timestamp 1e20",
            lambda: memory.add_events_to_memory(
                app_name=app, user_id="u3", events=[event(MARK, t=1e20)]
            ),
            None,
        ),
        (
            "event timestamp -1e20",
            lambda: memory.add_events_to_memory(
                app_name=app, user_id="u3", events=[event(MARK, t=-1e20)]
            ),
            None,
        ),
        (
            "events not events",
            lambda: memory.add_events_to_memory(app_name=app, user_id="u3", events=[MARK]),
            None,
        ),
        (
            "delete_memory not an id",
            lambda: memory.delete_memory(app_name=app, user_id="u3", memory_id=MARK),
            None,
        ),
        (
            "delete_memory None",
            lambda: memory.delete_memory(app_name=app, user_id="u3", memory_id=None),
            None,
        ),
    ]
    await area("entries and text", cases)

    # ---------------------------------------------------------------- search
    queries: list[Any] = [
        None,
        123,
        b"x",
        "",
        "   ",
        "\x00\x00",
        "\ud800" + MARK,
        MARK * 10000,
        "%_\\'\"",
        "a & | ! ( ) : *",
        "<->",
        "OR AND NOT",
    ]
    limits: list[Any] = [0, -1, 2**31, 2**70, True, 1.5, "3", math.nan]
    cases = [
        (
            f"query {type(q).__name__}",
            lambda q=q: memory.search_memory(app_name=app, user_id="u4", query=q),
            lambda r: isinstance(r.memories, list),
        )
        for q in queries
    ]
    cases += [
        (
            f"limit {lim!r}",
            lambda lim=lim: memory.search_memory(app_name=app, user_id="u4", query="x", limit=lim),
            None,
        )
        for lim in limits
    ]
    await area("search (query, limit)", cases)

    # ---------------------------------------------------------------- embedders
    cases = []
    for mode in EMBEDDER_MODES:
        broken = PgVectorMemoryService(engine=memory.engine, embedder=BadEmbedder(embedder, mode))
        cases += [
            (
                f"embedder {mode} on ingest",
                lambda b=broken: b.add_memory(
                    app_name=app,
                    user_id="u5",
                    memories=[entry(f"new fact {uuid.uuid4().hex} {MARK}")],
                ),
                None,
            ),
            (
                f"embedder {mode} on search",
                lambda b=broken: b.search_memory(app_name=app, user_id="u5", query=f"fact {MARK}"),
                None,
            ),
        ]
    await area("embedders (dimension, NaN, inf, None, count, raises)", cases)

    # ---------------------------------------------------------------- forget and data_map
    services = {"session_service": sessions, "memory_service": memory}
    cases = []
    for bad in BAD_IDS:
        for who in ("app", "user"):
            args = (bad, "u6") if who == "app" else (app, bad)
            cases += [
                (f"forget_user {who}", lambda a=args: forget_user(*a, **services), None),
                (f"data_map {who}", lambda a=args: data_map(*a, **services), None),
            ]
    await area("forget_user / data_map ids", cases)

    # ---------------------------------------------------------------- review queue
    cases = []
    for bad in BAD_IDS:
        cases.append(
            (
                f"submit user {bad!r:.10}",
                lambda bad=bad: queue.submit(app_name=app, user_id=bad, text=MARK),
                None,
            )
        )
    for text in (None, "", "   ", 42, "a\x00" + MARK, MARK * 100000):
        cases.append(
            (
                "submit text",
                lambda text=text: queue.submit(app_name=app, user_id="u7", text=text),
                None,
            )
        )
    for item_id in (-1, 0, 2**70, "1", True, None, 1.5):
        cases.append(("approve id", lambda i=item_id: queue.approve(i, by="ops"), None))
    for by in ("", None, "b" * 5000, "x\x00"):
        cases.append(("approve by", lambda by=by: queue.approve(1, by=by), None))
    for status in ("bogus", "", 3):
        cases.append(("list status", lambda s=status: queue.list(status=s), None))
    for limit in (0, -5, 2**70, "10", None):
        cases.append(("list limit", lambda lim=limit: queue.list(limit=lim), None))
    await area("review queue", cases)

    # ---------------------------------------------------------------- closer and idle job
    closer = SessionCloser(sessions, memory, attempts=2, backoff=0)
    cases = []
    for bad in BAD_IDS:
        cases.append(("closer session_id", lambda bad=bad: closer.close(app, "u8", bad), None))
        cases.append(("closer user_id", lambda bad=bad: closer.close(app, bad, "s1"), None))
    for settings in (
        {"app_name": ""},
        {"app_name": app, "idle_after": timedelta(minutes=-1)},
        {"app_name": app, "batch_size": 0},
        {"app_name": app, "claim_ttl": timedelta(0)},
        {"app_name": app, "retry_backoff": timedelta(hours=2)},
        {"app_name": app, "bogus": 1},
        {"app_name": app, "db_url": "mysql://x"},
    ):

        async def run_job(settings=settings):
            job = IdleIngestJob(sessions, memory, **settings)
            try:
                return await job.run_once()
            finally:
                await job.close()

        cases.append(("idle job settings", run_job, None))
    await area("closer and idle job", cases)

    # ---------------------------------------------------------------- database URLs
    cases = []
    for bad_url in BAD_URLS:

        async def open_memory(u=bad_url):
            svc = PgVectorMemoryService(u, embedder=embedder)
            try:
                return await svc.search_memory(app_name=app, user_id="u9", query="x")
            finally:
                await svc.close()

        async def open_queue(u=bad_url):
            q = ReviewQueue(u)
            try:
                return await q.list()
            finally:
                await q.close()

        async def forget_on(u=bad_url):
            return await forget_user(app, "u9", db_url=u, **services)

        cases += [
            ("memory URL", open_memory, None),
            ("queue URL", open_queue, None),
            ("forget db_url", forget_on, None),
        ]
    await area("database URLs", cases)

    # ---------------------------------------------------------------- curation (search ...)
    from datetime import datetime as _dt

    await memory.add_memory(app_name=app, user_id="u10", memories=[entry("u10 likes tea")])
    held = await memory.search(app_name=app, user_id="u10", query="tea", record_access=False)
    mid = held.memories[0].id
    bad_seqs: list[Any] = [123, 4.5, [1, 2], [None], {"a": 1}, b"fact", [LONG], "x" * 500]
    cases = []
    for bad in bad_seqs:
        cases += [
            (f"search types {type(bad).__name__}",
             lambda b=bad: memory.search(app_name=app, user_id="u10", query="tea", types=b), None),
            (f"search tags {type(bad).__name__}",
             lambda b=bad: memory.search(app_name=app, user_id="u10", query="tea", tags=b), None),
        ]  # fmt: skip
    for bad in (
        LONG,
        "x" * 100_000,
        "yesterday",
        "2026-13-45",
        123,
        math.nan,
        [],
        "9" * 40,
        _dt.max.isoformat() + "+14:00",
    ):
        cases.append(
            (f"search as_of {type(bad).__name__}",
             lambda b=bad: memory.search(app_name=app, user_id="u10", query="tea", as_of=b), None)
        )  # fmt: skip
    for bad in ("no", "yes", 0, 1, None, 2.0, [True]):
        cases += [
            (f"pin_memory pinned={bad!r}",
             lambda b=bad: memory.curator.pin_memory(app_name=app, user_id="u10", memory_id=mid,
                                             reason="r", pinned=b), None),
            (f"search record_access={bad!r}",
             lambda b=bad: memory.search(app_name=app, user_id="u10", query="tea",
                                         record_access=b), None),
        ]  # fmt: skip
    for bad in (
        timedelta.max,
        timedelta.min,
        -timedelta(days=1),
        timedelta(0),
        30,
        "30d",
        None,
        timedelta(days=10**6),
    ):
        cases.append(
            (f"purge_stale older_than {bad!r:.20}",
             lambda b=bad: memory.curator.purge_stale(app, older_than=b, max_importance=0.1), None)
        )  # fmt: skip
    for bad in (math.nan, math.inf, -math.inf, 1.5, -0.1, "high", None, True):
        cases.append(
            (f"purge_stale max_importance {bad!r}",
             lambda b=bad: memory.curator.purge_stale(app, older_than=timedelta(days=1),
                                              max_importance=b), None)
        )  # fmt: skip
    for kw in (
        {"new_text": None},
        {"new_text": 42},
        {"new_text": "  "},
        {"reason": LONG},
        {"reason": None},
        {"by": LONG},
        {"by": 7},
        {"memory_id": LONG},
        {"memory_id": None, "query": None},
        {"memory_id": 12},
    ):
        args = {"memory_id": mid, "new_text": "u10 likes green tea", "reason": "fix", **kw}
        cases.append(
            (f"correct_memory {sorted(kw)}",
             lambda a=args: memory.curator.correct_memory(app_name=app, user_id="u10", **a), None)
        )  # fmt: skip
    for bad in (LONG, 3, None, "not-a-uuid"):
        cases.append(
            ("pin_memory memory_id",
             lambda b=bad: memory.curator.pin_memory(app_name=app, user_id="u10", memory_id=b,
                                             reason="r"), None)
        )  # fmt: skip
    cases.append(("flush_access", lambda: memory.flush_access(), lambda n: isinstance(n, int)))
    await area("curation (search filters, pin, purge_stale, correct)", cases)

    # ---------------------------------------------------------------- constructors
    from adk_memory_kit import (
        ContextBudget,
        ContextBudgetPlugin,
        EpisodicLog,
        EpisodicLogPlugin,
        MemoryToolset,
    )
    from adk_memory_kit.console import create_app

    async def built(factory: Callable[[], Any]) -> Any:
        made = factory()
        close = getattr(made, "close", None)
        if close is not None and asyncio.iscoroutinefunction(close):
            if not inspect.signature(close).parameters:
                await close()
        return made

    # zero is a valid value of these; every other value tried here must be refused
    zero_ok = {"recall_max_tokens", "summary_max_tokens", "safety_margin"}

    bad_numbers: list[Any] = [math.nan, math.inf, -math.inf, -1, 0, "5", None, True, 1e300,
                              [5], 2**70]  # fmt: skip
    ctor_cases: list[tuple[str, Callable[[], Any]]] = []
    for bad in bad_numbers:
        for name in ("batch_size", "flush_interval", "retention_days", "max_pending",
                     "max_payload_bytes"):  # fmt: skip
            if name == "retention_days" and bad is None:
                continue  # None: keep forever (valid)
            ctor_cases.append(
                (f"EpisodicLog {name}={bad!r:.12}",
                 lambda n=name, b=bad: EpisodicLog(engine=memory.engine, **{n: b}))
            )  # fmt: skip
        for name in ("max_tokens", "safety_margin", "target_ratio", "keep_recent_invocations",
                     "recall_max_tokens", "summary_max_tokens"):  # fmt: skip
            if name in ("recall_max_tokens", "summary_max_tokens") and bad is None:
                continue
            kw = {"max_tokens": 4000, name: bad}
            ctor_cases.append(
                (f"ContextBudget {name}={bad!r:.12}", lambda kw=kw: ContextBudget(**kw))
            )
        ctor_cases.append(
            (f"MemoryToolset recall_limit={bad!r:.12}", lambda b=bad: MemoryToolset(recall_limit=b))
        )
    for bad in (5, 3.5, b"tool", object(), [1, 2]):
        ctor_cases.append(
            (f"ContextBudget prunable={bad!r:.12}",
             lambda b=bad: ContextBudget(max_tokens=4000, prunable=b))
        )  # fmt: skip
    ctor_cases += [
        ("ContextBudgetPlugin()", lambda: ContextBudgetPlugin()),
        ("ContextBudgetPlugin budget=str", lambda: ContextBudgetPlugin(budget="big")),
        ("ContextBudgetPlugin both", lambda: ContextBudgetPlugin(100, budget=ContextBudget(100))),
        ("EpisodicLogPlugin log=str", lambda: EpisodicLogPlugin(log="nowhere")),
        ("create_app allowed_hosts=str", lambda: create_app(url, allowed_hosts="x")),
        ("create_app allowed_hosts=[1]", lambda: create_app(url, allowed_hosts=[1])),
        ("SessionCloser attempts=nan",
         lambda: SessionCloser(sessions, memory, attempts=math.nan)),
        ("SessionCloser backoff=inf", lambda: SessionCloser(sessions, memory, backoff=math.inf)),
        ("SessionCloser backoff=-1", lambda: SessionCloser(sessions, memory, backoff=-1)),
        ("IdleIngestJob idle_after=max",
         lambda: IdleIngestJob(sessions, memory, app_name=app, idle_after=timedelta.max)),
        ("IdleIngestJob batch_size=nan",
         lambda: IdleIngestJob(sessions, memory, app_name=app, batch_size=math.nan)),
    ]  # fmt: skip

    def refused_only(label: str) -> Check:
        """A constructor that accepted a bad value is a raw error (a silent acceptance)."""
        name = label.split(" ", 1)[-1].split("=", 1)[0]
        return lambda _: name in zero_ok and label.endswith("=0")

    await area(
        "constructors (types, NaN, infinities, ranges)",
        [(label, lambda f=factory: built(f), refused_only(label)) for label, factory in ctor_cases],
    )

    # ---------------------------------------------------------------- episodic log calls
    import tempfile

    log = EpisodicLog(engine=memory.engine)
    folder = Path(tempfile.mkdtemp(prefix="bad_input_"))
    cases = [
        ("export_trajectories to a directory",
         lambda: log.export_trajectories(app, folder), None),
        ("export_trajectories missing folder",
         lambda: log.export_trajectories(app, folder / "no" / "such" / "x.jsonl"), None),
        ("export_trajectories path=123", lambda: log.export_trajectories(app, 123), None),
        ("export_trajectories path=LONG", lambda: log.export_trajectories(app, LONG), None),
        ("export_trajectories since=str",
         lambda: log.export_trajectories(app, folder / "t.jsonl", since=LONG), None),
        ("cost_summary since=nan", lambda: log.cost_summary(app, since=math.nan), None),
        ("cost_summary user=LONG", lambda: log.cost_summary(app, user_id=LONG), None),
        ("trace session=LONG", lambda: log.trace(app, "u1", LONG), None),
        ("trace session=None", lambda: log.trace(app, "u1", None), None),
        ("forget_user user=123", lambda: log.forget_user(app, 123), None),
    ]  # fmt: skip
    await area("episodic log calls", cases)
    await log.close()

    # ---------------------------------------------------------------- tools (ADK convention)
    from google.adk.agents import LlmAgent
    from google.adk.agents.invocation_context import InvocationContext
    from google.adk.sessions import InMemorySessionService
    from google.adk.tools.tool_context import ToolContext

    from adk_memory_kit import WorkingMemoryToolset
    from adk_memory_kit.lifecycle.checkpoint import end_session_tool
    from adk_memory_kit.profile import DEFAULT_VOCABULARY
    from adk_memory_kit.profile.tools import make_profile_tools
    from adk_memory_kit.recall.load import FramedLoadMemoryTool

    tool_sessions = InMemorySessionService()

    async def tool_context() -> ToolContext:
        session = await tool_sessions.create_session(app_name=app, user_id="u11")
        invocation = InvocationContext(
            session_service=tool_sessions,
            memory_service=memory,
            invocation_id=f"inv-{uuid.uuid4().hex[:8]}",
            agent=LlmAgent(name="bench_agent"),
            session=session,
        )
        return ToolContext(invocation, function_call_id=f"call-{uuid.uuid4().hex[:8]}")

    tools = [
        *await MemoryToolset(memory).get_tools(),
        *await WorkingMemoryToolset().get_tools(),
        *make_profile_tools(DEFAULT_VOCABULARY),
        end_session_tool(),
        FramedLoadMemoryTool(),
    ]
    bad_args: list[Any] = [None, 123, math.nan, LONG, ["list"], {"a": MARK}, True, "very"]
    cases = []
    for tool in tools:
        declaration = tool._get_declaration()  # the parameters the model is told about
        params = declaration.parameters
        names = sorted(params.properties or {}) if params is not None else []
        if not names and declaration.parameters_json_schema:
            names = sorted(declaration.parameters_json_schema.get("properties", {}))
        for name in names:
            for bad in bad_args:

                async def call_tool(tool=tool, name=name, bad=bad, names=names):
                    args = {n: "tea" for n in names}
                    args[name] = bad
                    return await tool.run_async(args=args, tool_context=await tool_context())

                cases.append((f"tool {tool.name}({name}={bad!r:.12})", call_tool,
                              lambda r: isinstance(r, dict)))  # fmt: skip
    cases += [
        ("remember importance='very'",
         lambda: _run_tool(tools, "remember", {"text": "I like tea", "importance": "very"},
                           tool_context), None),
        ("recall query=None",
         lambda: _run_tool(tools, "recall", {"query": None}, tool_context), None),
    ]  # fmt: skip
    await area("tools (errors are tool results)", cases)

    await memory.close()
    await sessions.close()
    return tallies


async def _run_tool(tools: list[Any], name: str, args: dict[str, Any], context: Any) -> Any:
    tool = next(t for t in tools if t.name == name)
    return await tool.run_async(args=args, tool_context=await context())


def table(tallies: dict[str, Tally]) -> str:
    """The markdown table for the README."""
    lines = [
        "| area | inputs tried | clear kit errors | sane results | raw errors |",
        "|---|---:|---:|---:|---:|",
    ]
    total = Tally()
    for name, t in tallies.items():
        lines.append(f"| {name} | {t.tried} | {t.clear} | {t.sane} | {t.raw} |")
        for key in ("tried", "clear", "sane", "raw"):
            setattr(total, key, getattr(total, key) + getattr(t, key))
    lines.append(
        f"| **all** | **{total.tried}** | **{total.clear}** | **{total.sane}** | **{total.raw}** |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db-url", default=None, help="default: ADK_MEMORY_KIT_DB_URL / embedded")
    parser.add_argument("--json", type=Path, help="also write the counts here")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)  # the kit's warnings about refused inputs
    root = logging.getLogger()
    root.addHandler(LOGS)
    kit = logging.getLogger("adk_memory_kit")
    kit.setLevel(logging.DEBUG)  # every kit record is checked for user text, DEBUG included
    started = time.perf_counter()
    tallies = asyncio.run(run(args.db_url))
    print(table(tallies))
    print(f"\nlog records checked: {LOGS.records}; with user text: {len(LOGS.leaks)}")
    print(f"({time.perf_counter() - started:.1f} s)")
    for leak in LOGS.leaks[:20]:
        print(f"log leak: {leak}", file=sys.stderr)
    for name, t in tallies.items():
        for example in t.raw_examples:
            print(f"raw: {name}: {example}", file=sys.stderr)
    if args.json:
        args.json.write_text(json.dumps({k: vars(v) for k, v in tallies.items()}, indent=2))
    clean = all(t.raw == 0 for t in tallies.values()) and not LOGS.leaks
    return 0 if clean else 1


if __name__ == "__main__":
    raise SystemExit(main())
