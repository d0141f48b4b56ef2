"""partitions=N: hash-partitioned memory tables on a new database, pruning to one partition."""

from __future__ import annotations

import re
import uuid

import pytest
from pgvector.sqlalchemy import VECTOR
from sqlalchemy import bindparam, make_url, text
from sqlalchemy.ext.asyncio import create_async_engine

from adk_memory_kit import InvalidInputError, PgVectorMemoryService
from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.errors import SchemaMismatchError
from adk_memory_kit.memory.config import SearchOptions
from adk_memory_kit.memory.lexical import candidate_queries
from adk_memory_kit.memory.query import query_terms
from adk_memory_kit.memory.search import search_params
from adk_memory_kit.memory.search_sql import (
    FETCH_SQL,
    LIGHT_LISTS_SQL,
    heavy_lexical_sql,
    heavy_sql,
)
from tests.support.memory import session_with, texts, unique

pytestmark = pytest.mark.slow

TABLES = (
    "adk_memory_items",
    "adk_memory_session_snapshots",
    "adk_memory_user_stats",
    "adk_memory_term_stats",
)


async def _fresh_database(db_url: str) -> str:
    """A new, empty database on the test server; its URL."""
    name = f"part_{uuid.uuid4().hex[:10]}"
    admin = create_async_engine(db_url, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f"CREATE DATABASE {name}"))
    await admin.dispose()
    return make_url(db_url).set(database=name).render_as_string(hide_password=False)


def _explain(sql):
    explain = text("EXPLAIN (COSTS OFF) " + sql.text)
    if ":qvec" in sql.text:
        explain = explain.bindparams(bindparam("qvec", type_=VECTOR()))
    return explain


@pytest.fixture(scope="module")
async def partitioned(db_url, embedder):
    service = PgVectorMemoryService.from_url(
        await _fresh_database(db_url), embedder=embedder, storage={"partitions": 4}
    )
    yield service
    await service.close()


async def test_new_database_gets_hash_partitioned_tables(partitioned):
    await partitioned.store.ready()
    async with operator_connect(partitioned.engine) as conn:
        for table in TABLES:
            row = (
                await conn.execute(
                    text(
                        "SELECT c.relkind::text AS kind, pg_get_partkeydef(c.oid) AS key,"
                        " (SELECT count(*) FROM pg_inherits i WHERE i.inhparent = c.oid) AS n"
                        " FROM pg_class c WHERE c.oid = to_regclass(:t)"
                    ),
                    {"t": table},
                )
            ).one()
            assert (row.kind, row.key, row.n) == ("p", "HASH (user_id)", 4), table


async def test_search_on_partitions_touches_one_partition(partitioned, embedder):
    app = unique("app")
    # fixed names inside a fresh app: a random id in the sentence made the offline router
    # call about 1 in 300 of them sensitive (dropped by the routed policy), failing the test
    users = [f"customer-{n}" for n in range(8)]
    for user in users:
        await partitioned.add_session_to_memory(
            session_with(app, user, [("user", f"My order A-4521 for {user} is late")])
        )
    found = await partitioned.search_memory(app_name=app, user_id=users[0], query="A-4521")
    assert len(found.memories) == 1 and users[0] in texts(found)[0]
    query = "order A-4521 late"
    (vec,) = await embedder.embed([query])
    params = {**search_params(app, users[0], query_terms(query), 10, SearchOptions()), "qvec": vec}
    # one rare lexeme and two coverage tiers, so every branch of the lexical statement is planned
    tiers = candidate_queries({"4521": 1, "late": 8, "order": 8}, budget=1)
    assert tiers.rare and len(tiers.tiers) == 2
    params.update(tq_rare=tiers.rare, tier0=tiers.tiers[0], tier1=tiers.tiers[1])
    params.update(cq0t="'order':A", cq0c="'order'", cw0t=1.0, cw0c=0.5)
    row_id = found.memories[0].id
    params.update(ids=[row_id])
    statements = {
        "light": LIGHT_LISTS_SQL,
        "heavy lexical": heavy_lexical_sql(True, 2, 1),
        "heavy dense": heavy_sql(app, users[0]),
        "fetch": FETCH_SQL,
    }
    async with operator_connect(partitioned.engine) as conn:
        for name, sql in statements.items():
            plan = "\n".join(r[0] for r in await conn.execute(_explain(sql), params))
            touched = set(re.findall(r"\b(adk_memory_\w+?_p\d+)\b", plan))
            by_table = {re.sub(r"_p\d+$", "", name) for name in touched}
            assert len(touched) == len(by_table), (name, plan)  # one partition per table
            assert "adk_memory_items" in by_table, name


async def test_partitions_refused_on_an_existing_plain_table(db_url, embedder):
    url = await _fresh_database(db_url)
    plain = PgVectorMemoryService(url, embedder=embedder)
    await plain.store.ready()
    await plain.close()
    again = PgVectorMemoryService.from_url(url, embedder=embedder, storage={"partitions": 4})
    with pytest.raises(SchemaMismatchError, match="not partitioned.*docs/scale.md"):
        await again.store.ready()
    await again.close()


@pytest.mark.parametrize("bad", [0, -2, True, 2.5, "4"])
def test_partitions_must_be_a_positive_whole_number(bad):
    with pytest.raises(InvalidInputError, match="partitions"):
        PgVectorMemoryService.from_url(
            "postgresql+psycopg://x@localhost/x", storage={"partitions": bad}
        )


async def test_this_runs_memory_tables_match_the_requested_layout(memory, test_partitions):
    """Under ADK_MEMORY_KIT_TEST_PARTITIONS the shared test database is partitioned."""
    await memory.store.ready()
    async with operator_connect(memory.engine) as conn:
        kind = await conn.scalar(
            text("SELECT relkind::text FROM pg_class WHERE oid = to_regclass('adk_memory_items')")
        )
    assert kind == ("p" if test_partitions else "r")


@pytest.mark.parametrize("partitions", [None, 3])
async def test_storage_settings_keep_updates_in_place_and_pending_lists_short(
    db_url, embedder, partitions
):
    """fillfactor 70 on the memory table (each partition), a 256 kB GIN pending list on both
    full-text indexes (each partition's), so recorded accesses are HOT updates and full-text
    scans never read a long pending list (docs/scale.md)."""
    service = PgVectorMemoryService.from_url(
        await _fresh_database(db_url), embedder=embedder, storage={"partitions": partitions}
    )
    try:
        await service.store.ready()
        async with operator_connect(service.engine) as conn:
            rows = await conn.execute(
                text(
                    "SELECT c.relname, c.relkind::text AS kind, c.reloptions FROM pg_class c"
                    " WHERE c.relname LIKE 'adk_memory_items%' AND c.relkind IN ('r', 'i')"
                    " AND (c.relkind = 'r' OR c.relname LIKE '%tsv%')"
                )
            )
            options = {r.relname: (r.kind, r.reloptions or []) for r in rows}
    finally:
        await service.close()
    tables = [n for n, (kind, _) in options.items() if kind == "r"]
    indexes = [n for n, (kind, _) in options.items() if kind == "i"]
    assert len(tables) == (partitions or 1) and len(indexes) == 2 * (partitions or 1)
    for name in tables:
        assert "fillfactor=70" in options[name][1], name
    for name in indexes:
        assert "gin_pending_list_limit=256" in options[name][1], name
