"""A light user's search reads only the light user's rows, whatever a neighbour holds (issue 49).

The light statement is planned with the settings the search runs it under
(``LIGHT_SETTINGS_SQL``) next to a neighbour of the same app who holds 100x as many rows with
the same words: right after the neighbour's rows arrive (no ANALYZE yet, as before
autovacuum's), and once analysed. Every scan of the memory table must be a btree scan on the
user's key that returns no more rows than the user has, and the buffers the statement touches
must not grow with the neighbour (beyond the one TOAST-index level its first rows may add).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from pgvector.sqlalchemy import VECTOR
from sqlalchemy import bindparam, make_url, text
from sqlalchemy.ext.asyncio import create_async_engine

from adk_memory_kit.db.rls import operator_connect
from adk_memory_kit.memory import BasePgVectorMemoryService, SearchOptions
from adk_memory_kit.memory.query import query_terms
from adk_memory_kit.memory.search import search_params, search_rows
from adk_memory_kit.memory.search_sql import LIGHT_LISTS_SQL, LIGHT_SETTINGS_SQL, VECTOR_ONLY_SQL
from adk_memory_kit.memory.tables import TABLE

pytestmark = pytest.mark.slow

APP = "fair-app"
LIGHT, NEIGHBOUR = "light-user", "big-neighbour"
FACTS, LIGHT_COPIES, COPIES = 30, 10, 30
ROWS = FACTS * LIGHT_COPIES  # the light user's rows; the neighbour gets COPIES times as many
PETS = ["parrot", "gecko", "ferret", "goldfish", "tortoise", "hamster", "rabbit", "canary"]
QUERY = "what did my gecko eat today"


async def _fresh_database(db_url: str) -> str:
    """A new, empty database on the test server (its statistics are this test's only)."""
    name = f"fair_{uuid.uuid4().hex[:10]}"
    admin = create_async_engine(db_url, isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f"CREATE DATABASE {name}"))
    await admin.dispose()
    return make_url(db_url).set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="module")
async def service(db_url, embedder, test_partitions):
    memory = BasePgVectorMemoryService.from_url(
        await _fresh_database(db_url),
        embedder=embedder,
        write_policy="full_transcript",
        storage={"partitions": test_partitions},
    )
    facts = [
        MemoryEntry(
            content=types.Content(
                role="user",
                parts=[types.Part(text=f"Note {i}: my {PETS[i % len(PETS)]} ate {i} seeds today.")],
            )
        )
        for i in range(FACTS)
    ]
    await memory.add_memory(app_name=APP, user_id=LIGHT, memories=facts)
    await _copy_rows(memory, LIGHT, LIGHT_COPIES - 1)
    async with operator_connect(memory.engine) as conn:
        await conn.execute(text(f"ANALYZE {TABLE}"))
        await conn.commit()
    yield memory
    await memory.close()


_COLUMNS = (
    "app_name, session_id, kind, author, role, text, search_text, context_text, source_hash,"
    " embedding, event_time, memory_type"
)


async def _copy_rows(memory: BasePgVectorMemoryService, to_user: str, copies: int) -> None:
    """``copies`` more copies of the light user's embedded facts (the same words and vectors)
    for ``to_user``, written as a bulk load would, with no ANALYZE afterwards."""
    async with operator_connect(memory.engine) as conn:
        await conn.execute(
            text(
                f"INSERT INTO {TABLE} (id, user_id, event_id, {_COLUMNS})"
                f" SELECT gen_random_uuid(), :to, t.event_id || '~' || :g || g, {_COLUMNS}"
                f" FROM {TABLE} t CROSS JOIN generate_series(1, {copies}) g"
                " WHERE t.app_name = :a AND t.user_id = :u AND t.event_id NOT LIKE '%~%'"
            ),
            {"a": APP, "u": LIGHT, "to": to_user, "g": uuid.uuid4().hex[:6]},
        )
        await conn.commit()


async def _add_neighbour(memory: BasePgVectorMemoryService) -> None:
    """COPIES times the light user's rows more for the neighbour (unanalysed)."""
    await _copy_rows(memory, NEIGHBOUR, COPIES * LIGHT_COPIES)


def _nodes(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield node
    for child in node.get("Plans", []):
        yield from _nodes(child)


async def _plan(memory: BasePgVectorMemoryService, sql: Any) -> dict[str, Any]:
    """EXPLAIN (ANALYZE, BUFFERS) of a light statement, planned as the search plans it."""
    (qvec,) = await memory.embedder.embed([QUERY])
    params = {
        **search_params(APP, LIGHT, query_terms(QUERY), 10, SearchOptions()),
        "qvec": qvec,
    }
    explain = text("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + sql.text).bindparams(
        bindparam("qvec", type_=VECTOR())
    )
    async with operator_connect(memory.engine) as conn:
        await conn.execute(LIGHT_SETTINGS_SQL)
        plan = (await conn.execute(explain, params)).scalar_one()[0]["Plan"]
        await conn.rollback()
    return plan


def _check_own_rows_only(plan: dict[str, Any]) -> int:
    """Every scan of the memory table is a btree scan on the user's key returning at most the
    user's rows; returns the statement's shared buffers."""
    scans = [n for n in _nodes(plan) if str(n.get("Relation Name", "")).startswith(TABLE)]
    assert scans
    for node in scans:
        assert node["Node Type"] in ("Index Scan", "Index Only Scan"), node["Node Type"]
        assert "user_id" in node.get("Index Cond", ""), node
        assert node["Actual Rows"] <= ROWS, node
    assert not [n for n in _nodes(plan) if n["Node Type"].startswith("Bitmap")]
    return int(plan["Shared Hit Blocks"]) + int(plan.get("Shared Read Blocks", 0))


async def test_a_light_users_plan_reads_only_their_rows_at_any_neighbour_size(service):
    alone = {sql: _check_own_rows_only(await _plan(service, sql)) for sql in _STATEMENTS}
    await _add_neighbour(service)  # right after the load: no statistics of it yet
    loaded = {sql: _check_own_rows_only(await _plan(service, sql)) for sql in _STATEMENTS}
    await _analyse(service)
    quiet = {sql: _check_own_rows_only(await _plan(service, sql)) for sql in _STATEMENTS}
    await _add_neighbour(service)  # the neighbour doubles, unanalysed again
    grown = {sql: _check_own_rows_only(await _plan(service, sql)) for sql in _STATEMENTS}
    await _analyse(service)
    grown_quiet = {sql: _check_own_rows_only(await _plan(service, sql)) for sql in _STATEMENTS}
    for sql in _STATEMENTS:
        # (from an empty server, the buffers grow once: each vector, stored out of line, is
        # read through a TOAST index that holds every user's vectors, one more level deep)
        assert alone[sql] and loaded[sql]
        # twice the neighbour: the same pages of the same user
        assert grown[sql] <= quiet[sql] * 1.05 + 2, (quiet, grown)
        assert grown_quiet[sql] <= quiet[sql] * 1.05 + 2, (quiet, grown_quiet)


async def _analyse(memory: BasePgVectorMemoryService) -> None:
    async with operator_connect(memory.engine) as conn:
        await conn.execute(text(f"ANALYZE {TABLE}"))
        await conn.commit()


_STATEMENTS = (LIGHT_LISTS_SQL, VECTOR_ONLY_SQL)


async def test_the_light_search_runs_under_the_light_settings(service):
    """The search itself plans its light statements with bitmap and sequential scans off (in
    its own transaction only: a new transaction has the server's settings back)."""
    (qvec,) = await service.embedder.embed([QUERY])
    async with operator_connect(service.engine) as conn:
        rows = await search_rows(
            conn,
            app=APP,
            user=LIGHT,
            qvec=qvec,
            terms=query_terms(QUERY),
            limit=5,
            options=SearchOptions(),
        )
        assert rows and "gecko" in rows[0]["text"]
        assert await conn.scalar(text("SELECT current_setting('enable_bitmapscan')")) == "off"
        assert await conn.scalar(text("SELECT current_setting('enable_seqscan')")) == "off"
        await conn.rollback()
        assert await conn.scalar(text("SELECT current_setting('enable_bitmapscan')")) == "on"
