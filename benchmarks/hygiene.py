"""Memory hygiene benchmark (issue 16): a stream of facts that change, arrive out of order and
repeat as paraphrases, for one user.

    PYTHONPATH=$PWD python benchmarks/hygiene.py [--facts 2000] [--subjects 50] [--db-url URL]

The stream: ``--subjects`` subjects (a gym, a dentist, a car, ...); each has 3 to 6 values over
two years (the value changes at random dates); each value is mentioned several times in one of
four paraphrases at random dates inside its period; mentions arrive in a shuffled order (each
is delivered up to 90 days away from its time). Every mention is one ``add_memory`` call with
``subject`` and its ``timestamp`` (what the router's extractors give).

Three memories receive the same stream:

* ``consolidated``: ``PgVectorMemoryService.from_url(consolidator=RuleConsolidator())``;
* ``plain``: ``PgVectorMemoryService`` without consolidation (subject supersession by date and
  text-keyed upserts only);
* ``adk-inmemory``: ADK's ``InMemoryMemoryService`` (keyword match; no subjects, no time).

Measured: rows stored against distinct facts (a fact = one value of one subject over one
period) and the share of repeats collapsed; the stale-fact rate (a superseded value ranked
above the current one, or the current one missing, in the top 5 for the subject's query);
``as_of`` accuracy at 10 random past times (the top result holds the value true then).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

SUBJECTS = [
    "gym", "dentist", "car", "bank", "employer", "barber", "phone", "laptop", "bike", "school",
    "doctor", "landlord", "airline", "hotel", "coffee shop", "bakery", "football team",
    "guitar", "yoga studio", "climbing gym", "running club", "book club", "newspaper",
    "podcast", "streaming service", "mobile carrier", "internet provider", "insurer",
    "accountant", "lawyer", "vet", "pharmacy", "supermarket", "pizza place", "sushi place",
    "tailor", "florist", "garage", "cinema", "theatre", "museum", "language school",
    "swimming pool", "tennis club", "golf club", "ski resort", "holiday island",
    "favourite author", "favourite band", "favourite painter",
]  # fmt: skip
NAMES = [
    "Aurora", "Beacon", "Cedar", "Delta", "Ember", "Falcon", "Granite", "Harbor", "Indigo",
    "Juniper", "Kestrel", "Lumen", "Meridian", "Nimbus", "Orchid", "Pioneer", "Quartz",
    "Raven", "Summit", "Tundra", "Umber", "Vertex", "Willow", "Xenon", "Yarrow", "Zephyr",
    "Atlas", "Boreal", "Cobalt", "Dune",
]  # fmt: skip
SUFFIXES = ["Works", "House", "Point", "Central", "Studio", "Group", "Hub", "Lane"]
TEMPLATES = [
    "The user's {s} is {v}.",
    "For the {s}, the user goes with {v}.",
    "These days the user's {s} is {v}, they said.",
    "When it comes to the {s}, the user picked {v}.",
]
START = datetime(2024, 1, 1, tzinfo=timezone.utc)
SPAN_DAYS = 730


@dataclass(frozen=True)
class Mention:
    subject: str
    value: str
    period: int
    when: datetime
    text: str


@dataclass(frozen=True)
class Period:
    subject: str
    value: str
    start: datetime
    end: datetime | None


def make_stream(n_facts: int, n_subjects: int, seed: int = 16):
    rng = random.Random(seed)
    subjects = SUBJECTS[:n_subjects]
    periods: list[Period] = []
    for subject in subjects:
        k = rng.randint(3, 6)
        cuts = sorted(rng.sample(range(30, SPAN_DAYS - 30), k - 1))
        starts = [0, *cuts]
        values = rng.sample([f"{a} {b}" for a in NAMES for b in SUFFIXES], k)
        for i, (day, value) in enumerate(zip(starts, values, strict=True)):
            end = START + timedelta(days=starts[i + 1]) if i + 1 < k else None
            periods.append(Period(subject, value, START + timedelta(days=day), end))
    mentions: list[Mention] = []
    # every period mentioned at least once (at its start), the rest spread at random
    for index, p in enumerate(periods):
        mentions.append(Mention(p.subject, p.value, index, p.start, _say(rng, p)))
    while len(mentions) < n_facts:
        index = rng.randrange(len(periods))
        p = periods[index]
        end = p.end or START + timedelta(days=SPAN_DAYS)
        offset = rng.random() * (end - p.start).total_seconds()
        when = p.start + timedelta(seconds=int(offset))
        mentions.append(Mention(p.subject, p.value, index, when, _say(rng, p)))
    # delivery: each mention up to 90 days away from its time, so the stream is out of order
    arrival = {id(m): m.when + timedelta(days=rng.uniform(-90, 90)) for m in mentions}
    mentions.sort(key=lambda m: arrival[id(m)])
    return periods, mentions


def _say(rng: random.Random, p: Period) -> str:
    return rng.choice(TEMPLATES).format(s=p.subject, v=p.value)


def true_value(periods: list[Period], subject: str, at: datetime) -> str | None:
    for p in periods:
        if p.subject == subject and p.start <= at and (p.end is None or at < p.end):
            return p.value
    return None


def query_of(subject: str) -> str:
    return f"What is the user's {subject}?"


def _text(memory) -> str:
    return " ".join(p.text or "" for p in (memory.content.parts or []))


def _value_of(text: str, values: list[str]) -> str | None:
    for value in values:
        if value in text:
            return value
    return None


async def feed_pg(service, app: str, mentions: list[Mention]) -> float:
    from google.adk.memory.memory_entry import MemoryEntry
    from google.genai import types

    t0 = time.perf_counter()
    for m in mentions:
        await service.add_memory(
            app_name=app,
            user_id="bench-user",
            memories=[
                MemoryEntry(
                    author="user",
                    timestamp=m.when.isoformat(),
                    content=types.Content(role="user", parts=[types.Part(text=m.text)]),
                    custom_metadata={"subject": m.subject.replace(" ", "_")},
                )
            ],
        )
    return time.perf_counter() - t0


async def feed_inmemory(service, app: str, mentions: list[Mention]) -> float:
    from google.adk.events.event import Event
    from google.adk.sessions.session import Session
    from google.genai import types

    t0 = time.perf_counter()
    events = [
        Event(
            id=f"e{i}",
            author="user",
            invocation_id="bench",
            timestamp=m.when.timestamp(),
            content=types.Content(role="user", parts=[types.Part(text=m.text)]),
        )
        for i, m in enumerate(mentions)
    ]
    session = Session(id="bench", app_name=app, user_id="bench-user", events=events)
    await service.add_session_to_memory(session)
    return time.perf_counter() - t0


async def stale_rate(search, periods: list[Period], subjects: list[str]) -> float:
    """Share of subjects whose top 5 rank a superseded value above the current one (or miss
    the current one)."""
    stale = 0
    for subject in subjects:
        mine = [p for p in periods if p.subject == subject]
        current = next(p.value for p in mine if p.end is None)
        values = [p.value for p in mine]
        found = await search(subject, None)
        ranked = [_value_of(_text(m), values) for m in found.memories[:5]]
        ranked = [v for v in ranked if v is not None]
        if not ranked or ranked[0] != current:
            stale += 1
    return stale / len(subjects)


async def as_of_accuracy(search, periods, subjects, times) -> float:
    right = total = 0
    for at in times:
        for subject in subjects:
            expected = true_value(periods, subject, at)
            if expected is None:
                continue
            values = [p.value for p in periods if p.subject == subject]
            found = await search(subject, at)
            top = _value_of(_text(found.memories[0]), values) if found.memories else None
            right += top == expected
            total += 1
    return right / total


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--facts", type=int, default=2000)
    parser.add_argument("--subjects", type=int, default=50)
    parser.add_argument("--db-url", default=None)
    parser.add_argument("--seed", type=int, default=16)
    args = parser.parse_args()
    if not args.db_url:
        os.environ["ADK_MEMORY_KIT_HOME"] = tempfile.mkdtemp(prefix="adk_memory_kit_hygiene_")

    from google.adk.memory.in_memory_memory_service import InMemoryMemoryService

    from adk_memory_kit import PgVectorMemoryService, RuleConsolidator
    from adk_memory_kit.embedders import LocalMiniLMEmbedder

    periods, mentions = make_stream(args.facts, args.subjects, args.seed)
    subjects = sorted({p.subject for p in periods})
    rng = random.Random(args.seed + 1)
    times = sorted(
        START + timedelta(days=rng.uniform(0, SPAN_DAYS - 1)) for _ in range(10)
    )  # the 10 random past times
    out_of_order = sum(
        1 for a, b in zip(mentions, mentions[1:], strict=False) if b.when < a.when
    ) / max(len(mentions) - 1, 1)
    print(
        f"stream: {len(mentions)} mentions of {len(periods)} distinct facts about "
        f"{len(subjects)} subjects; {out_of_order:.0%} of consecutive mentions out of order"
    )
    embedder = LocalMiniLMEmbedder()
    stamp = int(time.time())
    results = []
    for name, consolidator in (("consolidated", RuleConsolidator()), ("plain", None)):
        service = PgVectorMemoryService.from_url(
            args.db_url, embedder=embedder, consolidator=consolidator, access_flush_delay=3600
        )
        app = f"hygiene-{name}-{stamp}"
        seconds = await feed_pg(service, app, mentions)
        rows = sum((await service.count_memories(app_name=app, user_id="bench-user")).values())

        async def search(subject, at, service=service, app=app):
            return await service.search(
                app_name=app, user_id="bench-user", query=query_of(subject), as_of=at, limit=5
            )

        stale = await stale_rate(search, periods, subjects)
        accuracy = await as_of_accuracy(search, periods, subjects, times)
        await service.close()
        results.append((name, rows, stale, accuracy, seconds))
    adk = InMemoryMemoryService()
    seconds = await feed_inmemory(adk, "hygiene-adk", mentions)

    async def adk_search(subject, at):
        return await adk.search_memory(
            app_name="hygiene-adk", user_id="bench-user", query=query_of(subject)
        )

    adk_stale = await stale_rate(adk_search, periods, subjects)
    results.append(("adk-inmemory", len(mentions), adk_stale, None, seconds))

    distinct = len(periods)
    repeats = len(mentions) - distinct
    print(
        "\n| memory | rows stored | distinct facts | repeats collapsed | stale-fact rate "
        "(top 5) | as_of accuracy (10 times) | write time |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, rows, stale, accuracy, seconds in results:
        collapsed = 1 - (rows - distinct) / repeats if repeats else 1.0
        acc = "n/a (no time)" if accuracy is None else f"{accuracy:.1%}"
        print(
            f"| {name} | {rows} | {distinct} | {collapsed:.1%} | {stale:.1%} | {acc} "
            f"| {seconds:.0f} s |"
        )


if __name__ == "__main__":
    asyncio.run(main())
