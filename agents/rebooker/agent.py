"""Flight rebooker for ``adk web agents``: constraints kept in working memory across turns."""

from adk_memory_kit.sample_agents.rebooker import build_rebooker_agent

root_agent = build_rebooker_agent()
