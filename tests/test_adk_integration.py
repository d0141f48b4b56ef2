"""The pgvector:// scheme in ADK's service registry, a Runner with load_memory, and Gemini."""

from __future__ import annotations

import os
import runpy
from pathlib import Path

import pytest
from google.adk.cli.service_registry import get_service_registry
from google.adk.memory.memory_entry import MemoryEntry
from google.genai import types

from adk_memory_kit import GeminiEmbedder, PgVectorMemoryService
from adk_memory_kit.adk_services import db_url_from_uri

AGENTS_DIR = Path(__file__).resolve().parents[1] / "agents"


def test_uri_translation():
    assert db_url_from_uri("pgvector://") is None
    assert (
        db_url_from_uri("pgvector://bob:pw@db.internal:5433/memories")
        == "postgresql+psycopg://bob:pw@db.internal:5433/memories"
    )
    with pytest.raises(ValueError, match="pgvector://"):
        db_url_from_uri("sqlite:///x.db")


async def test_agents_services_py_registers_the_scheme(db_url):
    runpy.run_path(str(AGENTS_DIR / "services.py"))
    registry = get_service_registry()
    service = registry.create_memory_service("pgvector://", agents_dir=str(AGENTS_DIR))
    assert isinstance(service, PgVectorMemoryService)
    # the embedded default in this test run is the same server as db_url
    entry = MemoryEntry(content=types.Content(parts=[types.Part(text="registry round trip")]))
    await service.add_memory(app_name="reg", user_id="u1", memories=[entry])
    found = await service.search_memory(app_name="reg", user_id="u1", query="round trip")
    assert found.memories[0].content.parts[0].text == "registry round trip"
    await service.close()
    explicit = registry.create_memory_service(
        "pgvector://" + db_url.split("://", 1)[1], agents_dir=str(AGENTS_DIR)
    )
    assert isinstance(explicit, PgVectorMemoryService)
    found = await explicit.search_memory(app_name="reg", user_id="u1", query="round trip")
    assert len(found.memories) == 1
    await explicit.close()


async def test_services_yaml_style_construction(db_url):
    """ADK's services.yaml builds a class as ``cls(uri=..., agents_dir=...)``."""
    from google.adk.cli.service_registry import ServiceRegistry, _register_services_from_yaml_config

    registry = ServiceRegistry()
    _register_services_from_yaml_config(
        {
            "services": [
                {
                    "scheme": "pgvector",
                    "type": "memory",
                    "class": "adk_memory_kit.PgVectorMemoryService",
                }
            ]
        },
        registry,
    )
    for uri in ("pgvector://", "pgvector://" + db_url.split("://", 1)[1]):
        service = registry.create_memory_service(uri, agents_dir=str(AGENTS_DIR))
        assert isinstance(service, PgVectorMemoryService)
        entry = MemoryEntry(content=types.Content(parts=[types.Part(text="yaml built me")]))
        await service.add_memory(app_name="yaml", user_id="u1", memories=[entry])
        found = await service.search_memory(app_name="yaml", user_id="u1", query="yaml built")
        assert found.memories[0].content.parts[0].text == "yaml built me"
        await service.close()


async def test_pgvector_scheme_for_sessions_shares_the_database(db_url):
    """`--session_service_uri=pgvector://`: ADK's DatabaseSessionService on the same Postgres."""
    from google.adk.sessions.database_session_service import DatabaseSessionService

    runpy.run_path(str(AGENTS_DIR / "services.py"))
    registry = get_service_registry()
    sessions = registry.create_session_service("pgvector://", agents_dir=str(AGENTS_DIR))
    assert isinstance(sessions, DatabaseSessionService)
    first = await sessions.create_session(
        app_name="sess_scheme", user_id="u1", state={"user:pref_diet": "vegan"}
    )
    second = await sessions.create_session(app_name="sess_scheme", user_id="u1")
    assert second.state["user:pref_diet"] == "vegan" and first.id != second.id
    await sessions.close()
    explicit = registry.create_session_service(
        "pgvector://" + db_url.split("://", 1)[1], agents_dir=str(AGENTS_DIR)
    )
    listed = await explicit.list_sessions(app_name="sess_scheme", user_id="u1")
    assert {s.id for s in listed.sessions} == {first.id, second.id}  # same database
    await explicit.close()


def test_gemini_embedder_builds_a_fixed_dimension_request():
    embedder = GeminiEmbedder("gemini-embedding-001", dim=768, client=object())
    request = embedder.build_request(["hello", "world"])
    assert request["model"] == "gemini-embedding-001"
    assert request["contents"] == ["hello", "world"]
    assert request["config"].output_dimensionality == 768
    assert request["config"].task_type == "RETRIEVAL_DOCUMENT"
    assert embedder.dim == 768 and embedder.model_id == "gemini:gemini-embedding-001"


@pytest.mark.skipif(not os.environ.get("GOOGLE_API_KEY"), reason="needs GOOGLE_API_KEY")
async def test_gemini_embedder_live():
    vectors = await GeminiEmbedder(dim=256).embed(["a short sentence"])
    assert len(vectors) == 1 and len(vectors[0]) == 256
