"""Research assistant for ``adk web agents``: web search, findings, tool-payload pruning."""

from adk_memory_kit.sample_agents.research import build_research_agent

root_agent = build_research_agent()
