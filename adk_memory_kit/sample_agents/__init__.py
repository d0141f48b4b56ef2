"""Builders for the sample agents in ``agents/`` (also used by ``adk-memory-kit demo``)."""
