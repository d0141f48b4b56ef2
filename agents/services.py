"""Loaded by ``adk web agents``: registers the ``pgvector://`` memory service scheme.

    adk web agents --memory_service_uri=pgvector://
    adk web agents --memory_service_uri=pgvector://user:password@host:5432/dbname
"""

from adk_memory_kit.adk_services import register_pgvector_memory_service

register_pgvector_memory_service()
