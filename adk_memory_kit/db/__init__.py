"""Database plumbing: the embedded server, engines and migrations."""

from adk_memory_kit.db.embedded import embedded_db_url, kit_home
from adk_memory_kit.db.engine import make_engine, normalize_db_url, resolve_db_url

__all__ = ["embedded_db_url", "kit_home", "make_engine", "normalize_db_url", "resolve_db_url"]
