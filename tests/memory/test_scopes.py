"""Memory scopes (issue 47): user, agent-private, app-shared and group-shared rows.

Real parts: the embedded PostgreSQL, the real MiniLM embedder, data written through the kit's
public service methods. Each text is deliberately similar across owners, so a search that
leaked would find the other owner's row near the top.
"""

from __future__ import annotations

import uuid

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from adk_memory_kit.core.memory_scopes import APP_OWNER, describe, entitled_reads, parse_scope
from adk_memory_kit.db.rls import operator_begin
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory.scoped_search import merge_ranked
from tests.support.memory import session_with, texts, unique


def _entry(words: str) -> MemoryEntry:
    return MemoryEntry(content=types.Content(role="user", parts=[types.Part(text=words)]))


def _scoped(response) -> dict[str, str]:
    """text -> scope of each result."""
    return {
        " ".join(p.text or "" for p in m.content.parts): (m.custom_metadata or {})["scope"]
        for m in response.memories
    }


@pytest.fixture(scope="module")
async def world(memory):
    """One app: ann and bob, each with an own fact and a billing- and travel-agent note; one
    app-wide rule; a finance-group rule granted to ann only."""
    app = unique("scopes")
    for user in ("ann", "bob"):
        await memory.add_memory(
            app_name=app, user_id=user, memories=[_entry(f"{user} prefers the office in Pune")]
        )
        for agent in ("billing", "travel"):
            await memory.add_agent_memory(
                app_name=app,
                user_id=user,
                agent_name=agent,
                memories=[f"{agent} agent note: {user} prefers the office in Pune on Fridays"],
            )
    await memory.add_shared_memory(
        app_name=app, memories=["The Pune office is closed on Fridays"], scope="app"
    )
    await memory.add_shared_memory(
        app_name=app,
        memories=["Finance: the Pune office expense budget is frozen"],
        scope="group:finance",
    )
    assert await memory.grant_group(app_name=app, user_id="ann", group="finance")
    return app


async def _search(memory, app, user, agent=None, query="Pune office Fridays"):
    return await memory.search(
        app_name=app, user_id=user, query=query, limit=20, agent_name=agent, record_access=False
    )


async def test_a_user_reads_their_own_rows_and_the_apps_never_anothers(memory, world):
    found = _scoped(await _search(memory, world, "bob"))
    assert found == {
        "bob prefers the office in Pune": "user",
        "The Pune office is closed on Fridays": "app",
    }


async def test_an_agent_reads_its_own_private_rows_never_another_agents(memory, world):
    found = _scoped(await _search(memory, world, "bob", agent="billing"))
    assert found["billing agent note: bob prefers the office in Pune on Fridays"] == "agent:billing"
    assert not [t for t in found if "travel" in t or "ann" in t]
    travel = _scoped(await _search(memory, world, "bob", agent="travel"))
    assert not [t for t in travel if "billing" in t]
    assert "travel agent note: bob prefers the office in Pune on Fridays" in travel


async def test_adk_search_memory_reads_user_and_app_scope(memory, world):
    found = await memory.search_memory(app_name=world, user_id="ann", query="Pune office Fridays")
    scopes = _scoped(found)
    assert set(scopes.values()) == {"user", "app", "group:finance"}  # ann holds the grant
    assert not [t for t in scopes if "agent" in t or "bob" in t]


async def test_a_group_is_read_only_by_the_users_granted_it(memory, world):
    assert "group:finance" in _scoped(await _search(memory, world, "ann")).values()
    assert "group:finance" not in _scoped(await _search(memory, world, "bob")).values()
    assert await memory.groups_of(app_name=world, user_id="ann") == ["finance"]
    assert await memory.revoke_group(app_name=world, user_id="ann", group="finance")
    assert "group:finance" not in _scoped(await _search(memory, world, "ann")).values()
    assert await memory.grant_group(app_name=world, user_id="ann", group="finance")


async def test_another_app_never_reads_this_apps_shared_rows(memory, world):
    other = unique("scopes_other")
    await memory.add_memory(app_name=other, user_id="ann", memories=[_entry("ann likes Pune")])
    assert set(_scoped(await _search(memory, other, "ann")).values()) == {"user"}


async def test_a_conversation_cannot_write_a_shared_row(memory, world):
    """The routed session write and the user-facing doors refuse the shared owner ids, and
    the pipeline refuses a shared scope under a user's id; the database refuses the rest."""
    session = session_with(world, APP_OWNER, [("user", "The Pune office opens on Sundays")])
    with pytest.raises(InvalidInputError, match="shared memory"):
        await memory.add_session_to_memory(session)
    with pytest.raises(InvalidInputError, match="shared memory"):
        await memory.add_memory(app_name=world, user_id=APP_OWNER, memories=[_entry("x y z")])
    with pytest.raises(InvalidInputError, match="owner id"):
        await memory.pipeline.write_entries(
            app_name=world, user_id="bob", memories=[_entry("x y z")], scope="app"
        )
    with pytest.raises(InvalidInputError, match="'app' or 'group"):
        await memory.add_shared_memory(app_name=world, memories=["x y z"], scope="user")
    async with operator_begin(memory.engine) as conn:  # even SQL that tries: the constraint
        with pytest.raises(DBAPIError, match="scope_owner"):
            await conn.execute(
                text("UPDATE adk_memory_items SET scope = 'app' WHERE app_name = :a"),
                {"a": world},
            )
    assert set(_scoped(await _search(memory, world, "bob")).values()) == {"user", "app"}


async def test_forgetting_a_user_keeps_the_apps_knowledge(memory, world, sessions):
    from adk_memory_kit.lifecycle.forget import forget_user

    app = unique("scopes_forget")
    await memory.add_memory(app_name=app, user_id="cat", memories=[_entry("cat owns a boat")])
    await memory.add_agent_memory(
        app_name=app, user_id="cat", agent_name="billing", memories=["cat pays by card, boat"]
    )
    await memory.add_shared_memory(app_name=app, memories=["boats dock at pier 4"])
    exported = await _export(memory, app, "cat")
    assert {r["scope"] for r in exported} == {"user", "agent:billing"}
    await forget_user(app, "cat", session_service=sessions, memory_service=memory)
    assert await _export(memory, app, "cat") == []
    after = _scoped(await _search(memory, app, "cat", agent="billing", query="boat pier"))
    assert after == {"boats dock at pier 4": "app"}
    with pytest.raises(InvalidInputError):
        await forget_user(app, APP_OWNER, session_service=sessions, memory_service=memory)


async def _export(memory, app, user):
    from adk_memory_kit.memory.browse import export_memories

    return await export_memories(memory.store, app_name=app, user_id=user)


async def test_an_export_holds_the_users_rows_in_every_scope_and_no_shared_row(memory, world):
    rows = await _export(memory, world, "ann")
    assert {r["scope"] for r in rows} == {"user", "agent:billing", "agent:travel"}
    assert all("ann" in r["text"] for r in rows)


async def test_the_users_of_an_app_are_people_not_shared_owners(memory, world):
    """A shared scope's reserved owner is no user: listing the app's users (the console's
    home page, stale-memory purges) never yields it, so nothing asks for a '~shared:' user."""
    assert await memory.list_users(world) == ["ann", "bob"]


async def test_an_operator_deletes_a_shared_row(memory):
    app = unique("scopes_delete")
    await memory.add_shared_memory(app_name=app, memories=["lunch is at noon on weekdays"])
    (hit,) = (await _search(memory, app, "dan", query="lunch noon")).memories
    assert await memory.delete_memory(app_name=app, user_id="dan", memory_id=hit.id) == 0
    assert await memory.delete_shared_memory(app_name=app, scope="app", memory_id=hit.id) == 1
    assert not (await _search(memory, app, "dan", query="lunch noon")).memories


async def test_bad_scope_input_is_refused_without_echoing_it():
    for bad in ("everyone", "agent:", "group:Bad Name!", 3):
        with pytest.raises(InvalidInputError, match="scope|group|agent_name") as caught:
            parse_scope(bad)
        assert "Bad Name" not in str(caught.value)
    assert parse_scope(" Group:Finance ") == "group:finance"
    reads = entitled_reads("u1", agent_name="billing", groups=["hr"])
    assert [(r.owner, r.scopes) for r in reads] == [
        ("u1", ("user", "agent:billing")),
        (APP_OWNER, ("app",)),
        ("~shared:group:hr", ("group:hr",)),
    ]
    assert describe("app") == "shared by the app" and describe("user") is None


def test_merging_keeps_each_lists_order_and_one_list_unchanged():
    a = [{"id": 1, "score": 0.5}, {"id": 2, "score": 0.9}, {"id": 3, "score": 0.1}]
    b = [{"id": 4, "score": 0.6}, {"id": 5, "score": 0.2}]
    assert [r["id"] for r in merge_ranked([a], 10)] == [1, 2, 3]
    assert [r["id"] for r in merge_ranked([a, []], 2)] == [1, 2]
    assert [r["id"] for r in merge_ranked([a, b], 10)] == [4, 1, 2, 5, 3]


async def test_with_no_shared_rows_the_search_is_the_users_own(memory):
    """The default search is unchanged: same rows, same order as the one-owner search."""
    from adk_memory_kit.memory.entries import search_filters

    app, user = unique("scopes_same"), "eve"
    said = ["eve walks the dog at six", "eve's dog is a collie", "eve lives near the park"]
    await memory.add_memory(app_name=app, user_id=user, memories=[_entry(s) for s in said])
    found = await _search(memory, app, user, query="dog walk park")
    own = await memory.store.search_rows(
        app_name=app,
        user_id=user,
        query="dog walk park",
        limit=20,
        filters=search_filters(None, None, None, False),
    )
    assert texts(found) == [r["text"] for r in own]
    assert await memory.store.entitled_reads(app, user) == entitled_reads(user)[:1]


def test_the_shared_prefix_is_refused_as_a_user_id():
    from adk_memory_kit.core.validation import check_scope

    with pytest.raises(InvalidInputError, match="user_id must not start with"):
        check_scope("app", "~shared:app")
    check_scope("app", f"shared-{uuid.uuid4().hex}")


async def test_an_agent_note_with_a_subject_is_refused(memory):
    entry = _entry("billing prefers PDF")
    with pytest.raises(InvalidInputError, match="no subject"):
        await memory.add_agent_memory(
            app_name=unique("scopes_subject"),
            user_id="fay",
            agent_name="billing",
            memories=[entry],
            custom_metadata={"subject": "invoices"},
        )


async def test_the_heavy_path_reads_the_same_scopes_as_the_light_one(db_url, embedder, memory):
    """Every user down the bounded (heavy) path, an index built: the scope filter holds in
    the dense and the lexical lists, and the result equals the light path's."""
    from adk_memory_kit.assembly import PgVectorMemoryService
    from adk_memory_kit.memory.ann import build_user_index
    from adk_memory_kit.memory.config import SearchOptions

    heavy = PgVectorMemoryService.from_url(
        db_url,
        embedder=embedder,
        search=SearchOptions(heavy_user_rows=1, lexical_budget=1_000),
        write_policy="full_transcript",
    )
    try:
        app = unique("scopes_heavy")
        said = [f"gus keeps receipt {n} for the Pune taxi" for n in range(6)]
        await heavy.add_memory(app_name=app, user_id="gus", memories=[_entry(s) for s in said])
        for agent in ("billing", "travel"):
            await heavy.add_agent_memory(
                app_name=app,
                user_id="gus",
                agent_name=agent,
                memories=[f"{agent}: gus keeps receipt {n} for the Pune taxi" for n in range(3)],
            )
        await heavy.add_shared_memory(app_name=app, memories=["Pune taxi receipts go to finance"])
        await heavy.store.wait_for_index_builds()
        await build_user_index(heavy.engine, app, "gus")
        for service in (heavy, memory):
            found = _scoped(await _search(service, app, "gus", agent="billing", query="Pune taxi"))
            assert set(found.values()) == {"user", "agent:billing", "app"}
            assert not [t for t in found if t.startswith("travel")]
        heavy_found = await _search(heavy, app, "gus", agent="billing", query="receipt taxi")
        light_found = await _search(memory, app, "gus", agent="billing", query="receipt taxi")
        assert set(texts(heavy_found)) == set(texts(light_found))
    finally:
        await heavy.close()
