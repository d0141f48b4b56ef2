"""Loaded by ``adk web agents``: registers the ``pgvector://`` scheme for memory and sessions.

    adk web agents --session_service_uri=pgvector:// --memory_service_uri=pgvector://
    adk web agents --session_service_uri=pgvector://user:pw@host:5432/db \
                   --memory_service_uri=pgvector://user:pw@host:5432/db
"""

from adk_memory_kit.adk_services import register_pgvector_services

register_pgvector_services()
