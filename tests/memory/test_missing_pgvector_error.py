"""Without pgvector the service's error is one line that says what to do."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from adk_memory_kit.db.engine import make_engine
from adk_memory_kit.errors import DatabaseUnavailableError
from adk_memory_kit.memory.schema import ensure_schema


@pytest.mark.slow
async def test_missing_pgvector_error_is_one_line(db_url):
    # a database whose owner may not create the extension (pgvector is not a trusted one)
    name = f"novector_{uuid.uuid4().hex[:8]}"
    admin = make_engine(db_url, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(f"CREATE ROLE {name} LOGIN NOSUPERUSER"))
            await conn.execute(text(f"CREATE DATABASE {name} OWNER {name}"))
        url = make_url(db_url).set(username=name, database=name)
        engine = make_engine(url.render_as_string(hide_password=False))
        try:
            with pytest.raises(DatabaseUnavailableError) as raised:
                await ensure_schema(engine, dim=8, model_id="test")
        finally:
            await engine.dispose()
        message = str(raised.value)
        assert "\n" not in message
        assert "pgvector extension is not available" in message
        assert "CREATE EXTENSION vector" in message
        assert "[SQL:" not in message
    finally:
        async with admin.connect() as conn:
            await conn.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            await conn.execute(text(f"DROP ROLE IF EXISTS {name}"))
        await admin.dispose()
