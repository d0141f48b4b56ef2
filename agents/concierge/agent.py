"""Lunch concierge for ``adk web agents --memory_service_uri=pgvector://``.

Profile tools (``user:`` state), the routing extractor, ``load_memory`` and the budgeted
preload, working memory, the checkpoint plugin and the explicit ``end_session`` tool.
"""

from adk_memory_kit.sample_agents.concierge import build_concierge_app

app = build_concierge_app()
root_agent = app.root_agent
