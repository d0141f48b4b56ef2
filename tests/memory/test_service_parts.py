"""The memory service as composed parts: MemoryConfig, from_url, and one way into the table.

The service builds its store, write pipeline and curator from one ``MemoryConfig``; a bad
option fails at construction with a kit error naming the field; and no module but the write
pipeline issues the memory table's INSERT (every writer calls the pipeline).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

import adk_memory_kit
from adk_memory_kit import PgVectorMemoryService
from adk_memory_kit.core.session_policy import WritePolicy
from adk_memory_kit.errors import InvalidInputError
from adk_memory_kit.memory import MemoryConfig, RuleConsolidator, SearchOptions, WriteReport
from adk_memory_kit.memory.curator import MemoryCurator
from adk_memory_kit.memory.pipeline import WritePipeline
from adk_memory_kit.memory.store import MemoryStore
from tests.support.memory import unique

PACKAGE = Path(adk_memory_kit.__file__).resolve().parent


def fact(text: str, importance: float = 0.8) -> MemoryEntry:
    return MemoryEntry(
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        custom_metadata={"importance": importance},
    )


def test_from_url_builds_one_config_shared_by_the_parts(embedder):
    consolidator = RuleConsolidator()
    service = PgVectorMemoryService.from_url(
        "postgresql+psycopg://x@localhost/x",
        embedder=embedder,
        write_policy="full_transcript",
        search=SearchOptions(limit=7),
        storage={"partitions": 3},
        consolidator=consolidator,
        min_importance=0.25,
    )
    assert isinstance(service.store, MemoryStore)
    assert isinstance(service.pipeline, WritePipeline)
    assert isinstance(service.curator, MemoryCurator)
    assert service.curator.pipeline is service.pipeline
    assert service.pipeline.store is service.store is service.curator.store
    assert service.config is service.pipeline.config
    assert service.config.write_policy is WritePolicy.FULL_TRANSCRIPT
    assert service.config.consolidator is consolidator
    assert service.store.search_options.limit == 7
    assert service.store.storage.partitions == 3
    assert service.metrics is service.pipeline.metrics is service.curator.metrics


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"min_importance": 1.5}, "MemoryConfig.min_importance"),
        ({"min_importance": True}, "MemoryConfig.min_importance"),
        ({"pool_size": 0}, "MemoryConfig.pool_size"),
        ({"access_flush_delay": -1}, "MemoryConfig.access_flush_delay"),
        ({"verifier": "yes"}, "MemoryConfig.verifier"),
        ({"consolidator": object()}, "MemoryConfig.consolidator"),
        ({"routed_options": {}}, "MemoryConfig.routed_options"),
        ({"write_policy": "everything"}, "write_policy"),
        ({"storage": {"partitions": 0}}, "partitions"),
        ({"colour": "blue"}, "MemoryConfig.colour"),
    ],
)
def test_bad_options_fail_at_construction_naming_the_field(embedder, options, named):
    with pytest.raises(InvalidInputError, match=named.replace(".", r"\.")):
        PgVectorMemoryService.from_url(embedder=embedder, **options)
    with pytest.raises(InvalidInputError, match=named.replace(".", r"\.")):
        MemoryConfig(**options)


def test_the_constructor_takes_a_config_object_only(embedder):
    with pytest.raises(InvalidInputError, match="config must be a MemoryConfig"):
        PgVectorMemoryService(embedder=embedder, config={"min_importance": 0.5})  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match=r"unknown PgVectorMemoryService options.*from_url"):
        PgVectorMemoryService(embedder=embedder, min_importance=0.5)


def _calls(tree: ast.AST, name: str) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == name
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "items_sql"
    ]


def test_only_the_write_pipeline_writes_memory_rows():
    """``memory/items_sql.py``'s upsert is the memory table's only INSERT; only the pipeline
    calls it, so every writer (the service, the distiller, the toolset, reindex, the
    curator) passes the pipeline's stages."""
    store_source = (PACKAGE / "memory" / "items_sql.py").read_text(encoding="utf-8")
    assert store_source.count("INSERT INTO {TABLE}") == 1
    callers = {}
    for path in PACKAGE.rglob("*.py"):
        found = _calls(ast.parse(path.read_text(encoding="utf-8")), "upsert")
        if found:
            callers[str(path.relative_to(PACKAGE))] = found
    assert set(callers) == {"memory/pipeline.py"}, callers


async def test_the_curator_and_the_pipeline_act_on_the_services_rows(db_url, embedder):
    service = PgVectorMemoryService.from_url(db_url, embedder=embedder, min_importance=0.3)
    app, user = unique("app"), unique("u")
    try:
        report = await service.pipeline.write_entries(
            app_name=app,
            user_id=user,
            memories=[fact("Ana keeps bees in Evora."), fact("trivia", importance=0.1)],
        )
        assert isinstance(report, WriteReport)
        assert [o.outcome for o in report.outcomes] == ["WRITTEN", "REJECTED"]
        assert service.metrics.rejected_low_importance == 1
        found = await service.search(app_name=app, user_id=user, query="bees", limit=1)
        (row_id,) = [m.id for m in found.memories]
        fixed = await service.curator.correct_memory(
            app_name=app,
            user_id=user,
            memory_id=row_id,
            new_text="Ana keeps bees in Beja.",
            reason="she moved",
        )
        assert fixed.old_id == row_id
        now = await service.search(app_name=app, user_id=user, query="bees", limit=1)
        assert now.memories[0].id == fixed.new_id
        assert now.memories[0].content.parts[0].text == "Ana keeps bees in Beja."
        await service.curator.pin_memory(app_name=app, user_id=user, memory_id=fixed.new_id)
        pinned = await service.search(
            app_name=app, user_id=user, query="bees", limit=1, record_access=False
        )
        assert pinned.memories[0].custom_metadata["pinned"] is True
        counts = await service.store.count_by_kind(app_name=app, user_id=user)
        assert sum(counts.values()) == 2  # the superseded row is kept
    finally:
        await service.delete_user_memories(app_name=app, user_id=user)
        await service.close()
