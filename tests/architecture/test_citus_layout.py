"""The layout Citus needs, checked on a real catalog and on the SQL the kit really sends
(issue 45: a tested road past one server).

Citus distributes a table by one column; the kit's per-user tables would be distributed by
``user_id``, co-located (docs/scale.md, "### Citus"). That holds only if

1. every PRIMARY KEY / UNIQUE constraint or index of a per-user table holds ``user_id`` (and
   ``app_name``): Citus enforces uniqueness only when the key includes the distribution
   column;
2. every statement the kit sends against a per-user table names its user (``user_id = ...``,
   ``user_id IN (...)``, or an INSERT's ``user_id`` column): a single-shard "router" query.
   Operator-wide maintenance (purges, listing users, the idle job's pick, migrations) is
   allow-listed below, one commented entry each; those become multi-shard queries;
3. every catalog feature or statement shape Citus does not support on a distributed table is
   named in :data:`CITUS_NOTES` with its replacement, and in docs/scale.md's "### Citus".

How: a fresh database on the embedded server; the kit creates every schema it has (memory,
lifecycle, episodic log, review queue, forget fence) while a ``before_cursor_execute``
listener records every statement; a representative workload runs (sessions, the idle ingest,
add/search, export, review, episodic log, data map, forget, purges, one index build); then
``pg_catalog`` is read for the kit's tables, their unique indexes, triggers, foreign keys.

Complements tests/memory/test_sql_user_scope.py (a static scan of the package source): this
one sees the statements as sent, with their shapes after f-strings and helpers, and the
catalog as created.
"""

from __future__ import annotations

import re
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import event, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.ext.asyncio import create_async_engine

pytestmark = pytest.mark.slow

DOCS = Path(__file__).resolve().parents[2] / "docs" / "scale.md"

#: Per-user tables: distributed by ``user_id``, co-located with ``adk_memory_items``.
PER_USER = {
    "adk_memory_items": "the memories",
    "adk_memory_session_snapshots": "one row per ingested session",
    "adk_memory_user_stats": "BM25 statistics per user (trigger-maintained)",
    "adk_memory_term_stats": "BM25 document frequencies per user and lexeme",
    "adk_memory_entities": "entity keys per user and scope, with their row counts (issue 48)",
    "adk_episodic_log": "the episodic log (model calls, tools, errors)",
    "adk_memory_kit_ingest_watermarks": "the idle job's watermark per session",
    "adk_memory_kit_forget_fence": "the forget fence (one row per user being forgotten)",
    "adk_memory_kit_review_queue": "review items",
    "adk_memory_scope_grants": "group grants per user (issue 47)",
}
#: Not distributed: ``reference`` (a full copy on every node) or ``local`` (kept on the
#: coordinator, added to the metadata with citus_add_local_table_to_metadata).
GLOBAL = {
    "adk_memory_kit_schema": ("reference", "the migration versions, read at start-up"),
    "adk_memory_kit_forget_log": (
        "local",
        "one row per forget run, primary key forget_id alone; small",
    ),
}
#: ADK's own session tables (DatabaseSessionService): not created by the kit, not checked
#: here (their keys hold app_name and user_id; ``app_states`` is per app).
ADK_TABLES = {"sessions", "events", "app_states", "user_states", "adk_internal_metadata"}

#: Known unique keys of per-user tables without ``user_id``/``app_name`` (``table.index``):
#: real violations in the kit today, for the lead to fix; the test fails once one is fixed,
#: so the entry goes with the fix.
KNOWN_UNKEYED: set[str] = set()  # (the review queue's `id`-only key was fixed in its migration)

#: Statements on per-user tables without a user filter that are operator-wide on purpose
#: (multi-shard on Citus: maintenance, migrations, operator views, never a user's request).
#: Each entry: a regex the whole statement matches, and why it may span users.
OPERATOR_WIDE = {
    # migrations: one-off backfills when a schema step lands
    r"^UPDATE adk_memory_items SET memory_type = CASE .* WHERE memory_type IS NULL$": "migration",
    # the statistics rebuild (term_stats.REBUILD_STEPS): emptied, then counted from every row
    r"^DELETE FROM adk_memory_(user|term)_stats$": "migration",
    r"^INSERT INTO adk_memory_(user|term)_stats \(app_name, user_id, .*\) SELECT .*"
    r" FROM adk_memory_items .*GROUP BY 1, 2": "migration",
    # purges: expired rows of every user
    r"^DELETE FROM adk_memory_items WHERE expires_at IS NOT NULL AND expires_at <= now\(\)$": (
        "purge_expired (memory)"
    ),
    r"^DELETE FROM adk_episodic_log WHERE time < ": "EpisodicLog.purge_expired",
    # operator listings and reports
    r"^SELECT DISTINCT user_id FROM adk_memory_items WHERE app_name = ": "list_users",
    r"^SELECT DISTINCT user_id FROM adk_episodic_log WHERE app_name = .* AND session_id = ": (
        "EpisodicLog.users_of_session (an operator's trace lookup)"
    ),
    r"^SELECT GROUPING\(session_id\).* FROM adk_episodic_log": "EpisodicLog.cost_summary",
    r"^SELECT .* FROM adk_memory_user_stats .*\bn >= ": "index_heavy_users",
    # the upkeep pass's fold: the users that have rows waiting outside their HNSW index (the
    # partial btree on ann_pending; each user's rows are then folded by a per-user statement)
    r"^SELECT DISTINCT app_name, user_id FROM adk_memory_items WHERE ann_pending$": (
        "fold_all_pending (memory/pending_rows.py)"
    ),
    # the idle job: candidates of every user of the app (FOR UPDATE SKIP LOCKED: CITUS_NOTES)
    r"^WITH src AS \(SELECT s\.user_id, .* FROM sessions s WHERE s\.app_name = ": (
        "IdleIngestJob: the candidate insert and pick over all sessions of the app"
    ),
    # operator decisions on one review item, by its id (the console, the CLI)
    r"^UPDATE adk_memory_kit_review_queue SET .* WHERE id = %\(id\)s ": (
        "ReviewQueue approve/reject/revoke by item id"
    ),
}

#: Statements on the request path that reach beyond one user today (real violations, for the
#: lead to fix; multi-shard on Citus on every turn). Regex -> why and the fix.
KNOWN_UNFILTERED = {
    # ApprovedInstructionsPlugin reads this every turn: the user's own items OR the app-wide
    # ones, a multi-shard query on Citus. Fix: keep app-wide items in a reference table
    # (or under a reserved user_id) and read the user's with a router query.
    r"^SELECT .* FROM adk_memory_kit_review_queue WHERE app_name = .*"
    r"\(applies_to = 'app' OR user_id = ": "ReviewQueue.approved_instructions",
}

#: What Citus does not support (or supports with a caveat) on distributed tables, as found
#: in the catalog or the SQL sent, with the replacement; ``doc``: the words docs/scale.md's
#: "### Citus" section uses for it. Every feature found must be listed; every listed one
#: must still be found (a stale note fails too).
CITUS_NOTES = {
    "triggers on a distributed table": {
        "found": "pg_trigger: a user trigger on a per-user table",
        "replacement": "citus.enable_unsafe_triggers = on (the trigger writes co-located rows)",
        "doc": "enable_unsafe_triggers",
    },
    "statement-level triggers with transition tables": {
        "found": "pg_trigger.tgoldtable/tgnewtable (the term statistics and entity triggers)",
        "replacement": "check on your version; else recreate per shard (run_command_on_shards)",
        "doc": "transition tables",
    },
    "FOR UPDATE SKIP LOCKED across users": {
        "found": "the idle job's candidate pick (a multi-shard row lock)",
        "replacement": "watermarks table local on the coordinator, or one worker per shard group",
        "doc": "FOR UPDATE SKIP LOCKED",
    },
    "tableoid to find a user's partition": {
        "found": "ann.build_user_index's SELECT tableoid (returns the shard on Citus)",
        "replacement": "run the CREATE INDEX against adk_memory_items through the coordinator",
        "doc": "tableoid",
    },
    "advisory locks are node-local": {
        "found": "pg_advisory_xact_lock / pg_try_advisory_lock in the SQL sent",
        "replacement": "route each user's writes through one coordinator",
        "doc": "Advisory locks",
    },
}


def _strip(sql: str) -> str:
    return " ".join(sql.split())


class _Capture:
    def __init__(self) -> None:
        self.statements: list[str] = []

    def __call__(self, conn, cursor, statement, parameters, context, executemany) -> None:
        self.statements.append(_strip(statement))


async def _fresh_database(db_url: str) -> str:
    name = f"citus_{uuid.uuid4().hex[:10]}"
    admin = create_async_engine(db_url, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f"CREATE DATABASE {name}"))
    await admin.dispose()
    return make_url(db_url).set(database=name).render_as_string(hide_password=False)


def _event(sentence: str, t: float):
    from google.adk.events.event import Event
    from google.genai import types

    return Event(
        author="user",
        invocation_id="inv",
        timestamp=t,
        content=types.Content(role="user", parts=[types.Part(text=sentence)]),
    )


async def _workload(url: str, embedder) -> None:
    """Every schema the kit has, and a representative day of requests and maintenance."""
    from google.adk.memory.memory_entry import MemoryEntry
    from google.adk.sessions.database_session_service import DatabaseSessionService
    from google.genai import types

    from adk_memory_kit.assembly import PgVectorMemoryService
    from adk_memory_kit.core.session_policy import WritePolicy
    from adk_memory_kit.episodic.store import EpisodicLog, PendingEntry
    from adk_memory_kit.lifecycle.forget import data_map, forget_user
    from adk_memory_kit.lifecycle.idle_job import IdleIngestJob
    from adk_memory_kit.memory import ann
    from adk_memory_kit.memory.browse import export_memories
    from adk_memory_kit.routing.review_queue import ReviewQueue

    app = "citus-app"
    memory = PgVectorMemoryService.from_url(
        url, embedder=embedder, write_policy=WritePolicy.FULL_TRANSCRIPT
    )
    engine = memory.engine
    sessions = DatabaseSessionService(db_url=url)
    queue = ReviewQueue(engine=engine)
    log = EpisodicLog(engine=engine, batch_size=1)
    try:
        for user in ("ann", "bob"):
            session = await sessions.create_session(app_name=app, user_id=user)
            await sessions.append_event(
                session,
                _event(f"{user} flies to Lisbon on Friday, window seat", time.time() - 7200),
            )
        later = lambda: datetime.now(timezone.utc) + timedelta(hours=1)  # noqa: E731
        job = IdleIngestJob(sessions, memory, app_name=app, idle_after=timedelta(0), clock=later)
        await job.run_once()  # ingest: watermarks, items, snapshots, statistics triggers
        for user in ("ann", "bob"):
            await memory.add_memory(
                app_name=app,
                user_id=user,
                memories=[
                    MemoryEntry(
                        content=types.Content(parts=[types.Part(text=f"{user} is vegetarian")])
                    )
                ],
            )
            await memory.add_events_to_memory(
                app_name=app,
                user_id=user,
                session_id="s-direct",
                events=[_event(f"{user} booked the hotel in Pune", time.time())],
            )
            await memory.search_memory(app_name=app, user_id=user, query="where does ann fly")
            await memory.search(app_name=app, user_id=user, query="hotel Pune")
            await memory.count_memories(app_name=app, user_id=user)
            await export_memories(memory.store, app_name=app, user_id=user)
            item = await queue.submit(app_name=app, user_id=user, text=f"call {user} by name")
            await queue.approve(item.id, by="op", app_name=app)
            await queue.approved_instructions(app, user)
            log.append(PendingEntry(app, user, "s1", "inv", "agent", "tool_call", "lookup"))
            await log.flush()
            await log.trace(app, user, "s1")
        await ann.build_user_index(engine, app, "bob")  # the heavy user's index, forced
        await ann.index_heavy_users(engine)  # the maintenance side: none heavy here
        await data_map(app, "ann", session_service=sessions, memory_service=memory)
        await forget_user(app, "ann", session_service=sessions, memory_service=memory)
        await memory.list_users(app)
        await memory.purge_expired()
        await log.purge_expired(30)
        await log.users_of_session(app, "s1")
        await log.cost_summary(app)
    finally:
        await log.close()
        await queue.close()
        await sessions.close()
        await memory.close()


@pytest.fixture(scope="module")
async def kit(db_url, embedder):
    """(statements sent, catalog rows) of a fresh database after the workload."""
    url = await _fresh_database(db_url)
    capture = _Capture()
    event.listen(Engine, "before_cursor_execute", capture)
    try:
        await _workload(url, embedder)
    finally:
        event.remove(Engine, "before_cursor_execute", capture)
    return url, capture.statements


_TABLES = "|".join(sorted({*PER_USER, *GLOBAL}, key=len, reverse=True))
#: A reference to a kit table (qualified or quoted names too) after FROM/JOIN/INTO/UPDATE.
_REF = re.compile(
    r'\b(FROM|JOIN|INTO|UPDATE)\s+(ONLY\s+)?("?public"?\.)?"?(' + _TABLES + r')\b"?', re.I
)
_DML = re.compile(r"^(WITH|SELECT|INSERT|UPDATE|DELETE)\b", re.I)
#: A user filter: ``user_id = <value>`` or ``user_id IN (...)`` or ``(app_name, user_id) IN``.
_USER = re.compile(
    r"\buser_id\s*(=\s*(%\(|'|\$\d|EXCLUDED\.)|IN\b)"
    r"|\(\s*(\w+\.)?app_name\s*,\s*(\w+\.)?user_id\s*\)\s*IN\b",
    re.I,
)
#: Not a filter: an optional one (``:u IS NULL OR user_id = :u``) or one OR'd with another
#: condition (``applies_to = 'app' OR user_id = :u``) lets the statement span users.
_NOT_A_FILTER = re.compile(r"\b(IS\s+NULL|\S+)\s+OR\s+(\w+\.)?user_id\s*=", re.I)
_INSERT_COLUMNS = re.compile(r"\bINSERT\s+INTO\s+\S+(\s+AS\s+\w+)?\s*\([^)]*\buser_id\b", re.I)


def per_user_tables(sql: str, *, read_only: bool = False) -> set[str]:
    """The per-user tables a DML statement touches (``read_only``: reads and updates only, no
    INSERT target); none for DDL and other SQL."""
    if not _DML.match(sql):
        return set()
    refs = [m for m in _REF.finditer(sql) if not (read_only and m.group(1).upper() == "INTO")]
    return {m.group(4).lower() for m in refs} & set(PER_USER)


def names_a_user(sql: str) -> bool:
    """Whether the statement filters on one user: ``user_id = ...`` / ``IN (...)``, or, for
    an INSERT reading no per-user table, writes a ``user_id`` column."""
    if _USER.search(_NOT_A_FILTER.sub(" ", sql)):
        return True
    return bool(_INSERT_COLUMNS.search(sql)) and not per_user_tables(sql, read_only=True)


async def _rows(url: str, sql: str, **params):
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            return (await conn.execute(text(sql), params)).all()
    finally:
        await engine.dispose()


_TABLES_SQL = """
SELECT c.relname AS name,
       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'user_id'
               AND NOT a.attisdropped) AS has_user,
       EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attname = 'app_name'
               AND NOT a.attisdropped) AS has_app
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition"""
#: Every unique index (primary keys and UNIQUE constraints included) and exclusion constraint.
_UNIQUE_SQL = """
SELECT c.relname AS tbl, i.relname AS idx, pg_get_indexdef(x.indexrelid) AS definition,
       ARRAY(SELECT a.attname::text FROM unnest(x.indkey) k
             JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k) AS cols
FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
WHERE (x.indisunique OR x.indisexclusion) AND c.relname = ANY(:t)"""
_TRIGGERS_SQL = """
SELECT c.relname AS tbl, t.tgname AS name,
       t.tgoldtable IS NOT NULL OR t.tgnewtable IS NOT NULL AS transition
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE NOT t.tgisinternal AND c.relname = ANY(:t)"""
_FOREIGN_KEYS_SQL = """
SELECT conname, conrelid::regclass::text AS src, confrelid::regclass::text AS dst
FROM pg_constraint WHERE contype = 'f'
  AND (conrelid::regclass::text = ANY(:t) OR confrelid::regclass::text = ANY(:t))"""


def unkeyed(rows) -> list[str]:
    """``table.index (definition)`` of each unique index lacking ``user_id`` or ``app_name``."""
    return [
        f"{r.tbl}.{r.idx} ({r.definition})"
        for r in rows
        if not {"user_id", "app_name"} <= set(r.cols)
    ]


def _found_features(statements: list[str], triggers, foreign_keys) -> dict[str, list[str]]:
    """Feature -> where it was found (catalog objects or statements)."""
    found: dict[str, list[str]] = {}

    def add(feature: str, where: str) -> None:
        found.setdefault(feature, []).append(where)

    for t in triggers:
        if t.tbl in PER_USER:
            add("triggers on a distributed table", f"{t.tbl}.{t.name}")
        if t.transition:
            add("statement-level triggers with transition tables", f"{t.tbl}.{t.name}")
    for fk in foreign_keys:
        add("foreign keys", f"{fk.conname}: {fk.src} -> {fk.dst}")
    for sql in statements:
        touched = per_user_tables(sql)
        if touched and "SKIP LOCKED" in sql.upper() and not names_a_user(sql):
            add("FOR UPDATE SKIP LOCKED across users", sql[:160])
        if touched and re.search(r"\btableoid\b", sql):
            add("tableoid to find a user's partition", sql[:160])
        if re.search(r"\bpg_(try_)?advisory_", sql):
            add("advisory locks are node-local", sql[:80])
    return found


def _citus_section() -> str:
    doc = DOCS.read_text()
    start = doc.index("\n### Citus\n")
    end = doc.index("\n## ", start)
    return doc[start:end]


async def test_every_kit_table_is_classified(kit):
    url, _ = kit
    rows = await _rows(url, _TABLES_SQL)
    names = {r.name for r in rows}
    unclassified = names - set(PER_USER) - set(GLOBAL) - ADK_TABLES
    assert not unclassified, (
        f"new tables {sorted(unclassified)}: add each to PER_USER (distributed by user_id) or "
        "GLOBAL (reference/local) in this test, and to docs/scale.md '### Citus'"
    )
    missing = (set(PER_USER) | set(GLOBAL)) - names
    assert not missing, f"listed but not created by the kit any more: {sorted(missing)}"
    for r in rows:
        if r.name in PER_USER:
            assert r.has_user and r.has_app, f"per-user table {r.name} lacks app_name/user_id"
    from adk_memory_kit.db import rls

    # the kit's own list of per-user tables (row-level security) agrees with this one
    assert set(rls.KIT_TABLES) == set(PER_USER) | {"adk_memory_kit_forget_log"}
    assert set(rls.SHARED_TABLES) <= set(GLOBAL)


async def test_every_unique_key_of_a_per_user_table_holds_the_user(kit):
    url, _ = kit
    rows = await _rows(url, _UNIQUE_SQL, t=list(PER_USER))
    assert len(rows) >= len(PER_USER)  # every per-user table has a primary key at least
    bad = unkeyed(rows)
    known = [b for b in bad if b.split(" ")[0] in KNOWN_UNKEYED]
    new = [b for b in bad if b not in known]
    assert not new, (
        "unique keys without user_id and app_name (Citus cannot enforce them on a table "
        "distributed by user_id; add both columns to the key):\n" + "\n".join(new)
    )
    fixed = KNOWN_UNKEYED - {b.split(" ")[0] for b in known}
    assert not fixed, f"fixed, remove from KNOWN_UNKEYED (and docs/scale.md): {sorted(fixed)}"


async def test_the_key_check_catches_a_new_unkeyed_unique_index(kit):
    url, _ = kit
    engine = create_async_engine(url)
    try:
        async with engine.connect() as conn:
            trans = await conn.begin()
            await conn.execute(
                text("CREATE UNIQUE INDEX citus_probe ON adk_memory_items (app_name, event_id)")
            )
            rows = (await conn.execute(text(_UNIQUE_SQL), {"t": ["adk_memory_items"]})).all()
            await trans.rollback()
    finally:
        await engine.dispose()
    assert [b for b in unkeyed(rows) if "citus_probe" in b] == [
        "adk_memory_items.citus_probe (CREATE UNIQUE INDEX citus_probe ON public.adk_memory_items"
        " USING btree (app_name, event_id))"
    ]


def test_the_statement_check_catches_a_statement_without_the_user():
    assert per_user_tables('SELECT 1 FROM "public"."adk_episodic_log" WHERE x') == {
        "adk_episodic_log"
    }
    assert not per_user_tables("CREATE INDEX i ON adk_memory_items (app_name, user_id)")
    assert not names_a_user("SELECT id FROM adk_memory_items WHERE app_name = %(app)s")
    assert not names_a_user("DELETE FROM adk_memory_term_stats WHERE df <= 0")
    assert not names_a_user(
        "SELECT * FROM adk_episodic_log WHERE (CAST(%(u)s AS text) IS NULL OR user_id = %(u)s)"
    )
    assert not names_a_user(
        "SELECT * FROM adk_memory_kit_review_queue WHERE (applies_to = 'app' OR user_id = %(u)s)"
    )
    assert not names_a_user(
        "INSERT INTO adk_memory_user_stats (app_name, user_id, n)"
        " SELECT app_name, user_id, count(*) FROM adk_memory_items GROUP BY 1, 2"
    )
    assert names_a_user(
        "SELECT id FROM adk_memory_items t WHERE t.app_name = %(a)s AND t.user_id = %(u)s"
    )
    assert names_a_user("INSERT INTO adk_memory_items (id, app_name, user_id) VALUES (1, 2, 3)")
    assert names_a_user("INSERT INTO adk_memory_items AS t (app_name, user_id) VALUES (1, 2)")
    assert names_a_user("DELETE FROM adk_memory_kit_forget_fence WHERE user_id IN (%(u)s)")


async def test_every_statement_on_a_per_user_table_names_its_user(kit):
    _, statements = kit
    checked = [s for s in statements if per_user_tables(s)]
    assert len(checked) >= 100  # the workload reached every part of the kit
    touched = set().union(*(per_user_tables(s) for s in checked))
    assert touched == set(PER_USER), f"the workload missed {set(PER_USER) - touched}"
    used: set[str] = set()
    known_hit: set[str] = set()
    bad = []
    for sql in dict.fromkeys(checked):
        if names_a_user(sql):
            continue
        allowed = [p for p in OPERATOR_WIDE if re.search(p, sql)]
        known = [p for p in KNOWN_UNFILTERED if re.search(p, sql)]
        used.update(allowed)
        known_hit.update(known)
        if not allowed and not known:
            bad.append(sql[:300])
    assert not bad, (
        "statements on per-user tables without a user_id filter (a multi-shard query on "
        "Citus): filter on user_id, or, for operator-wide maintenance, add a commented "
        "entry to OPERATOR_WIDE:\n" + "\n".join(bad)
    )
    assert set(KNOWN_UNFILTERED) == known_hit, (
        f"fixed, remove from KNOWN_UNFILTERED: {sorted(set(KNOWN_UNFILTERED) - known_hit)}"
    )
    assert set(OPERATOR_WIDE) == used, (
        f"allow-list entries no statement needs: {sorted(set(OPERATOR_WIDE) - used)}"
    )


async def test_what_citus_does_not_support_is_noted_with_its_replacement(kit):
    url, statements = kit
    tables = [*PER_USER, *GLOBAL]
    triggers = await _rows(url, _TRIGGERS_SQL, t=tables)
    foreign_keys = await _rows(url, _FOREIGN_KEYS_SQL, t=tables)
    found = _found_features(statements, triggers, foreign_keys)
    unnoted = {k: v[:3] for k, v in found.items() if k not in CITUS_NOTES}
    assert not unnoted, (
        f"features Citus does not support on distributed tables, not in CITUS_NOTES (add "
        f"each with its replacement, and to docs/scale.md '### Citus'): {unnoted}"
    )
    stale = set(CITUS_NOTES) - set(found)
    assert not stale, f"CITUS_NOTES entries no longer found (remove them and their doc): {stale}"
    assert {t.name for t in triggers if t.transition} == {
        "adk_memory_term_stats_ins",
        "adk_memory_term_stats_upd",
        "adk_memory_term_stats_del",
        "adk_memory_entities_ins",
        "adk_memory_entities_upd",
        "adk_memory_entities_del",
    }


def test_the_docs_citus_section_lists_the_same_items():
    section = _citus_section()
    flat = " ".join(section.split())
    missing = [
        f"{feature} (the section must say {note['doc']!r})"
        for feature, note in CITUS_NOTES.items()
        if note["doc"] not in flat
    ]
    missing += [
        f"create_distributed_table('{t}'"
        for t in PER_USER
        if f"create_distributed_table('{t}'" not in flat
    ]
    calls = {"reference": "create_reference_table", "local": "citus_add_local_table_to_metadata"}
    missing += [
        f"{calls[kind]}('{t}')"
        for t, (kind, _) in GLOBAL.items()
        if f"{calls[kind]}('{t}')" not in flat
    ]
    missing += [k.split(".")[1] for k in KNOWN_UNKEYED if k.split(".")[1] not in flat]
    missing += [
        why.split(".")[-1] for why in KNOWN_UNFILTERED.values() if why.split(".")[-1] not in flat
    ]
    assert not missing, "docs/scale.md '### Citus' lacks: " + "; ".join(missing)
